// Issue 26 item 12: every malformed fault spec is refused by `svc emulator fault add` and `svc emulator serve --fault`
// (exit 2, naming what is wrong), and none is armed. The parser, admin API and `svc-emulator serve`:
// packages/emulator/test/fault-spec.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { MALFORMED } from '../../../packages/emulator/test/fault-specs.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('fault specs', () => {
  it('svc emulator fault add refuses every malformed spec with exit 2, arming nothing', async () => {
    for (const [spec, reason] of MALFORMED) {
      const r = await svcInProcess(['emulator', 'fault', 'add', '--', spec], { emu });
      expect(r.exitCode, spec).toBe(2);
      expect(r.stderr, spec).toMatch(reason);
      expect(r.stderr, spec).toContain('spec: ');
    }
    expect(emu.faults.list()).toEqual([]);
    expect((await svcInProcess(['emulator', 'fault', 'add', 'slow:ms=5'], { emu })).exitCode).toBe(0);
    expect(emu.faults.list()).toMatchObject([{ kind: 'slow', delayMs: 5, left: 1 }]);
    emu.faults.clear();
  });

  it('svc emulator serve --fault refuses them before starting (exit 2)', async () => {
    for (const [spec, reason] of MALFORMED.filter(([s]) => s !== '')) {
      const r = await svcInProcess(['emulator', 'serve', '--memory', '--port', '0', `--fault=${spec}`]);
      expect(r.exitCode, spec).toBe(2);
      expect(r.stderr, spec).toMatch(reason);
    }
  });
});
