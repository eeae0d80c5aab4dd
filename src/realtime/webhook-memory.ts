// The deliveries `svc calls listen` has acknowledged, remembered on disk for the signature tolerance window (issue 25):
// a delivery sent again after a restart — the sender retrying one acknowledged just before svc stopped, or a captured
// request replayed while its signature is still fresh — is acknowledged and not printed as a new call. Older
// deliveries need no memory: their signature is refused. One file per signing secret, named by a hash of it (never
// the secret), under <data>/webhooks/; one JSON line per delivery ({"id","ts"}), appended with one write each, so
// that listeners sharing a secret share the memory; lines past the window are dropped when a listener starts.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileWriteError } from '../core/errors.js';
import { makeDirs } from 'svc-formats/make-dirs';

interface Delivery {
  id: string;
  /** the webhook-timestamp it was signed with (seconds) */
  ts: number;
}

export class DeliveryMemory {
  private readonly seen = new Map<string, number>();
  /** the file's size when it was last read: another listener's deliveries are read when it grew */
  private readSize = 0;

  private constructor(
    readonly file: string,
    private readonly toleranceSec: number,
    private readonly now: () => number,
  ) {}

  /** The memory of the deliveries signed with `secret`, in `dir`; what is past the window is dropped now. */
  static open(dir: string, secret: string, toleranceSec: number, now = () => Date.now() / 1000): DeliveryMemory {
    const name = createHash('sha256').update(secret).digest('hex').slice(0, 32);
    const memory = new DeliveryMemory(join(dir, `${name}.jsonl`), toleranceSec, now);
    const read = memory.read();
    if (read.stale > 0) memory.compact();
    return memory;
  }

  /** Whether the delivery `id` was acknowledged before (by this listener, an earlier one, or another one). */
  has(id: string): boolean {
    if (this.seen.has(id)) return true;
    this.read();
    return this.seen.has(id);
  }

  /**
   * Remember an acknowledged delivery, on disk before it is acknowledged. A file that cannot be written throws a
   * FileWriteError (the delivery is still remembered for this run).
   */
  remember(id: string, ts: number): void {
    this.seen.set(id, ts);
    const line = `${JSON.stringify({ id, ts } satisfies Delivery)}\n`;
    try {
      makeDirs(join(this.file, '..'), 0o700);
      appendFileSync(this.file, line, { mode: 0o600 });
      this.readSize += Buffer.byteLength(line);
    } catch (err) {
      throw new FileWriteError(this.file, (err as NodeJS.ErrnoException).code, err);
    }
  }

  private live(ts: number): boolean {
    return Math.abs(this.now() - ts) <= this.toleranceSec;
  }

  /** Read the file when it changed since the last read; returns how many of its lines are past the window. */
  private read(): { stale: number } {
    let text: string;
    try {
      if (statSync(this.file).size === this.readSize) return { stale: 0 };
      text = readFileSync(this.file, 'utf8');
    } catch {
      return { stale: 0 }; // no memory yet
    }
    this.readSize = Buffer.byteLength(text);
    let stale = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let d: Partial<Delivery>;
      try {
        d = JSON.parse(line) as Partial<Delivery>;
      } catch {
        stale++; // a line torn by a crash
        continue;
      }
      if (typeof d.id !== 'string' || typeof d.ts !== 'number' || !this.live(d.ts)) stale++;
      else this.seen.set(d.id, d.ts);
    }
    return { stale };
  }

  /** Rewrite the file with the deliveries still inside the window (a temp file renamed over it). */
  private compact(): void {
    const lines = [...this.seen]
      .filter(([, ts]) => this.live(ts))
      .map(([id, ts]) => `${JSON.stringify({ id, ts })}\n`)
      .join('');
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, lines, { mode: 0o600 });
      renameSync(tmp, this.file);
      this.readSize = Buffer.byteLength(lines);
    } catch {
      rmSync(tmp, { force: true });
      // the old lines stay: they are skipped when read
    }
  }
}
