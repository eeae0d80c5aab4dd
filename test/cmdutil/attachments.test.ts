// -a FILE|URL|- on chat, responses create and messages: text inline with its name, images as images, other documents
// uploaded then deleted (kept with --keep); URLs fetched (an image URL passed on); every check before sending.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { itWithEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { tempDir, writeTemp } from '../helpers/files.js';

const withEmu = itWithEmulator();
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0, 1, 2, 255])]);

/** A loopback server of the files a URL attachment fetches. */
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/notes.md') res.end('# Remote notes\n');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const posts = (emu: TestEmulator, path: string) => emu.requests().filter((r) => r.method === 'POST' && r.path === path);
const chatBody = (emu: TestEmulator) => JSON.parse(posts(emu, '/v1/chat/completions').at(-1)!.body!);

describe.concurrent('-a', () => {
  withEmu('chat: text inline with its name, an image as an image, a URL fetched', async ({ emu }) => {
    const notes = writeTemp('notes.txt', 'line one\nline two\n');
    const img = writeTemp('dot.png', PNG);
    const r = await svcInProcess(['chat', '-a', notes, '-a', img, '-a', `${base}/notes.md`, 'summarize'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const content = chatBody(emu).messages[0].content;
    expect(content[0]).toEqual({
      type: 'text',
      text:
        'summarize\n\n<attachment name="notes.txt">\nline one\nline two\n</attachment>\n\n' +
        '<attachment name="notes.md">\n# Remote notes\n</attachment>',
    });
    expect(content[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    expect(posts(emu, '/v1/files')).toHaveLength(0);
  });

  withEmu('a document is uploaded, sent by id and deleted after; --keep keeps it', async ({ emu }) => {
    const pdf = writeTemp('report.pdf', PDF);
    const r = await svcInProcess(['chat', '-a', pdf, 'what is in it?', '--no-stream'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const upload = posts(emu, '/v1/files');
    expect(upload).toHaveLength(1);
    const parts = chatBody(emu).messages[0].content;
    const id = parts.find((p: { type: string }) => p.type === 'file').file.file_id;
    expect(
      emu
        .requests()
        .filter((q) => q.method === 'DELETE')
        .map((q) => q.path),
    ).toEqual([`/v1/files/${id}`]);
    const kept = await svcInProcess(['responses', 'create', '-a', pdf, '--keep', 'and now?'], { emu });
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toMatch(/kept the uploaded attachments: file_/);
    expect(emu.requests().filter((q) => q.method === 'DELETE')).toHaveLength(1);
    const body = JSON.parse(posts(emu, '/v1/responses').at(-1)!.body!);
    expect(body.input[0].content).toContainEqual({ type: 'input_file', file_id: expect.stringMatching(/^file_/) });
  });

  withEmu('-a - reads the attachment from stdin (not the prompt)', async ({ emu }) => {
    const r = await svcInProcess(['messages', '-a', '-', 'count the words'], { emu, input: 'alpha beta\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse(posts(emu, '/v1/messages').at(-1)!.body!);
    expect(body.messages).toEqual([
      { role: 'user', content: 'count the words\n\n<attachment name="stdin">\nalpha beta\n</attachment>' },
    ]);
  });

  withEmu('a missing file, an image or document on messages, a URL that fails: nothing sent', async ({ emu }) => {
    const cases: [string[], string, number][] = [
      [['chat', '-a', '/nonexistent/x.txt', 'hi'], '-a: /nonexistent/x.txt: no such file', 2],
      [['messages', '-a', writeTemp('m.png', PNG), 'hi'], 'svc messages takes text attachments only', 2],
      [
        ['messages', '-a', writeTemp('m.pdf', PDF), 'hi'],
        'not text or an image, and svc messages takes text attachments only',
        2,
      ],
      [['chat', '-a', `${base}/missing.txt`, 'hi'], '404', 5],
    ];
    for (const [args, message, code] of cases) {
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode, args.join(' ')).toBe(code);
      expect(r.stderr).toContain(message);
    }
    expect(emu.requests()).toHaveLength(0);
  });

  withEmu(
    '-f: a file, a URL and a saved fragment before the prompt; svc fragments save/list/show/delete',
    async ({ emu }) => {
      const configDir = tempDir('svc-frag-');
      const save = await svcInProcess(['fragments', 'save', 'style'], { configDir, input: 'Write plainly.\n' });
      expect(save.exitCode, save.stderr).toBe(0);
      const list = await svcInProcess(['fragments', 'list'], { configDir });
      expect(list.stdout).toBe('style\t15\tWrite plainly.\n');
      expect((await svcInProcess(['fragments', 'show', 'style'], { configDir })).stdout).toBe('Write plainly.\n');
      const ctxFile = writeTemp('context.txt', 'Context here.\n');
      const r = await svcInProcess(['chat', '-f', 'style', '-f', ctxFile, '-f', `${base}/notes.md`, 'go'], {
        configDir,
        emu,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(chatBody(emu).messages[0].content).toBe('Write plainly.\n\nContext here.\n\n# Remote notes\n\ngo');
      emu.clearRequests();
      const missing = await svcInProcess(['chat', '-f', 'styl', 'go'], { configDir, emu });
      expect(missing.exitCode).toBe(2);
      expect(missing.stderr).toContain('-f styl: no such file or saved fragment (did you mean style?)');
      expect(emu.requests()).toHaveLength(0);
      expect((await svcInProcess(['fragments', 'delete', 'style'], { configDir })).exitCode).toBe(0);
      expect((await svcInProcess(['fragments', 'show', 'style'], { configDir })).exitCode).toBe(5);
    },
  );
});
