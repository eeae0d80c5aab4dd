// What the emulator keeps on disk is its owner's alone, and in memory it keeps nothing there for long (issue 26,
// item 5): state folders it creates are 0700 with 0600 files; without a state folder, uploaded blobs spill to a
// private mkdtemp folder (0700, files 0600) that never follows a planted link and is removed when it stops.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/http/server.js';

const BIN = fileURLToPath(new URL('../bin/svc-emulator.js', import.meta.url));
const KEY = 'svc-emulator-local-key-0000000000000000';
const root = mkdtempSync(join(tmpdir(), 'svc-private-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every folder and file under `dir`, with its mode. */
function modes(dir: string): { path: string; dir: boolean; mode: number }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => {
    const path = join(e.parentPath, e.name);
    return { path, dir: e.isDirectory(), mode: mode(path) };
  });
}

async function uploadFile(url: string): Promise<void> {
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob(['private notes']), 'notes.txt');
  const r = await fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: form });
  expect(r.status).toBe(200);
}

describe('private state', () => {
  it('a state folder it creates (parents included) is 0700, its files 0600', async () => {
    const stateDir = join(root, 'data', 'svc', 'emulator');
    const emu = await startEmulator({ stateDir, quietLog: true });
    await uploadFile(emu.url);
    await fetch(`${emu.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-image-1', prompt: 'a disc' }),
    });
    await emu.close();
    expect(mode(join(root, 'data'))).toBe(0o700);
    expect(mode(stateDir)).toBe(0o700);
    const all = modes(stateDir);
    expect(all.filter((e) => !e.dir).length).toBeGreaterThanOrEqual(3);
    for (const e of all) expect(e.mode, e.path).toBe(e.dir ? 0o700 : 0o600);
  });

  it('in memory, blobs go to a private mkdtemp folder that ignores a planted link and is removed on exit', async () => {
    const tmp = join(root, 'tmp');
    const victim = join(root, 'victim');
    mkdirSync(tmp);
    mkdirSync(victim);
    const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // the name an earlier version used, planted as a link to another folder before the first blob
    symlinkSync(victim, join(tmp, `svc-emulator-${proc.pid}`));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      proc.once('exit', (code) => reject(new Error(`the emulator ended (${code}) before listening: ${stderr}`)));
    });
    await uploadFile(url);
    expect(readdirSync(victim)).toEqual([]);
    const spills = readdirSync(tmp).filter((n) => n !== `svc-emulator-${proc.pid}`);
    expect(spills).toHaveLength(1);
    const spill = join(tmp, spills[0]!);
    expect(mode(spill)).toBe(0o700);
    const all = modes(spill);
    expect(all.some((e) => !e.dir)).toBe(true);
    for (const e of all) expect(e.mode, e.path).toBe(e.dir ? 0o700 : 0o600);
    proc.kill('SIGTERM');
    expect(await new Promise((r) => proc.once('exit', r))).toBe(143);
    expect(readdirSync(tmp)).toEqual([`svc-emulator-${proc.pid}`]);
    expect(readdirSync(victim)).toEqual([]);
  });
});
