// The emulator's state: JSON collections persisted in the state dir (atomic write after each change), so
// that consecutive `svc --emulator …` invocations see the same data. Large blobs go to files beside it.
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export type Collection<T> = Map<string, T>;

export class StateStore {
  private collections = new Map<string, Map<string, unknown>>();
  private counters: Record<string, number> = {};
  private dirty = false;
  private timer?: NodeJS.Timeout;

  constructor(readonly dir: string | undefined) {
    if (dir) {
      mkdirSync(dir, { recursive: true });
      this.load();
    }
  }

  private get file(): string | undefined {
    return this.dir ? join(this.dir, 'state.json') : undefined;
  }

  private load(): void {
    const file = this.file!;
    if (!existsSync(file)) return;
    try {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as { collections: Record<string, Record<string, unknown>>; counters?: Record<string, number> };
      for (const [name, entries] of Object.entries(raw.collections ?? {})) this.collections.set(name, new Map(Object.entries(entries)));
      this.counters = raw.counters ?? {};
    } catch {
      // a corrupt state file starts the emulator afresh rather than refusing to start
    }
  }

  /** A named collection (created on first use). Call `save()` after changing it. */
  collection<T>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      c = new Map();
      this.collections.set(name, c);
    }
    return c as Collection<T>;
  }

  /** A monotonically increasing number per name (ids, sequence numbers). */
  next(name: string): number {
    this.counters[name] = (this.counters[name] ?? 0) + 1;
    this.save();
    return this.counters[name]!;
  }

  /**
   * Mark the state changed. Writes are coalesced (at most one per 20 ms) so a burst of changes costs one write;
   * close() and process exit flush what is pending synchronously.
   */
  save(): void {
    if (!this.file) return;
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), 20);
    this.timer.unref();
    if (!this.exitHook) {
      this.exitHook = () => this.flush();
      process.once('exit', this.exitHook);
    }
  }

  private exitHook?: () => void;

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.file || !this.dirty) return;
    this.dirty = false;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [name, c] of this.collections) out[name] = Object.fromEntries(c);
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ collections: out, counters: this.counters }));
    renameSync(tmp, this.file);
  }

  /** A folder for blobs of one kind (file contents, generated media). */
  blobDir(kind: string): string {
    const base = this.dir ?? join(process.env.TMPDIR ?? '/tmp', `svc-emulator-${process.pid}`);
    const d = join(base, 'blobs', kind);
    mkdirSync(d, { recursive: true });
    return d;
  }

  /** Remove everything (tests). */
  reset(): void {
    this.collections.clear();
    this.counters = {};
    if (this.dir) rmSync(join(this.dir, 'blobs'), { recursive: true, force: true });
    this.save();
  }

  close(): void {
    this.flush();
    if (this.exitHook) process.removeListener('exit', this.exitHook);
    this.exitHook = undefined;
  }
}
