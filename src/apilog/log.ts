// The local log of API calls (docs/logs.md): JSON Lines, one file per UTC day under <data>/logs, each record
// appended with one write on an O_APPEND descriptor, so that any number of svc processes can log at once without
// a lock (Linux keeps one write to a local file whole). Prompt and answer are capped so a record stays small.
// Files older than the retention (default 30 days) and the oldest past 200 MB are deleted when a day file is created.
import { appendFileSync, closeSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../core/paths.js';
import { writeJsonFile } from '../core/json-file.js';
import { FileWriteError } from '../core/errors.js';
import { makeDirs } from 'svc-formats/make-dirs';
import { isoTime } from '../core/iso-time.js';

/** Characters of prompt and of answer kept per record (the rest is dropped and `truncated` set). */
export const TEXT_CAP = 8192;
export const DEFAULT_RETENTION_DAYS = 30;
export const SIZE_CAP_BYTES = 200 * 1024 * 1024;
const PRICE_CACHE_MS = 24 * 3600 * 1000;
const PRICES_VERSION = 2;

export interface CallUsage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens?: number;
  total_tokens: number;
}

export interface CallRecord {
  id: string;
  time: string;
  command: string;
  method: string;
  path: string;
  status: number | null;
  duration_ms: number;
  request_id?: string;
  model?: string;
  usage?: CallUsage;
  /** US dollars: the API's own figure when it sent one, else from the catalogue's prices; absent when unknown */
  cost_usd?: number;
  /** image generation and edits: the images made (priced at the catalogue's image_price) */
  images?: number;
  /** video jobs: the seconds generated (priced at the catalogue's generated_video_second_price) */
  video_seconds?: number;
  /** WebSocket sessions: the code of the close frame that ended it (1006: the connection was cut) */
  close_code?: number;
  prompt?: string;
  answer?: string;
  /** realtime sessions: the conversation in order (the prompt and answer hold the user's and the assistant's) */
  turns?: CallTurn[];
  truncated?: boolean;
  error?: string;
  /** answered by the emulator (--emulator): shown, never counted toward budget.daily */
  emulated?: boolean;
  /** the id of the `svc batch` run the call was a row of */
  batch?: string;
}

export interface CallTurn {
  role: 'user' | 'assistant' | 'tool';
  text: string;
}

/** What a text command adds to the record of its last call. */
export interface CallDetails {
  model?: string;
  usage?: unknown;
  prompt?: string;
  answer?: string;
}

export const logDir = (env: NodeJS.ProcessEnv): string => join(dataDir(env), 'logs');
const dayOf = (iso: string) => iso.slice(0, 10);
export const dayFile = (dir: string, day: string): string => join(dir, `calls-${day}.jsonl`);

/** `20261122-213614-k3x9q`: time first (sorts, names its day file), then random. */
export function newCallId(now: Date): string {
  const iso = isoTime(now.getTime());
  const random = Math.random().toString(36).slice(2, 10).padEnd(8, '0');
  // YYYYMMDD-HHMMSS from the ISO time by position (no expression to compile in every run)
  const [date, time] = [iso.slice(0, 10).split('-').join(''), iso.slice(11, 19).split(':').join('')];
  return `${date}-${time}-${random}`;
}

/** The day (YYYY-MM-DD) an id was logged on. */
export function dayOfId(id: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})-\d{6}-[a-z0-9]+$/.exec(id);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** Token counts of any convention (chat: prompt/completion; responses and messages: input/output). */
export function normalizeUsage(u: unknown): CallUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, any>;
  const input = num(o.prompt_tokens) ?? num(o.input_tokens);
  const output = num(o.completion_tokens) ?? num(o.output_tokens) ?? 0;
  if (input === undefined) return undefined;
  const reasoning =
    num(o.reasoning_tokens) ??
    num(o.completion_tokens_details?.reasoning_tokens) ??
    num(o.output_tokens_details?.reasoning_tokens);
  const total = num(o.total_tokens) ?? input + output;
  return {
    input_tokens: input,
    output_tokens: output,
    ...(reasoning ? { reasoning_tokens: reasoning } : {}),
    total_tokens: total,
  };
}

