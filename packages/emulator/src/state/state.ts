// The emulator's state: JSON collections persisted in the state dir, so that consecutive `svc --emulator …`
// invocations see the same data. Large blobs go to files beside it.
// Durability: the server commits (flush) before it writes any reply's status line, so a change it acknowledged
// survives kill -9. A commit appends the records that changed to a journal (one JSON line each, one write); the
// snapshot (state.json, written to a temp file and renamed into place) is rewritten at start, at close, after a
// reset and when the journal passes 8 MiB. Loading replays the journal over the snapshot (a torn last line from a
// crash is ignored). Which records changed: those set, deleted or read (`get`) since the last commit, and every
// record of a collection iterated since then (a record found by a scan may have been changed in place), compared
// with what was last written. No fsync: the emulator guards against its process dying, not the machine.
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirs } from 'svc-formats/make-dirs';

export type Collection<T> = Map<string, T>;

const MAX_JOURNAL_BYTES = 8 * 1024 * 1024;
/** the mode of every file the emulator writes: its owner's alone */
export const PRIVATE_FILE = 0o600;

/** A Map that reports which keys were touched (set, deleted, read) and whether it was iterated. */
class TrackedMap<V> extends Map<string, V> {
  touched = new Set<string>();
  iterated = false;

  override get(key: string): V | undefined {
    const v = super.get(key);
    if (v !== undefined) this.touched.add(key);
    return v;
  }
  override set(key: string, value: V): this {
    super.set(key, value);
    // Map's constructor calls set before the fields exist
    this.touched?.add(key);
    return this;
  }
  override delete(key: string): boolean {
    this.touched.add(key);
    return super.delete(key);
  }
  override clear(): void {
    for (const k of super.keys()) this.touched.add(k);
    super.clear();
  }
  override values(): MapIterator<V> {
    this.iterated = true;
    return super.values();
  }
  override entries(): MapIterator<[string, V]> {
    this.iterated = true;
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[string, V]> {
    this.iterated = true;
    return super[Symbol.iterator]();
  }
  override forEach(fn: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    this.iterated = true;
    super.forEach(fn, thisArg);
  }
}

type JournalLine = { c: string; k: string; v?: unknown; d?: true } | { n: Record<string, number> };

export class StateStore {
  private collections = new Map<string, TrackedMap<unknown>>();
  private counters: Record<string, number> = {};
  /** what the disk holds: collection → key → JSON of the record */
  private written = new Map<string, Map<string, string>>();
  private writtenCounters = '{}';
  private journalBytes = 0;
  private dirty = false;
  private timer?: NodeJS.Timeout;

  constructor(readonly dir: string | undefined) {
    if (dir) {
      // folders it creates are its owner's alone (0700), and so are its files (0600)
      makeDirs(dir, 0o700);
      this.load();
      this.snapshot();
    }
  }

  private get file(): string | undefined {
    return this.dir ? join(this.dir, 'state.json') : undefined;
  }

  private get journal(): string {
    return join(this.dir!, 'state.journal');
  }

  private load(): void {
    const file = this.file!;
    if (existsSync(file)) {
      try {
        const raw = JSON.parse(readFileSync(file, 'utf8')) as {
          collections: Record<string, Record<string, unknown>>;
          counters?: Record<string, number>;
        };
        for (const [name, entries] of Object.entries(raw.collections ?? {})) {
          const c = this.collection<unknown>(name);
          for (const [k, v] of Object.entries(entries)) c.set(k, v);
        }
        this.counters = raw.counters ?? {};
      } catch {
        // a corrupt state file starts the emulator afresh rather than refusing to start
      }
    }
    if (!existsSync(this.journal)) return;
    for (const line of readFileSync(this.journal, 'utf8').split('\n')) {
      if (!line) continue;
      let entry: JournalLine;
      try {
        entry = JSON.parse(line) as JournalLine;
      } catch {
        break; // the torn tail of a write cut by a crash: it was never acknowledged
      }
      if ('n' in entry) this.counters = entry.n;
      else if (entry.d) this.collection(entry.c).delete(entry.k);
      else this.collection(entry.c).set(entry.k, entry.v);
    }
  }

