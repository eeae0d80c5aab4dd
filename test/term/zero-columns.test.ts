// A terminal that reports 0 columns (a pseudo-terminal without a size: `script` in CI, editor shells) gets no live
// redraw: every spinner and progress path finishes, prints a bounded amount, and never moves the cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcOnTerminal } from '../helpers/terminal.js';
import { livePaths, prepareInputs, type LivePath } from './terminal-paths.js';

let emu: TestEmulator;
let paths: LivePath[];

beforeAll(async () => {
  emu = await startTestEmulator();
  // long enough that a redrawing spinner would write megabytes (the bug: 47 MB in 25 s)
  emu.core.settings.deferredDelayMs = 2500;
  emu.core.settings.videoDelayMs = 2500;
  paths = livePaths(await prepareInputs(emu));
});
afterAll(() => emu.close());

// the two tests run at once: they wait on the emulator's delays, and look at nothing the other changes
describe.concurrent('a pseudo-terminal of 0 columns', () => {
  it('every spinner and progress path finishes with static lines only', async () => {
    // each in-process on a terminal of its own (stdout and stderr report 0 columns, as the pseudo-terminal's do: the
    // CLI decides from the streams it is given), all at once: they wait on the emulator's delays, not on the CPU;
    // what the terminal is shown: the pseudo-terminal turns each \n into \r\n. The test below runs on a real one.
    const runs = await Promise.all(
      paths.map(async (p) => {
        const r = await svcInProcess(p.args(tempDir()), {
          emu,
          tty: true,
          columns: 0,
          env: { NO_COLOR: undefined, FORCE_COLOR: undefined },
        });
        return { exitCode: r.exitCode, screen: (r.stdout + r.stderr).replace(/\n/g, '\r\n') };
      }),
    );
    paths.forEach((p, i) => {
      const r = runs[i]!;
      expect(r.exitCode, `${p.name}\n${r.screen.slice(0, 2000)}`).toBe(0);
      expect(r.screen.length, p.name).toBeLessThan(4000);
      // no cursor movement or line erasing: \r only as part of the terminal's CR LF
      expect(r.screen, p.name).not.toMatch(/\u001b\[\d*[ABGK]|\u001b\[2K|\r(?!\n)/);
    });
  });

  it('on a real pseudo-terminal of 0 columns, the spinner text is shown once, then the outcome', async () => {
    const video = paths.find((p) => p.name.startsWith('videos'))!;
    const r = await svcOnTerminal(video.args(tempDir()), { emu, cols: 0 });
    expect(r.screen.match(/pending · video/g)).toHaveLength(1);
    expect(r.screen).toMatch(/✔ done \(\d+s\) · video \S+/);
  });
});