/** The API's cost (1e10 ticks = 1 USD), when it sent one. */
export function reportedCost(u: unknown): number | undefined {
  const ticks = num((u as Record<string, unknown> | undefined)?.cost_in_usd_ticks);
  return ticks === undefined ? undefined : ticks / 1e10;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const cap = (s: string | undefined, rec: CallRecord): string | undefined => {
  if (s === undefined || s.length <= TEXT_CAP) return s;
  rec.truncated = true;
  return s.slice(0, TEXT_CAP);
};

export function capTexts(rec: CallRecord): CallRecord {
  rec.prompt = cap(rec.prompt, rec);
  rec.answer = cap(rec.answer, rec);
  return rec;
}

/**
 * One line: the metadata first, prompt and answer last, so that a query of the figures alone parses only what comes
 * before `,"prompt":` (inside a JSON string every `"` is escaped, so that text cannot occur there unless structural).
 */
function serialize(rec: CallRecord): string {
  const { prompt, answer, turns, truncated, ...meta } = rec;
  return JSON.stringify({ ...meta, prompt, answer, turns, truncated });
}

/** Where the texts start in a line: the first of these present. */
const TEXTS_STARTS = [',"prompt":"', ',"answer":"', ',"turns":['];

/** Append records: one write per record, on a file opened with O_APPEND. */
export function appendRecords(dir: string, records: CallRecord[], retentionDays = DEFAULT_RETENTION_DAYS): void {
  if (!records.length) return;
  makeDirs(dir, 0o700);
  for (const rec of records) {
    const file = dayFile(dir, dayOf(rec.time));
    const fresh = !statSync(file, { throwIfNoEntry: false });
    try {
      appendFileSync(file, `${serialize(capTexts(rec))}\n`, { mode: 0o600 });
    } catch (err) {
      throw new FileWriteError(file, (err as NodeJS.ErrnoException).code, err);
    }
    if (fresh) prune(dir, retentionDays, new Date(rec.time));
  }
}

/** Day files of the log, oldest first. */
export function dayFiles(dir: string): { day: string; file: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => /^calls-(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(n))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ day: m[1]!, file: join(dir, m[0]) }))
    .sort((a, b) => a.day.localeCompare(b.day));
}

/** Delete day files older than the retention, then the oldest while the log is over SIZE_CAP_BYTES. */
export function prune(dir: string, retentionDays: number, now: Date): void {
  const oldest = isoTime(now.getTime() - retentionDays * 86400_000).slice(0, 10);
  const files = dayFiles(dir);
  const kept: { file: string; size: number }[] = [];
  for (const f of files) {
    if (f.day < oldest) rmSync(f.file, { force: true });
    else kept.push({ file: f.file, size: statSync(f.file, { throwIfNoEntry: false })?.size ?? 0 });
  }
  let total = kept.reduce((s, f) => s + f.size, 0);
  while (total > SIZE_CAP_BYTES && kept.length > 1) {
    const f = kept.shift()!;
    rmSync(f.file, { force: true });
    total -= f.size;
  }
}

export interface LogQuery {
  /** earliest time (ms since epoch) */
  since?: number;
  model?: string;
  command?: string;
  grep?: string;
  /** false: prompt and answer are not needed (they are skipped, not parsed) */
  texts?: boolean;
}

/** Records matching the query, oldest first. A torn or foreign line is skipped. */
export function readRecords(dir: string, q: LogQuery = {}): CallRecord[] {
  const sinceDay = q.since === undefined ? '' : new Date(q.since).toISOString().slice(0, 10);
  const sinceIso = q.since === undefined ? '' : new Date(q.since).toISOString();
  const needle = q.grep?.toLowerCase();
  const out: CallRecord[] = [];
  for (const f of dayFiles(dir)) {
    if (f.day < sinceDay) continue;
    let text: string;
    try {
      text = readFileSync(f.file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line || line.charCodeAt(0) === 0x20) continue; // empty, or a removed record's spaces
      // cheap text filters before parsing
      if (needle && !line.toLowerCase().includes(needle)) continue;
      if (q.model && !line.includes(q.model)) continue;
      let rec: CallRecord;
      let json = line;
      if (q.texts === false) {
        for (const start of TEXTS_STARTS) {
          const cut = line.indexOf(start);
          if (cut > 0) {
            json = `${line.slice(0, cut)}}`;
            break;
          }
        }
      }
      try {
        rec = JSON.parse(json) as CallRecord;
      } catch {
        continue;
      }
      if (typeof rec?.id !== 'string' || typeof rec.time !== 'string') continue;
      if (sinceIso && rec.time < sinceIso) continue;
      if (q.model && rec.model !== q.model) continue;
      if (q.command && rec.command !== q.command && !rec.command.startsWith(`${q.command} `)) continue;
      out.push(rec);
    }
  }
  return out;
}

export function findRecord(dir: string, id: string): CallRecord | undefined {
  const day = dayOfId(id);
  if (!day) return undefined;
  return readRecords(dir, { since: Date.parse(`${day}T00:00:00Z`) }).find((r) => r.id === id);
}

/**
 * Remove records by id: each one's line is overwritten in place with as many spaces (a line readers skip), by
 * positional writes into the day file. The file is never rewritten or renamed, so records other processes append
 * meanwhile (O_APPEND, at the end) are never lost, and the removed text is gone from the disk, not only hidden.
 */
