// What the emulator's hostile tests share (hostile.test.ts, and hostile-floods.test.ts of the full run): the emulator
// as its own process (svc-emulator serve), so "still up" means the process answers and its memory is read from /proc,
// and the clients that attack it: WebSocket frames written by hand on raw TCP, and an ordinary WebSocket client.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';

const BIN = fileURLToPath(new URL('../bin/svc-emulator.js', import.meta.url));
export const KEY = 'svc-emulator-local-key-0000000000000000';
export const MiB = 1024 * 1024;
export const ROUTES = ['/v1/tts?language=en&codec=pcm', '/v1/stt?sample_rate=16000&encoding=pcm', '/v1/realtime'];

/** The emulator process of a test file: started before its tests, stopped (SIGTERM) after them. */
export class EmulatorProcess {
  proc!: ChildProcess;
  base!: URL;
  baselineRss = 0;

  private constructor(private readonly serveArgs: string[]) {}

  /** `serveArgs`: more arguments of `svc-emulator serve` (a collection to search) */
  static forThisFile(serveArgs: string[] = []): EmulatorProcess {
    const emulator = new EmulatorProcess(serveArgs);
    beforeAll(() => emulator.start());
    afterAll(() => emulator.stop());
    return emulator;
  }

  private async start(): Promise<void> {
    this.proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...this.serveArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      this.proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      this.proc.once('exit', (code) => reject(new Error(`svc-emulator exited with ${code}`)));
    });
    this.base = new URL(url);
    await this.health();
    this.baselineRss = this.rssBytes();
  }

  private async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    await exited;
  }

  /** The emulator process's resident memory (VmRSS). */
  rssBytes(): number {
    const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
  }

  async health(): Promise<void> {
    const r = await fetch(new URL('/_emulator/health', this.base));
    expect(r.status).toBe(200);
    expect(this.proc.exitCode).toBeNull();
  }

  /**
   * Up, and its memory within `slackMiB` of what it was at start (or at `since`, an earlier rssBytes()) — what it
   * keeps, so read again for up to 12 s while V8 gives the reply's garbage back (its memory reducer starts ~8 s after
   * the allocations slow): on Node 24 the RSS right after a long MP3 REST TTS was 177-194 MiB over. A leak stays.
   */
  async upAndBounded(slackMiB = 160, since = this.baselineRss): Promise<void> {
    await this.health();
    let grown = this.rssBytes() - since;
    for (let waited = 0; grown >= slackMiB * MiB && waited < 12_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      await this.health();
      grown = this.rssBytes() - since;
    }
    expect(grown, `RSS grew by ${(grown / MiB).toFixed(1)} MiB`).toBeLessThan(slackMiB * MiB);
  }

  /** A REST TTS of `words` words, with timestamps: long work for the server. */
  longTts(codec: string, words: number): Promise<Response> {
    return fetch(new URL('/v1/tts', this.base), {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'word '.repeat(words),
        language: 'en',
        output_format: { codec, sample_rate: 8000 },
        with_timestamps: true,
      }),
    });
  }

  /** A long REST TTS: the server answers another request while it works, and holds a bounded amount after. */
  /**
   * A long REST TTS: health answers while it works, and the memory it leaves is bounded. `keptMiB`: what one reply
   * may leave held (160 MiB; Node 24 keeps 170-195 MiB after an MP3 one, its heap not given back within 12 s) — with
   * it, the same request runs again and must add at most 64 MiB: a leak would add up, a held heap does not. The
   * second request added 8-20 MiB on a quiet machine on Node 24 (its young generation grows to 128 MiB, glibc keeps
   * freed buffers) and 48.1 MiB once in a loaded CI run, where 48 was the cap.
   */
  async answersDuringLongTts(codec: string, words: number, keptMiB?: number): Promise<void> {
    // measured from just before the request, as the long sessions are: what it holds after, not what came before
    const before = this.rssBytes();
    await this.longTtsWhileServing(codec, words);
    await this.upAndBounded(keptMiB ?? 160, before);
    if (keptMiB === undefined) return;
    const kept = this.rssBytes();
    await this.longTtsWhileServing(codec, words);
    await this.upAndBounded(64, kept);
  }

  private async longTtsWhileServing(codec: string, words: number): Promise<void> {
    let finished = false;
    const reply = this.longTts(codec, words).then(async (r) => {
      const body = (await r.json()) as { audio: string; duration: number; audio_timestamps: unknown };
      finished = true;
      return { status: r.status, body };
    });
    await new Promise((r) => setTimeout(r, 50));
    await this.health();
    expect(finished).toBe(false);
    const { status, body } = await reply;
    expect(status).toBe(200);
    expect(body.duration).toBeGreaterThan(20);
    expect(Buffer.from(body.audio, 'base64').length).toBeGreaterThan(100_000);
  }

  /** Opens a WebSocket by hand on raw TCP, waits for the 101, writes `attack`, and reads until the server ends. */
  async attack(path: string, attackFrames: Buffer[]): Promise<{ code: number | undefined }> {
    const socket: Socket = connect(Number(this.base.port), this.base.hostname);
    socket.on('error', () => {});
    const chunks: Buffer[] = [];
    let upgraded: () => void;
    const ready = new Promise<void>((r) => {
      upgraded = r;
    });
    let head = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      if (head !== undefined && !head.includes('\r\n\r\n')) {
        head = Buffer.concat([head, d]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        expect(head.subarray(0, 12).toString()).toBe('HTTP/1.1 101');
        chunks.push(head.subarray(end + 4));
        upgraded();
        return;
      }
      chunks.push(d);
    });
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${this.base.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
        `Authorization: Bearer ${KEY}\r\n\r\n`,
    );
    await ready;
    for (const f of attackFrames) if (!socket.destroyed) socket.write(f);
    await ended;
    return { code: closeCode(Buffer.concat(chunks)) };
  }

  /** A WebSocket client on `path` with the events it received, in order. */
  async client(path: string): Promise<{ ws: WebSocket; events: Record<string, unknown>[] }> {
    const ws = new WebSocket(new URL(path, this.base.href.replace(/^http/, 'ws')), {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const events: Record<string, unknown>[] = [];
    ws.on('message', (d, binary) => {
      if (!binary) events.push(JSON.parse(d.toString()) as Record<string, unknown>);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return { ws, events };
  }
}

/** A client frame as the wire carries it: FIN/RSV/opcode byte, the length header, a mask, the masked payload. */
export function frame(
  opcode: number,
  payload: Buffer,
  opts: { fin?: boolean; rsv?: number; masked?: boolean; claimedLength?: bigint } = {},
): Buffer {
  const first = ((opts.fin ?? true) ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | opcode;
  const masked = opts.masked ?? true;
  const len = opts.claimedLength ?? BigInt(payload.length);
  let header: Buffer;
  if (len < 126n) header = Buffer.from([first, (masked ? 0x80 : 0) | Number(len)]);
  else if (len < 65536n) {
    header = Buffer.alloc(4);
    header.writeUInt16BE(Number(len), 2);
    header[1] = (masked ? 0x80 : 0) | 126;
  } else {
    header = Buffer.alloc(10);
    header.writeBigUInt64BE(len, 2);
    header[1] = (masked ? 0x80 : 0) | 127;
  }
  header[0] = first;
  if (!masked) return Buffer.concat([header, payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i % 4]!;
  return Buffer.concat([header, mask, body]);
}

/** The close code of the server's close frame among the bytes it sent after the 101, if any. */
function closeCode(bytes: Buffer): number | undefined {
  let i = 0;
  while (i + 2 <= bytes.length) {
    const opcode = bytes[i]! & 0x0f;
    let len = bytes[i + 1]! & 0x7f;
    let at = i + 2;
    if (len === 126) {
      len = bytes.readUInt16BE(at);
      at += 2;
    } else if (len === 127) {
      len = Number(bytes.readBigUInt64BE(at));
      at += 8;
    }
    if (opcode === 0x8) return len >= 2 ? bytes.readUInt16BE(at) : 1005;
    i = at + len;
  }
  return undefined;
}

export async function until(events: Record<string, unknown>[], ok: (e: Record<string, unknown>) => boolean) {
  while (!events.some(ok)) await new Promise((r) => setTimeout(r, 10));
  return events.find(ok)!;
}

export const sent = (ws: WebSocket, data: string | Buffer) =>
  new Promise<void>((resolve, reject) => ws.send(data, (err) => (err ? reject(err) : resolve())));

export async function closed(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return;
  const done = new Promise<void>((r) => ws.once('close', () => r()));
  ws.close();
  await done;
}

export const MiB_PCM = Buffer.alloc(1024 * 1024);

/**
 * `full` in the full run (SVC_TEST_FULL=1, which the root vitest.config.ts hands its workers in CI), else `everyday`:
 * the root's test/helpers/full.ts, restated because the emulator's tests import nothing of the CLI.
 */
export const fullOr = <T>(full: T, everyday: T): T => (process.env.SVC_TEST_FULL === '1' ? full : everyday);
