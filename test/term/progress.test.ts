// The transfer bar (issue 42, item 10): the file's name, the rate and the time left at 40, 80 and 200 columns, the
// figures giving way in order on a narrow terminal; and the name on the bar of a real download and upload.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { barLine, formatEta } from '../../src/term/progress.js';
import { displayWidth } from '../../src/term/table.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';

const MiB = 1024 * 1024;

describe('barLine', () => {
  // 3 MiB of 10 after 2 s: 1.5 MiB/s, 7 MiB left: 5 s
  const line = (cols: number, name = 'quarterly-report.pdf') => barLine(name, 3 * MiB, 10 * MiB, 2, cols);

  it('at 200 columns: name, bar, percentage, bytes, rate, time left', () => {
    expect(line(200)).toMatch(/^quarterly-report\.pdf \[#+-+\]  30% 3\.0 MiB\/10 MiB 1\.5 MiB\/s ETA 5s$/);
  });

  for (const cols of [40, 80, 200])
    it(`at ${cols} columns: within the width, with the name, the rate and the time left`, () => {
      const l = line(cols);
      expect(displayWidth(l), l).toBeLessThan(cols);
      expect(l).toMatch(/^quarterly/);
      expect(l).toContain('1.5 MiB/s');
      expect(l).toContain('ETA 5s');
      expect(l).toContain(' 30%');
    });

  it('the bytes give way first, then the bar, then the rate; the name is cut, never the percentage', () => {
    expect(line(60)).not.toContain('3.0 MiB/10 MiB');
    expect(line(60)).toContain('[');
    expect(line(40)).not.toContain('[');
    expect(line(24)).toMatch(/^quarterly\S*… {2}30% ETA 5s$/);
  });

  it('no ETA before anything moved or once done; no size: bytes and rate', () => {
    expect(barLine('a', 0, 10, 1, 80)).not.toContain('ETA');
    expect(barLine('a', 10, 10, 1, 80)).not.toContain('ETA');
    expect(barLine('a.bin', 2048, undefined, 1, 80)).toBe('a.bin 2.0 KiB 2.0 KiB/s');
  });

  it('formatEta', () => {
    expect([formatEta(4.2), formatEta(65), formatEta(3725)]).toEqual(['5s', '1m05s', '1h02m']);
  });
});

describe('the bar of a real transfer names the file', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('files upload and files download on a terminal: the file name on the bar', async () => {
    const dir = tempDir('svc-bar-');
    const src = join(dir, 'notes-for-the-bar.txt');
    writeFileSync(src, 'x'.repeat(5000));
    const up = await svcInProcess(['files', 'upload', src, '--json'], { emu, tty: true, columns: 80 });
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stderr).toMatch(/\rnotes-for-the-bar\.txt \[#+\] 100%/);
    const id = JSON.parse(up.stdout).id as string;
    const down = await svcInProcess(['files', 'download', id, '-o', join(dir, 'saved-copy.txt')], {
      emu,
      tty: true,
      columns: 80,
    });
    expect(down.exitCode, down.stderr).toBe(0);
    expect(down.stderr).toMatch(/\rsaved-copy\.txt \[#+\] 100%/);
  });
});
