// `videos generate --wait` on a real terminal (tmux) at 40, 80 and 200 columns (issue 42, item 4): the spinner line
// never wraps, and it shows the progress and the time as they change, not the first poll's all along.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../../helpers/emulator.js';
import { tempDir } from '../../helpers/files.js';
import { TmuxTerminal } from '../../helpers/terminal.js';

const it = itWithEmulator((emu) => {
  // long enough for two polls of progress however slowly the CLI starts on a busy machine
  emu.core.settings.videoDelayMs = 12_000;
});

describe.concurrent('videos generate --wait on a terminal', () => {
  for (const cols of [40, 80, 200])
    it(`${cols} columns: one row, the progress and elapsed time as the API reports them`, async ({ emu }) => {
      const out = join(tempDir('svc-video-wait-'), 'boat.mp4');
      const term = new TmuxTerminal();
      try {
        term.start(['videos', 'generate', 'a paper boat', '--wait', '-o', out, '--poll-interval', '2'], {
          emu,
          cols,
        });
        const percents = new Set<string>();
        const seconds = new Set<string>();
        let screen = '';
        while (!screen.includes('EXIT=')) {
          screen = await term.read();
          // -J joins a wrapped row: a spinner wider than the terminal shows as a longer line
          // (the request id's own line is an id whole: 47 columns, never cut; the path on stdout is data, whole)
          for (const l of screen.split('\n').filter((l) => !l.startsWith('request id ') && l !== out))
            expect(l.length, screen).toBeLessThanOrEqual(cols);
          const m = /pending (\d+)% · (\d+)s/.exec(screen);
          if (m) {
            percents.add(m[1]!);
            seconds.add(m[2]!);
          }
          // 4 reads a second see each second counted (each read is a tmux client: 100 ms made ~500 of them)
          await new Promise((r) => setTimeout(r, 250));
        }
        expect(screen).toContain('EXIT=0');
        expect(screen).toMatch(/✔ done \(\d+s\)/);
        expect(existsSync(out)).toBe(true);
        expect(percents.size, [...percents].join(' ')).toBeGreaterThan(1);
        // the time counts between polls (every 2 s) too
        expect(seconds.size, [...seconds].join(' ')).toBeGreaterThan(3);
      } finally {
        term.stop();
      }
    }, 60_000);
});
