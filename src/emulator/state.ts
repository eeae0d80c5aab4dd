// The emulator's state: JSON collections persisted in the state dir, so that consecutive `svc --emulator …`
// invocations see the same data. Large blobs go to files beside it. Durability: the server commits (flush) before
// it writes any reply's status line, so a change it acknowledged survives kill -9; the file is written whole to a
// temp file and renamed over the old one, so a crash leaves the old or the new state, never a torn one. (No fsync:
// the emulator guards against its process dying, not the machine; fsync per request made 1,000 writes take a minute.)
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

  /** Write pending changes now (write a temp file, rename it over the state). A no-op when nothing changed. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.file || !this.dirty) return;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [name, c] of this.collections) out[name] = Object.fromEntries(c);
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ collections: out, counters: this.counters }));
    renameSync(tmp, this.file);
    this.dirty = false;
  }

  /**
   * Remove blobs no record refers to (a crash between storing a blob and committing its record, or temp files
   * of uploads cut short). `owners`: blob kind → the blob names the state refers to.
   */
  sweepOrphans(owners: Record<string, Set<string>>): { removed: number; bytes: number } {
    let removed = 0;
    let bytes = 0;
    if (!this.dir) return { removed, bytes };
    for (const [kind, keep] of Object.entries(owners)) {
      const d = join(this.dir, 'blobs', kind);
      if (!existsSync(d)) continue;
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (!e.isFile() || keep.has(e.name)) continue;
        const p = join(d, e.name);
        try {
          bytes += statSync(p).size;
          rmSync(p, { force: true });
          removed++;
        } catch {
          // a blob that cannot be removed is left for the next start
        }
      }
    }
    for (const e of readdirSync(this.dir)) if (e.endsWith('.tmp')) rmSync(join(this.dir, e), { force: true });
    return { removed, bytes };
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

