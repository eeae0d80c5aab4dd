// --no-input (SVC_NO_INPUT=1, implied by CI): on a real terminal, where svc would otherwise ask, every command
// that can prompt fails at once with exit 2, names the flag that answers the question, and sends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcOnTerminal } from '../helpers/terminal.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const PROMPTING: [string[], string][] = [
  [['files', 'delete', 'file_1'], '--yes'],
  [['files', 'unshare', 'file_1'], '--yes'],
  [['skills', 'delete', 'skill_1'], '--yes'],
  [['responses', 'delete', 'resp_1'], '--yes'],
  [['conversations', 'delete', 'conv_1'], '--yes'],
  [['custom-voices', 'delete', 'cv_1'], '--yes'],
  [['agents', 'delete', 'agent_1'], '--yes'],
  [['phone', 'buy', '--area-code', '415', '--name', 'front desk'], '--yes'],
  [['phone', 'release', 'pn_1'], '--yes'],
  [['phone', 'v2', 'create', '--origin', 'svc_provisioned', '--name', 'desk'], '--yes'],
  [['phone', 'v2', 'delete', 'pn_1'], '--yes'],
  [['auth', 'login'], '--with-key'],
  [['chat', '-i'], 'pipe the lines into chat -i'],
];

describe('--no-input on a terminal', () => {
  // each command in-process on a terminal (stdin, stdout and stderr; what it would ask on is decided from the
  // streams it is given); the tests below run on a real one (script(1)): the same refusal, and the question without CI
  for (const [args, answer] of PROMPTING) {
    it(`CI=true: svc ${args.join(' ')} exits 2 instead of asking, and names ${answer}`, async () => {
      emu.clearRequests();
      const run = await svcInProcess(args, { emu, env: { CI: 'true' }, tty: true, stdinTty: true });
      const r = { exitCode: run.exitCode, screen: run.stdout + run.stderr };
      expect(r.exitCode, r.screen).toBe(2);
      expect(r.screen).toContain('svc would ask, but CI is set, which implies --no-input');
      expect(r.screen).toContain(answer);
      expect(r.screen).not.toMatch(/\[y\/N\]|API key: /);
      expect(emu.requests()).toEqual([]);
    });
  }

  it(
    'the same terminal without CI asks (so CI is what makes the difference); --no-input and SVC_NO_INPUT=1 ' +
      'refuse too',
    async () => {
      const asked = await svcOnTerminal(['files', 'delete', 'file_1'], { emu, typed: 'n\n' });
      expect(asked.screen).toContain('Delete file file_1 permanently? [y/N]');
      expect(asked.exitCode).toBe(3);
      const flag = await svcOnTerminal(['files', 'delete', 'file_1', '--no-input'], { emu });
      expect(flag.exitCode).toBe(2);
      expect(flag.screen).toContain('svc would ask, but --no-input; pass --yes to confirm');
      const env = await svcOnTerminal(['files', 'delete', 'file_1'], { emu, env: { SVC_NO_INPUT: '1' } });
      expect(env.exitCode).toBe(2);
      expect(env.screen).toContain('SVC_NO_INPUT is set');
      const off = await svcOnTerminal(['files', 'delete', 'file_1'], { emu, env: { CI: 'false' }, typed: 'n\n' });
      expect(off.screen).toContain('[y/N]');
    },
  );

  it('--yes answers the question under CI: the delete is sent', async () => {
    emu.clearRequests();
    const r = await svcOnTerminal(['files', 'delete', 'file_nope', '--yes'], { emu, env: { CI: 'true' } });
    expect(r.exitCode).toBe(5); // sent, and the emulator says the file does not exist
    expect(emu.requests().map((q) => `${q.method} ${q.path}`)).toEqual(['DELETE /v1/files/file_nope']);
  });
});