  /** A named collection (created on first use). Call `save()` after changing it. */
  collection<T>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      c = new TrackedMap<unknown>();
      this.collections.set(name, c);
    }
    return c as unknown as Collection<T>;
  }

  /** A monotonically increasing number per name (ids, sequence numbers). */
  next(name: string): number {
    this.counters[name] = (this.counters[name] ?? 0) + 1;
    this.save();
    return this.counters[name]!;
  }

  /**
   * Mark the state changed. Without a reply to commit before, changes are written within 20 ms (a burst costs one
   * write); close() and process exit flush what is pending synchronously.
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

  /** Commit pending changes now: the changed records go to the journal in one append. A no-op when nothing changed. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.file) {
      // in memory: nothing to write, only the change tracking to forget
      for (const c of this.collections.values()) c.touched.clear();
      return;
    }
    if (!this.dirty) return;
    const lines: string[] = [];
    for (const [name, c] of this.collections) {
      const written = this.writtenOf(name);
      const keys = c.iterated ? new Set([...Map.prototype.keys.call(c), ...written.keys()]) : c.touched;
      for (const k of keys) {
        const v = Map.prototype.get.call(c, k);
        if (v === undefined) {
          if (written.delete(k)) lines.push(JSON.stringify({ c: name, k, d: true }));
          continue;
        }
        const json = JSON.stringify(v);
        if (written.get(k) === json) continue;
        written.set(k, json);
        lines.push(`{"c":${JSON.stringify(name)},"k":${JSON.stringify(k)},"v":${json}}`);
      }
      c.touched.clear();
      c.iterated = false;
    }
    const counters = JSON.stringify(this.counters);
    if (counters !== this.writtenCounters) {
      this.writtenCounters = counters;
      lines.push(`{"n":${counters}}`);
    }
    this.dirty = false;
    if (!lines.length) return;
    const text = `${lines.join('\n')}\n`;
    appendFileSync(this.journal, text, { mode: PRIVATE_FILE });
    this.journalBytes += Buffer.byteLength(text);
    if (this.journalBytes > MAX_JOURNAL_BYTES) this.snapshot();
  }

  private writtenOf(name: string): Map<string, string> {
    let w = this.written.get(name);
    if (!w) {
      w = new Map();
      this.written.set(name, w);
    }
    return w;
  }

  /** Write the whole state (temp file, rename), then empty the journal it includes. */
  private snapshot(): void {
    if (!this.file) return;
    const out: Record<string, Record<string, unknown>> = {};
    this.written.clear();
    for (const [name, c] of this.collections) {
      const w = this.writtenOf(name);
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Map.prototype.entries.call(c) as MapIterator<[string, unknown]>) {
        entries[k] = v;
        w.set(k, JSON.stringify(v));
      }
      out[name] = entries;
      c.touched.clear();
      c.iterated = false;
    }
    this.writtenCounters = JSON.stringify(this.counters);
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ collections: out, counters: this.counters }), { mode: PRIVATE_FILE });
    renameSync(tmp, this.file);
    // replaying the old journal over the new snapshot would give the same state, so a crash here is harmless
    writeFileSync(this.journal, '', { mode: PRIVATE_FILE });
    this.journalBytes = 0;
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
    const d = join(this.dir ?? this.spillDir(), 'blobs', kind);
    makeDirs(d, 0o700);
    return d;
  }

  private spill?: { dir: string; remove: () => void };

  /**
   * In memory, blobs spill to a private folder: made by mkdtemp (0700, a name nobody could plant a folder or a link
   * at), removed at close and at exit.
   */
  private spillDir(): string {
    if (!this.spill) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-emulator-'));
      const remove = () => rmSync(dir, { recursive: true, force: true });
      process.once('exit', remove);
      this.spill = { dir, remove };
    }
    return this.spill.dir;
  }

  /** Remove everything (tests, `svc emulator reset`): a fresh snapshot at once. */
  reset(): void {
    this.collections.clear();
    this.counters = {};
    const base = this.dir ?? this.spill?.dir;
    if (base) rmSync(join(base, 'blobs'), { recursive: true, force: true });
    this.snapshot();
  }

  close(): void {
    this.flush();
    if (this.journalBytes > 0) this.snapshot();
    if (this.exitHook) process.removeListener('exit', this.exitHook);
    this.exitHook = undefined;
    if (this.spill) {
      this.spill.remove();
      process.removeListener('exit', this.spill.remove);
      this.spill = undefined;
    }
  }
}
