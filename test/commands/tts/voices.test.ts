import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('svc tts voices / voice', () => {
  it('lists the built-in voices as TSV rows in a pipe', async () => {
    const r = await svcInProcess(['tts', 'voices'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('eve\tEve\ten\nara\tAra\ten\nrex\tRex\ten\nsal\tSal\ten\nleo\tLeo\ten\n');
    expect(r.stderr).toBe('');
  });

  it('--json prints one voice per line as sent', async () => {
    const r = await svcInProcess(['tts', 'voices', '--json'], { emu });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toEqual({ voice_id: 'eve', name: 'Eve', language: 'en' });
  });

  it('shows one voice; ids are case-insensitive', async () => {
    const r = await svcInProcess(['tts', 'voice', 'ARA'], { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('voice_id\tara\nname\tAra\nlanguage\ten\n');
    const j = await svcInProcess(['tts', 'voice', 'Rex', '--json'], { emu });
    expect(JSON.parse(j.stdout)).toEqual({ voice_id: 'rex', name: 'Rex', language: 'en' });
  });

  it('an unknown voice exits 5 naming the built-in voices', async () => {
    const r = await svcInProcess(['tts', 'voice', 'nobody'], { emu });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('eve, ara, rex, sal, leo');
  });
});
