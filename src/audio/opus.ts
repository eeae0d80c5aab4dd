// Opus packets for streaming speech to text (`--encoding opus`: raw packets, one per WebSocket frame, mono).
// svc has no Opus encoder of its own: `ffmpeg` (libopus) encodes 48 kHz mono PCM as it arrives into an Ogg stream
// with a page per packet, and the packets are taken out of the Ogg pages here (the OpusHead and OpusTags
// header packets dropped).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { childEnvironment } from '../core/environment.js';

/** Opus always runs at 48 kHz; svc sends mono. */
export const OPUS_RATE = 48000;

/**
 * The packets of an Ogg stream, as its bytes arrive: a page is `OggS`, 27 header bytes, a segment table, then the
 * segments; a packet ends at a segment shorter than 255 bytes (it may continue on the next page).
 */
export class OggPacketReader {
  private buf: Buffer = Buffer.alloc(0);
  private partial: Buffer[] = [];

  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const packets: Buffer[] = [];
    for (;;) {
      if (this.buf.length < 27) break;
      if (this.buf.toString('latin1', 0, 4) !== 'OggS') throw new Error('not an Ogg stream (no OggS page)');
      const nseg = this.buf[26]!;
      const headerLen = 27 + nseg;
      if (this.buf.length < headerLen) break;
      const lacing = this.buf.subarray(27, headerLen);
      const bodyLen = lacing.reduce((a, b) => a + b, 0);
      if (this.buf.length < headerLen + bodyLen) break;
      let off = headerLen;
      for (const len of lacing) {
        this.partial.push(this.buf.subarray(off, off + len));
        off += len;
        if (len < 255) {
          packets.push(Buffer.concat(this.partial));
          this.partial = [];
        }
      }
      this.buf = this.buf.subarray(headerLen + bodyLen);
    }
    return packets;
  }
}

/** PCM (s16le, 48 kHz mono) in, Opus packets out, through an ffmpeg subprocess. */
export class OpusEncoder {
  private readonly child: ChildProcess;
  private readonly out: PassThrough;
  private stderr = '';

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(
      'ffmpeg',
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        's16le',
        '-ar',
        String(OPUS_RATE),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        '-c:a',
        'libopus',
        '-b:a',
        '32k',
        '-application',
        'voip',
        '-frame_duration',
        '20',
        '-f',
        'ogg',
        '-page_duration',
        '20000',
        '-flush_packets',
        '1',
        'pipe:1',
      ],
      // without svc's secrets (core/environment.ts)
      { env: childEnvironment(env), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    // read from the start: node drops a child's unread output when it exits
    this.out = this.child.stdout!.pipe(new PassThrough());
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => {
      if (this.stderr.length < 4000) this.stderr += d;
    });
    this.child.stdin!.on('error', () => {
      // ffmpeg stopped reading: its exit status tells why
    });
  }

  /** Queue PCM (resolves when ffmpeg took it). */
  async write(pcm: Buffer): Promise<void> {
    const stdin = this.child.stdin!;
    if (stdin.destroyed) return;
    if (!stdin.write(pcm)) await Promise.race([once(stdin, 'drain'), once(stdin, 'close')]);
  }

  /** No more PCM: the last packets follow. */
  end(): void {
    this.child.stdin!.end();
  }

  kill(): void {
    this.child.kill();
  }

  /** The Opus audio packets as ffmpeg produces them; throws at the end when ffmpeg failed. */
  async *packets(): AsyncGenerator<Buffer> {
    const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
      this.child.on('error', (error) => resolve({ code: null, error }));
      this.child.on('close', (code) => resolve({ code }));
    });
    const ogg = new OggPacketReader();
    let headers = 2; // OpusHead, OpusTags
    for await (const chunk of this.out) {
      for (const p of ogg.push(chunk as Buffer)) {
        if (headers > 0) {
          headers--;
          continue;
        }
        yield p;
      }
    }
    const r = await exited;
    if (r.error) throw new Error(`cannot run ffmpeg to encode Opus: ${r.error.message}`);
    if (r.code !== 0 && r.code !== null)
      throw new Error(
        `ffmpeg could not encode Opus: ${this.stderr.trim().split('\n').pop() ?? `exit status ${r.code}`}`,
      );
  }
}
