// The --root of svc mcp serve: paths relative to it, refused when they lead outside (symbolic links followed), what
// was opened checked (a link flipped meanwhile changes nothing), svc's own folders never a tool's.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { Root } from '../../src/mcp/root.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';
import { mcpStdio } from '../helpers/mcp.js';

type Result = { content: { type: string; text?: string }[]; isError?: boolean };
const text = (r: Result): string => r.content.find((c) => c.type === 'text')?.text ?? '';

describe('Root', () => {
  const dir = tempDir('svc-root-');
  const outside = tempDir('svc-outside-');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(outside, 'secret'), 'x');
  symlinkSync(outside, join(dir, 'escape'));
  symlinkSync(join(outside, 'secret'), join(dir, 'secret-link'));
  const root = new Root(dir);

  it('takes a relative path from the root, and an absolute one under it', () => {
    expect(root.confine('sub/a.png', 'output', 'write')).toBe(join(root.real, 'sub', 'a.png'));
    expect(root.confine(join(root.real, 'b.png'), 'output', 'write')).toBe(join(root.real, 'b.png'));
    expect(root.confine('new/deeper/c.png', 'output', 'write')).toBe(join(root.real, 'new', 'deeper', 'c.png'));
  });

  it('refuses .., absolute paths elsewhere, and symbolic links that lead out', () => {
    for (const p of ['../x.png', '/etc/passwd', join(outside, 'y.png'), 'escape/z.png', 'secret-link', 'sub/../../q'])
      expect(() => root.confine(p, 'path', 'read'), p).toThrow(/is not allowed: a path under .* \(the --root/);
  });

  it('a root that does not exist is refused', () => {
    expect(() => new Root(join(dir, 'nope'))).toThrow(/--root: .*nope is not allowed: a folder that exists/);
  });
});

// The race of issue 36: a link inside the root flipping between a folder inside and one outside while tools read
// and write through it. A worker thread flips it thousands of times a second (a fresh link renamed over it: never
// absent); the server must read and write only what it opened and checked.
describe('svc mcp serve --root under a flipping link', () => {
  it('reads nothing outside, writes nothing outside (no file, no .part), over 2.5 s of flips or more', async () => {
    const emu = await startTestEmulator();
    const root = tempDir('svc-race-root-');
    const outside = tempDir('svc-race-out-');
    mkdirSync(join(root, 'in'));
    const inside = 'inside\n';
    writeFileSync(join(root, 'in', 'f.txt'), inside);
    writeFileSync(join(outside, 'f.txt'), 'OUTSIDE, NEVER TO BE UPLOADED\n');
    symlinkSync('in', join(root, 'd'));
    const s = await mcpStdio(['mcp', 'serve', '--root', root], { emu });
    const stop = new SharedArrayBuffer(4);
    const flipper = new Worker(
      `const { symlinkSync, renameSync } = require('node:fs');
       const { root, outside, stop } = require('node:worker_threads').workerData;
       const pause = new Int32Array(new SharedArrayBuffer(4));
       const stopped = new Int32Array(stop);
       let flips = 0;
       while (Atomics.load(stopped, 0) === 0) {
         symlinkSync(flips % 2 ? 'in' : outside, root + '/d.next');
         renameSync(root + '/d.next', root + '/d');
         flips++;
         // a breath of 0.1 ms every 5 flips (pointing in, then out: both ways alike) leaves time to the calls
         if (flips % 5 === 0) Atomics.wait(pause, 0, 0, 0.1);
       }
       require('node:worker_threads').parentPort.postMessage(flips);`,
      { eval: true, workerData: { root, outside, stop } },
    );
    const flips = new Promise<number>((resolve, reject) => {
      flipper.once('message', resolve);
      flipper.once('error', reject);
    });
    const outcomes = { uploaded: 0, wrote: 0, refused: 0 };
    let timer: NodeJS.Timeout | undefined;
    try {
      // at least 2.5 s, and until both ways were met (a call let through, one refused) on a busy machine (at most 30 s)
      const started = Date.now();
      const met = () => outcomes.refused > 0 && outcomes.uploaded + outcomes.wrote > 0;
      let running = true;
      timer = setInterval(() => {
        const past = Date.now() - started;
        if ((past >= 2500 && met()) || past >= 30_000) {
          running = false;
          clearInterval(timer);
        }
      }, 50);
      const uploads = async () => {
        while (running) {
          const r = (await s.client.callTool({ name: 'upload_file', arguments: { path: 'd/f.txt' } })) as Result;
          if (r.isError) outcomes.refused++;
          else {
            outcomes.uploaded++;
            expect(JSON.parse(text(r)).bytes).toBe(inside.length);
          }
        }
      };
      let n = 0;
      const speeches = async () => {
        while (running) {
          const output = `d/x-${++n}.mp3`;
          const r = (await s.client.callTool({ name: 'text_to_speech', arguments: { text: 'hi', output } })) as Result;
          if (r.isError) outcomes.refused++;
          else outcomes.wrote++;
        }
      };
      await Promise.all([uploads(), speeches()]);
      Atomics.store(new Int32Array(stop), 0, 1);
      expect(await flips).toBeGreaterThan(1000);
    } finally {
      clearInterval(timer);
      await flipper.terminate();
      await s.close();
      await emu.close();
    }
    // both directions met: some calls went through (inside), some were refused (the link led out)
    expect(outcomes.uploaded + outcomes.wrote).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(readdirSync(outside)).toEqual(['f.txt']);
    const uploaded = emu.requests().filter((r) => r.path === '/v1/files' && r.method === 'POST');
    expect(uploaded.length).toBe(outcomes.uploaded);
    for (const r of uploaded) expect(String(r.body)).not.toContain('OUTSIDE');
  });
});

