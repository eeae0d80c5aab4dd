// `svc emulator serve --seed N`: two runs from a fresh state with the same seed give byte-identical outputs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { svcInProcess } from '../../helpers/in-process.js';
import { spawnSvc } from '../../helpers/subprocess.js';
import { tempDir } from '../../helpers/files.js';

const DEFAULT_KEY = 'svc-emulator-local-key-0000000000000000';
const running: ReturnType<typeof spawnSvc>[] = [];
afterEach(() => {
  for (const c of running.splice(0)) c.kill('SIGKILL');
});

async function serve(args: string[]): Promise<string> {
  const child = spawnSvc(['emulator', 'serve', '--port', '0', '--state-dir', tempDir(), ...args], { timeout: 120_000 });
  running.push(child);
  return new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().split('\n')[0]!.trim()));
    child.once('exit', () => reject(new Error('serve exited early')));
  });
}

/** A user's script: every output it makes, as bytes (JSON with the clock's fields removed). */
async function script(url: string): Promise<Record<string, string>> {
  const dir = tempDir();
  const env = { SVC_BASE_URL: url };
  const run = async (args: string[]) => {
    const r = await svcInProcess(args, { key: DEFAULT_KEY, env });
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const noClock = (line: string) =>
    JSON.stringify(JSON.parse(line), (k, v) =>
      /^(created|created_at|expires_at|modified_at)$/.test(k) ? undefined : v,
    );
  const upload = join(dir, 'notes.txt');
  writeFileSync(upload, 'the same bytes every time\n');
  const out: Record<string, string> = {};
  out.chat = await run(['chat', '--no-stream', 'Describe a lighthouse']);
  out.chatStream = await run(['chat', 'Describe a harbour']);
  out.chatJson = noClock((await run(['chat', '--no-stream', '--json', 'Describe a fox'])).trim());
  out.embed = await run(['embed', 'a red fox', 'a brown dog']);
  await run(['images', 'generate', 'a fox at dusk', '-o', join(dir, 'fox.png')]);
  out.image = readFileSync(join(dir, 'fox.png')).toString('base64');
  await run(['tts', 'say', 'hello there', '--rest', '-o', join(dir, 'hi.mp3')]);
  out.tts = readFileSync(join(dir, 'hi.mp3')).toString('base64');
  await run(['tts', 'say', 'streamed speech', '-o', join(dir, 'stream.wav')]);
  out.ttsStream = readFileSync(join(dir, 'stream.wav')).toString('base64');
  out.upload = noClock((await run(['files', 'upload', upload, '--json'])).trim());
  out.deferred = await run(['chat', '--deferred', 'later']);
  return out;
}

describe('svc emulator serve --seed', () => {
  it('two runs with the same seed print byte-identical outputs; another seed changes text and ids', async () => {
    const [a, b, c] = await Promise.all([serve(['--seed', '42']), serve(['--seed', '42']), serve(['--seed', '43'])]);
    // each script talks to its own server, one request after another: the three run at once
    const [first, second, other] = await Promise.all([script(a), script(b), script(c)]);
    expect(Object.keys(first)).toHaveLength(9);
    for (const k of Object.keys(first)) expect(second[k], k).toBe(first[k]);
    expect(first.chat).toMatch(/lighthouse/);
    expect(JSON.parse(first.upload).id).toMatch(/^file_[0-9a-f]{24}$/);
    expect(other.chat).not.toBe(first.chat);
    expect(JSON.parse(other.upload).id).not.toBe(JSON.parse(first.upload).id);
    expect(other.deferred).not.toBe(first.deferred);
    // audio encodes the text (the emulator's STT reads it back), so it depends on the request only
    expect(other.tts).toBe(first.tts);
  }, 180_000);

  it('refuses a seed outside 0-4294967295', async () => {
    const r = await svcInProcess(['emulator', 'serve', '--seed', '-1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--seed/);
  });
});
