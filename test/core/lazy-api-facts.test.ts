// api-facts (the lists generated from the API document) is loaded where a flag needs one of its lists, not by every
// command whose module names such a flag (issue 38: `svc chat hi` checks none).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcProcess } from '../helpers/subprocess.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** svc's files the process loaded that hold api-facts: its bundle chunk, or svc-formats' module */
const API_FACTS = /\/dist\/(bundle\/shared\/api-facts-[^/]+\.cjs|api-facts\.js)$/;

async function traced(args: string[], mode: 'bundle' | 'modules') {
  const trace = join(tempDir(), 'imports.txt');
  const r = await svcProcess(args, {
    emu,
    nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
    env: { SVC_TRACE_IMPORTS: trace, SVC_NO_BUNDLE: mode === 'modules' ? '1' : undefined },
  });
  const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  return { ...r, loaded, apiFacts: loaded.filter((u) => API_FACTS.test(u)) };
}

/**
 * A run whose loaded modules are not asserted: untraced (the tracer's loader thread nearly doubles a run's CPU). The
 * modules (dist/, src/ compiled one module each) run as src/ in-process: a process of them costs ~0.09 s of CPU.
 */
const run = (args: string[], mode: 'bundle' | 'modules') =>
  mode === 'bundle' ? svcProcess(args, { emu }) : svcInProcess(args, { emu });

const chatBodies = () =>
  emu
    .requests()
    .filter((q) => q.path === '/v1/chat/completions')
    .map((q) => JSON.parse(q.body!) as Record<string, unknown>);

describe.each(['bundle', 'modules'] as const)('api-facts on use (%s)', (mode) => {
  it('svc chat --no-stream hi and svc models list do not load it', async () => {
    const chat = await traced(['chat', '--no-stream', 'hi'], mode);
    expect([chat.exitCode, chat.stderr]).toEqual([0, '']);
    expect(chat.stdout).toMatch(/hi/);
    expect(chat.loaded.some((u) => u.includes('/dist/'))).toBe(true);
    expect(chat.apiFacts).toEqual([]);
    const models = await traced(['models', 'list'], mode);
    expect(models.exitCode).toBe(0);
    expect(models.apiFacts).toEqual([]);
  });

  it("--tool-choice reads chat's tool_choice modes when given, and --help names them", async () => {
    const sent = chatBodies().length;
    const ok = await traced(['chat', '--no-stream', '--tool-choice', 'none', 'hi'], mode);
    expect([ok.exitCode, ok.stderr]).toEqual([0, '']);
    expect(ok.apiFacts.length).toBeGreaterThan(0);
    expect(chatBodies().slice(sent)).toEqual([expect.objectContaining({ tool_choice: 'none' })]);
    const bad = await run(['chat', '--no-stream', '--tool-choice', 'always', 'hi'], mode);
    expect([bad.exitCode, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toBe(
      'error: --tool-choice: always is not allowed: none, auto, required, or the name of a --tool function\n',
    );
    expect(chatBodies()).toHaveLength(sent + 1);
    const help = await run(['chat', '--help'], mode);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--tool-choice <choice> none, auto, required, or a function');
  });

  it("--voice's built-in ids and the default voice are read when asked: help, config get voice", async () => {
    // realtime and agents name --voice, completion lists the voices, config get knows the default: none at load
    const model = await traced(['config', 'get', 'model', '--json'], mode);
    expect([model.exitCode, model.stderr]).toEqual([0, '']);
    expect(model.apiFacts).toEqual([]);
    const voice = await traced(['config', 'get', 'voice', '--json'], mode);
    expect([voice.exitCode, voice.stderr]).toEqual([0, '']);
    expect(JSON.parse(voice.stdout)).toMatchObject({ key: 'voice', value: 'eve', source: 'default', default: 'eve' });
    expect(voice.apiFacts.length).toBeGreaterThan(0);
    const help = await run(['tts', 'say', '--help'], mode);
    const words = (text: string) => text.replace(/\s+/g, ' ');
    expect(words(help.stdout)).toContain('--voice <id> voice id: built-in (eve, ara, rex, sal, leo, default eve) or a');
    const agents = await run(['agents', 'create', '--help'], mode);
    expect(words(agents.stdout)).toContain('--voice <id> eve, ara, rex, sal, leo, or a custom voice id');
  });

  it('--reasoning-effort and --service-tier load it and check against its lists', async () => {
    const sent = chatBodies().length;
    const ok = await traced(
      ['chat', '--no-stream', '--reasoning-effort', 'high', '--service-tier', 'priority', 'hi'],
      mode,
    );
    expect([ok.exitCode, ok.stderr]).toEqual([0, '']);
    expect(ok.apiFacts.length).toBeGreaterThan(0);
    expect(chatBodies().slice(sent)).toEqual([
      expect.objectContaining({ reasoning_effort: 'high', service_tier: 'priority' }),
    ]);

    const bad = await run(['chat', '--no-stream', '--reasoning-effort', 'hgh', 'hi'], mode);
    expect([bad.exitCode, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toBe(
      'error: --reasoning-effort: hgh is not allowed: one of none, low, medium, high (did you mean high?)\n',
    );
    const tier = await run(['chat', '--no-stream', '--service-tier', 'flex', 'hi'], mode);
    expect([tier.exitCode, tier.stderr]).toEqual([
      2,
      'error: --service-tier: flex is not allowed: one of auto, priority\n',
    ]);
    expect(chatBodies()).toHaveLength(sent + 1);
  });
});