// A link planted at an output's name once it was checked (while the API answers), leading to a pipe outside the root
// that someone reads: the tool writes nothing into it and says why.
describe('svc mcp serve: a link planted at an output name', () => {
  it('download_file refuses a link planted to a FIFO outside the root: a tool error, nothing written', async () => {
    const emu = await startTestEmulator();
    const root = tempDir('svc-plant-root-');
    const outside = tempDir('svc-plant-out-');
    const fifo = join(outside, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // a reader holds the pipe open (never blocking), so that a write there would go through and be seen
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    writeFileSync(join(root, 'data.txt'), 'stored bytes\n');
    const s = await mcpStdio(['mcp', 'serve', '--root', root], { emu });
    try {
      const up = (await s.client.callTool({ name: 'upload_file', arguments: { path: 'data.txt' } })) as Result;
      const id = JSON.parse(text(up)).id as string;
      emu.faults.add({ kind: 'slow', delayMs: 1500, method: 'GET', path: '/content$' });
      const call = s.client.callTool({ name: 'download_file', arguments: { id, output: 'got.txt' } });
      // the name was checked when the call began; plant the link while the API has not answered yet
      while (!emu.requests().some((r) => r.method === 'GET' && r.path.endsWith('/content')))
        await new Promise((r) => setTimeout(r, 20));
      symlinkSync(fifo, join(root, 'got.txt'));
      const r = (await call) as Result;
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/download_file: cannot write .*got\.txt: a symbolic link is there; svc writes only a/);
      const seen = Buffer.alloc(1024);
      let n = 0;
      try {
        n = readSync(reader, seen);
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('EAGAIN');
      }
      expect(seen.subarray(0, n).toString()).toBe('');
      expect(readdirSync(root).sort()).toEqual(['data.txt', 'got.txt']);
    } finally {
      closeSync(reader);
      await s.close();
      await emu.close();
    }
  });
});

describe('svc mcp serve without --root', () => {
  it('refuses to start in / or in the home folder itself (exit 2, naming --root)', async () => {
    const slash = await svcInProcess(['mcp', 'serve'], { cwd: '/' });
    expect(slash.exitCode).toBe(2);
    expect(slash.stderr).toMatch(/--root: not given, and the working folder \/ is the whole file system/);
    const home = tempDir('svc-home-');
    const inHome = await svcInProcess(['mcp', 'serve'], { cwd: home, env: { HOME: home } });
    expect(inHome.exitCode).toBe(2);
    expect(inHome.stderr).toMatch(/--root: not given, and the working folder .* is your home: name the folder/);
  });

  it("never lets a tool read or write svc's own config, data or cache folders, whatever the root", async () => {
    const emu = await startTestEmulator();
    const home = tempDir('svc-home-');
    const project = join(home, 'project');
    mkdirSync(project);
    // the project folder holds svc's folders: the root is the working folder, all of them inside it
    const configDir = join(project, 'cfg');
    mkdirSync(join(configDir, 'data'), { recursive: true });
    mkdirSync(join(project, 'cache'));
    writeFileSync(join(configDir, 'config.json'), '{"api_key":"not-for-agents"}\n');
    writeFileSync(join(project, 'cache', 'ids.json'), '[]\n');
    writeFileSync(join(project, 'notes.txt'), 'notes\n');
    const s = await mcpStdio(['mcp', 'serve'], {
      emu,
      configDir,
      cwd: project,
      env: { HOME: home, SVC_CACHE_DIR: join(project, 'cache') },
    });
    try {
      for (const path of ['cfg/config.json', 'cache/ids.json', join(configDir, 'config.json')]) {
        const r = (await s.client.callTool({ name: 'upload_file', arguments: { path } })) as Result;
        expect(r.isError, path).toBe(true);
        expect(text(r)).toMatch(/path: .* is not allowed: a path under .* \(the --root of svc mcp serve\)/);
      }
      for (const output of ['cfg/data/x.mp3', 'cache/', 'cfg/x.mp3']) {
        const r = (await s.client.callTool({ name: 'text_to_speech', arguments: { text: 'hi', output } })) as Result;
        expect(r.isError, output).toBe(true);
      }
      expect(emu.requests().filter((r) => r.method === 'POST')).toEqual([]);
      const ok = (await s.client.callTool({ name: 'upload_file', arguments: { path: 'notes.txt' } })) as Result;
      expect(ok.isError).toBeFalsy();
    } finally {
      await s.close();
      await emu.close();
    }
    expect(readdirSync(join(configDir, 'data')).filter((f) => f.endsWith('.mp3'))).toEqual([]);
  });
});
