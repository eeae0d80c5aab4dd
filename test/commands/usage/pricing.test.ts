// Issue 25, item 18: image and video generation priced from the catalogue, calls an emulator answered logged as
// emulated and never counted toward budget.daily, --budget-strict letting free calls through, messages -u with its
// cost. Commands run in-process (svcInProcess) against an emulator over loopback.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ tokenDelayMs: 0, settings: { videoDelayMs: 0 } });
});
afterAll(() => emu.close());

const jsonLines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** The catalogue the emulator serves: USD per image and per second of video. */
async function mediaPrices(configDir: string): Promise<{ image: number; second: number }> {
  const image = await svcInProcess(['api', '/v1/image-generation-models/svc-image-1'], { emu, configDir });
  const video = await svcInProcess(['api', '/v1/video-generation-models/svc-video-1'], { emu, configDir });
  return {
    image: JSON.parse(image.stdout).image_price / 100,
    second: JSON.parse(video.stdout).generated_video_second_price / 100,
  };
}

/** A record of a real (not emulated) call that cost `usd` today, as a run against the API would have logged it. */
function spentAlready(configDir: string, usd: number): void {
  const now = new Date();
  const dir = join(configDir, 'data', 'logs');
  mkdirSync(dir, { recursive: true });
  const iso = now.toISOString();
  const id = `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-real0001`;
  const rec = { id, time: iso, command: 'chat', method: 'POST', path: '/v1/chat/completions', status: 200 };
  const usage = { input_tokens: 10, output_tokens: 10, total_tokens: 20 };
  writeFileSync(
    join(dir, `calls-${iso.slice(0, 10)}.jsonl`),
    `${JSON.stringify({ ...rec, duration_ms: 5, model: 'svc-4', usage, cost_usd: usd })}\n`,
  );
}