export function removeRecords(dir: string, ids: Set<string>): number {
  let removed = 0;
  const days = new Set([...ids].map(dayOfId).filter((d): d is string => !!d));
  for (const day of days) {
    let fd: number;
    try {
      fd = openSync(dayFile(dir, day), 'r+');
    } catch (err) {
      // no file for that day: nothing of it to remove; any other failure (a read-only folder) is the command's error
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    try {
      const bytes = readFileSync(fd);
      for (let start = 0; start < bytes.length; ) {
        let end = bytes.indexOf(0x0a, start);
        if (end < 0) end = bytes.length; // a record still being appended ends later: not ours to touch
        const m = /^\{"id":"([^"]+)"/.exec(bytes.toString('latin1', start, Math.min(end, start + 80)));
        if (m && ids.has(m[1]!) && end < bytes.length) {
          writeSync(fd, Buffer.alloc(end - start, 0x20), 0, end - start, start);
          removed++;
        }
        start = end + 1;
      }
    } finally {
      closeSync(fd);
    }
  }
  return removed;
}

/** Delete whole day files (all, or those before a day). */
export function removeDays(dir: string, beforeDay?: string): number {
  let n = 0;
  for (const f of dayFiles(dir)) {
    if (beforeDay && f.day >= beforeDay) continue;
    rmSync(f.file, { force: true });
    n++;
  }
  return n;
}

/**
 * Prices in USD by model id and alias: per token (the catalogue's cents per 100 million tokens / 1e10), per image
 * (image_price, cents per image / 100) and per second of video (generated_video_second_price, cents / 100).
 */
export interface Prices {
  /** 2: images and video priced too (a cache without it is fetched again) */
  version?: number;
  fetched_at: number;
  models: Record<string, ModelPrice>;
}

export interface ModelPrice {
  input: number;
  output: number;
  image?: number;
  video_second?: number;
}

function modelPrice(m: Record<string, any>): ModelPrice | undefined {
  const input = num(m.prompt_text_token_price);
  const image = num(m.image_price);
  const second = num(m.generated_video_second_price);
  if (input === undefined && image === undefined && second === undefined) return undefined;
  return {
    input: (input ?? 0) / 1e10,
    output: (num(m.completion_text_token_price) ?? 0) / 1e10,
    ...(image !== undefined ? { image: image / 100 } : {}),
    ...(second !== undefined ? { video_second: second / 100 } : {}),
  };
}

export function pricesFromCatalogue(body: unknown, now: number): Prices {
  const models: Prices['models'] = {};
  const list = (body as { models?: unknown[]; data?: unknown[] })?.models ?? (body as { data?: unknown[] })?.data ?? [];
  for (const m of list as Record<string, any>[]) {
    const price = typeof m?.id === 'string' ? modelPrice(m) : undefined;
    if (!price) continue;
    models[m.id] = price;
    for (const a of Array.isArray(m.aliases) ? m.aliases : []) if (typeof a === 'string') models[a] = price;
  }
  return { version: PRICES_VERSION, fetched_at: now, models };
}

const priceFile = (env: NodeJS.ProcessEnv) => join(dataDir(env), 'cache', 'prices.json');

/** The cached prices, when younger than a day. */
export function cachedPrices(env: NodeJS.ProcessEnv, now: number): Prices | undefined {
  try {
    const p = JSON.parse(readFileSync(priceFile(env), 'utf8')) as Prices;
    return now - p.fetched_at < PRICE_CACHE_MS && p.models && p.version === PRICES_VERSION ? p : undefined;
  } catch {
    return undefined;
  }
}

export function savePrices(env: NodeJS.ProcessEnv, prices: Prices): void {
  writeJsonFile(priceFile(env), prices);
}

/** A record is billed when it used tokens, made images or generated video. */
export const isBilled = (r: Pick<CallRecord, 'usage' | 'images' | 'video_seconds'>): boolean =>
  !!r.usage || r.images !== undefined || r.video_seconds !== undefined;

/**
 * Cost from the prices: tokens (reasoning tokens at the output price, when counted apart from the output), images
 * and seconds of video; undefined when something billed has no price.
 */
export function priceCost(
  prices: Prices | undefined,
  model: string | undefined,
  r: Pick<CallRecord, 'usage' | 'images' | 'video_seconds'>,
): number | undefined {
  const p = model ? prices?.models[model] : undefined;
  if (!p || !isBilled(r)) return undefined;
  let cost = 0;
  const u = r.usage;
  if (u) {
    const inside = u.input_tokens + u.output_tokens === u.total_tokens;
    cost += u.input_tokens * p.input + (u.output_tokens + (inside ? 0 : (u.reasoning_tokens ?? 0))) * p.output;
  }
  if (r.images !== undefined) {
    if (p.image === undefined) return undefined;
    cost += r.images * p.image;
  }
  if (r.video_seconds !== undefined) {
    if (p.video_second === undefined) return undefined;
    cost += r.video_seconds * p.video_second;
  }
  return cost;
}

/** Dollars spent today (UTC) according to the log; emulated calls cost nothing. */
export function spentToday(dir: string, now: Date): number {
  const day = isoTime(now.getTime()).slice(0, 10);
  return readRecords(dir, { since: Date.parse(`${day}T00:00:00Z`), texts: false }).reduce(
    (s, r) => s + (r.emulated ? 0 : (r.cost_usd ?? 0)),
    0,
  );
}
