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

describe('svc models list', () => {
  it('lists every model as tab-separated rows in a pipe', async () => {
    const r = await svcInProcess(['models', 'list'], { emu });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((row) => row[0])).toContain('svc-4');
    expect(rows.map((row) => row[0])).toContain('svc-embed-1');
    expect(r.stderr).toBe('');
  });

  it('turns language prices into dollars per million tokens', async () => {
    const r = await svcInProcess(['models', 'list', '--kind', 'language'], { emu });
    expect(r.exitCode).toBe(0);
    const row = r.stdout
      .split('\n')
      .find((l) => l.startsWith('svc-4\t'))!
      .split('\t');
    // 30000 cents per 100M tokens = $3.00 per 1M; 150000 → $15.00
    expect(row).toEqual(['svc-4', 'svc-latest, svc-4-latest', 'text+image', '$3.00', '$0.75', '$15.00']);
  });

  it('prints image prices per image', async () => {
    const r = await svcInProcess(['models', 'list', '--kind', 'image'], { emu });
    expect(r.stdout.trim()).toBe('svc-image-1\tsvc-image\t$0.07\t1024');
  });

  it('--json prints one model per line as the API sent it', async () => {
    const r = await svcInProcess(['models', 'list', '--kind', 'embedding', '--json'], { emu });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ id: 'svc-embed-1', prompt_text_token_price: 1000, object: 'model' });
  });

  it('rejects an unknown kind before sending anything', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['models', 'list', '--kind', 'audio'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--kind');
    expect(r.stderr).toContain('language, embedding, image, video');
    expect(emu.requests()).toHaveLength(0);
  });

  it('gets one model by alias, and 404 exits 5', async () => {
    const ok = await svcInProcess(['models', 'get', 'svc-latest', '--kind', 'language', '--json'], { emu });
    expect(JSON.parse(ok.stdout).id).toBe('svc-4');
    const missing = await svcInProcess(['models', 'get', 'nope'], { emu });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toMatch(/nope.*HTTP 404.*request id [0-9a-f-]{36}/);
  });
});