describe.concurrent('image and video generation are priced from the catalogue', () => {
  it('images at image_price each, video at generated_video_second_price per second generated', async () => {
    const configDir = tempDir();
    const dir = tempDir('svc-media-');
    const price = await mediaPrices(configDir);
    expect(price.image).toBeGreaterThan(0);
    expect(price.second).toBeGreaterThan(0);
    const img = await svcInProcess(['images', 'generate', 'a red kite', '-n', '3', '-o', dir], { emu, configDir });
    expect(img.exitCode, img.stderr).toBe(0);
    // a generation priced at its requested length; an edit at the length its result reports (3 s: its source's)
    const gen = await svcInProcess(
      ['videos', 'generate', 'waves', '--duration', '3', '--poll-interval', '0.1', '-o', join(dir, 'a.mp4')],
      { emu, configDir },
    );
    expect(gen.exitCode, gen.stderr).toBe(0);
    const made = emu.requests().find((r) => r.path === '/v1/videos/generations' && r.status === 200);
    expect(made).toBeDefined();
    const job = await svcInProcess(['videos', 'generate', 'gulls', '--duration', '4'], { emu, configDir });
    const got = await svcInProcess(['videos', 'get', job.stdout.trim(), '--json'], { emu, configDir });
    const url = JSON.parse(got.stdout).video.url as string;
    const edit = await svcInProcess(
      ['videos', 'edit', 'in black and white', '--video', url, '--poll-interval', '0.1', '-o', join(dir, 'b.mp4')],
      { emu, configDir },
    );
    expect(edit.exitCode, edit.stderr).toBe(0);

    const records = jsonLines((await svcInProcess(['logs', '--json'], { emu, configDir })).stdout);
    const images = records.find((r) => r.path === '/v1/images/generations');
    expect(images).toMatchObject({ images: 3, model: 'svc-image-1' });
    expect(images.cost_usd).toBeCloseTo(3 * price.image, 10);
    const videos = records.filter((r) => /\/v1\/videos\/(generations|edits)$/.test(r.path));
    expect(videos.map((r) => r.video_seconds).sort()).toEqual([3, 4, 4]);
    for (const v of videos) expect(v.cost_usd).toBeCloseTo(v.video_seconds * price.second, 10);
    // the polls cost nothing and are not counted as calls without a price
    const usage = jsonLines((await svcInProcess(['usage', '--json', '--by', 'model'], { emu, configDir })).stdout);
    expect(usage.find((r) => r.model === 'svc-image-1')).toMatchObject({ calls: 1, calls_without_cost: 0 });
    expect(usage.find((r) => r.model === 'svc-image-1').cost_usd).toBeCloseTo(3 * price.image, 10);
    expect(usage.find((r) => r.model === 'svc-video-1').cost_usd).toBeCloseTo(11 * price.second, 10);
    expect(usage.find((r) => r.total)).toMatchObject({ calls_without_cost: 0 });
  });

  it('messages -u shows the cost at the catalogue price, as chat -u shows the API figure; -q keeps it', async () => {
    const configDir = tempDir();
    const r = await svcInProcess(['messages', '-m', 'svc-4', '-u', '-q', '--json', 'cost of a haiku'], {
      emu,
      configDir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const { usage } = JSON.parse(r.stdout) as { usage: { input_tokens: number; output_tokens: number } };
    const model = JSON.parse((await svcInProcess(['api', '/v1/language-models/svc-4'], { emu, configDir })).stdout);
    const cost =
      (usage.input_tokens * model.prompt_text_token_price + usage.output_tokens * model.completion_text_token_price) /
      1e10;
    const total = usage.input_tokens + usage.output_tokens;
    expect(r.stderr).toContain(
      `usage: ${usage.input_tokens} input + ${usage.output_tokens} output = ${total} tokens · $${cost.toFixed(6)}`,
    );
    // the call log holds the same figure
    const logged = jsonLines((await svcInProcess(['logs', '--json'], { emu, configDir })).stdout);
    expect(logged.find((x) => x.path === '/v1/messages').cost_usd).toBeCloseTo(cost, 12);
  });
});

describe.concurrent('budgets count real calls only, and refuse only what may cost', () => {
  it('a base URL the emulator marks is logged as emulated and never counted toward budget.daily', async () => {
    const configDir = tempDir();
    spentAlready(configDir, 1);
    // spent $1 of $1.0000001: one counted chat call (~$1e-5) would cross it
    expect((await svcInProcess(['config', 'set', 'budget.daily', '1.0000001'], { configDir })).exitCode).toBe(0);
    for (const text of ['one', 'two', 'three']) {
      const r = await svcInProcess(['chat', '--no-stream', '--budget-strict', text], { emu, configDir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/budget/);
    }
    // a WebSocket session's 101 carries the mark too
    const spoken = await svcInProcess(['tts', 'say', 'hi', '-o', join(tempDir(), 'hi.wav')], { emu, configDir });
    expect(spoken.exitCode, spoken.stderr).toBe(0);
    const records = jsonLines((await svcInProcess(['logs', '--json'], { configDir })).stdout);
    expect(records.find((r) => r.method === 'WS')).toMatchObject({ path: '/v1/tts', emulated: true });
    const chats = records.filter((r) => r.path === '/v1/chat/completions' && r.id.endsWith('real0001') === false);
    expect(chats).toHaveLength(3);
    for (const c of chats) expect(c).toMatchObject({ emulated: true, status: 200 });
    // they are priced (shown by usage) though they count for nothing
    for (const c of chats) expect(c.cost_usd).toBeGreaterThan(0);
  });

  it('over the budget: a warning; --budget-strict refuses a paid call (none sent), lets a free one go', async () => {
    const configDir = tempDir();
    spentAlready(configDir, 1);
    expect((await svcInProcess(['config', 'set', 'budget.daily', '0.5'], { configDir })).exitCode).toBe(0);
    const warned = await svcInProcess(['chat', '--no-stream', 'hello'], { emu, configDir });
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.stderr).toContain("today's spend $1.0000 has reached budget.daily $0.5");
    const strict = await svcInProcess(['chat', '--budget-strict', 'once more'], { emu, configDir });
    expect(strict.exitCode).toBe(8);
    expect(strict.stderr).toMatch(/--budget-strict: today's spend \$1\.0000 has reached budget\.daily \$0\.5/);
    const free = await svcInProcess(['files', 'list', '--budget-strict'], { emu, configDir });
    expect(free.exitCode, free.stderr).toBe(0);
    const sent = jsonLines((await svcInProcess(['logs', '--json'], { configDir })).stdout).map((r) => r.path);
    expect(sent.filter((p) => p === '/v1/chat/completions')).toHaveLength(2); // the real one and the warned one
    expect(sent).toContain('/v1/files');
    const bad = await svcInProcess(['config', 'set', 'budget.daily', '-1'], { configDir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/budget\.daily/);
  });
});
