// What every route module shares: the state store, keys, settings, the request log, faults, the clock.
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DEFAULT_EMULATOR_KEY, aclAllowsModel, makeKey, type KeyRecord } from './auth.js';
import { FaultList } from './faults.js';
import { RateLimiter, rateLimitOf } from './rate-limit.js';

import { redactText } from '../core/redact.js';
import { HttpError } from '../core/errors.js';
import type { StateStore } from './state.js';
import type { LoggedRequest } from './request-log.js';

export interface EmulatorSettings {
  /** pause between streamed tokens (chat, responses, messages) */
  tokenDelayMs: number;
  /** how long a deferred chat completion stays pending */
  deferredDelayMs: number;
  /** added before every reply */
  latencyMs: number;
  /** how long a video job runs */
  videoDelayMs: number;
  [name: string]: number;
}

export const DEFAULT_SETTINGS: EmulatorSettings = {
  tokenDelayMs: 0,
  deferredDelayMs: 1500,
  latencyMs: 0,
  videoDelayMs: 1500,
};

/** The request log keeps the newest entries only, so a long-running emulator does not grow without bound. */
export const MAX_LOGGED_REQUESTS = 10_000;

export class Backend extends EventEmitter {
  readonly faults = new FaultList();
  readonly rateLimits = new RateLimiter();
  readonly requests: LoggedRequest[] = [];
  settings: EmulatorSettings;
  url = '';
  wsUrl = '';
  readonly defaultKey: string;
  /** `--strict`: a field the API document does not describe is refused (400), not only noted */
  strict = false;
  /** when set, /_emulator/* (but health) needs it */
  adminToken?: string;
  /** the names a request's Host may give (web-guard.ts) */
  hostNames = new Set(['localhost']);
  /** re-applies the fixtures (set by the server when it has some; reset calls it) */
  fixtures?: () => Promise<Record<string, number>>;
  private logSeq = 0;

  /** Add an entry to the request log (numbered; the oldest dropped beyond MAX_LOGGED_REQUESTS). */
  logRequest(entry: Omit<LoggedRequest, 'seq'>): LoggedRequest {
    const e = { seq: ++this.logSeq, ...entry };
    this.requests.push(e);
    if (this.requests.length > MAX_LOGGED_REQUESTS) this.requests.splice(0, this.requests.length - MAX_LOGGED_REQUESTS);
    return e;
  }

  /** `--seed N`: ids, tokens and generated content are drawn from streams seeded by N (deterministic runs) */
  readonly seed?: number;
  private requestCount = 0;

  constructor(
    readonly store: StateStore,
    settings: Partial<EmulatorSettings> = {},
    defaultKey = DEFAULT_EMULATOR_KEY,
    seed?: number,
  ) {
    super();
    this.seed = seed;
    this.settings = { ...DEFAULT_SETTINGS, ...stripUndefined(settings) } as EmulatorSettings;
    this.defaultKey = defaultKey;
    const keys = this.keys();
    if (!keys.has(defaultKey)) {
      keys.set(defaultKey, makeKey({ key: defaultKey, name: 'default emulator key' }));
      store.save();
    }
  }

  keys() {
    return this.store.collection<KeyRecord>('keys');
  }

  /** Add a key; 400 for a malformed `rate_limit` ("RPM[,TPM]" or {rpm, tpm}). */

  /** A body's text for the request log: every key the emulator knows and every known secret shape redacted. */
  redact(text: string): string {
    return redactText(text, this.keys().keys());
  }

  addKey(partial: Partial<KeyRecord> = {}): KeyRecord {
    let rateLimit: KeyRecord['rate_limit'];
    try {
      rateLimit = partial.rate_limit === undefined ? undefined : rateLimitOf(partial.rate_limit);
    } catch (err) {
      throw new HttpError(400, `Invalid value for \`rate_limit\`: ${(err as Error).message}`);
    }
    const key = partial.key ?? `svc-emu-${this.random(18, 'api-key').toString('hex')}`;
    const rec = makeKey({ ...partial, key, rate_limit: rateLimit });
    this.keys().set(rec.key, rec);
    this.store.save();
    return rec;
  }

  /** Public address for unauthenticated links (public files). */
  get publicUrl(): string {
    return `${this.url}/public`;
  }

  now(): number {
    return Date.now();
  }

  nowSec(): number {
    return Math.floor(Date.now() / 1000);
  }

  /**
   * `n` random bytes. Under --seed each purpose has its own numbered stream (sha256 of seed, purpose, counter), so an
   * id of one kind does not depend on how many of another kind were made before it.
   */
  random(n: number, purpose = 'bytes'): Buffer {
    if (this.seed === undefined) return randomBytes(n);
    // the position is part of the state (a fresh state repeats a run, a kept one continues it without collisions);
    // request ids name no stored thing, so their stream is not saved (reads do not write the state)
    const i = purpose === 'request' ? this.requestCount++ : this.store.next(`seed:${purpose}`) - 1;
    const out: Buffer[] = [];
    for (let block = 0; out.length * 32 < n; block++)
      out.push(createHash('sha256').update(`${this.seed}\u0000${purpose}\u0000${i}\u0000${block}`).digest());
    return Buffer.concat(out).subarray(0, n);
  }

  /** a version-4 UUID (seeded under --seed) */
  uuid(purpose = 'uuid'): string {
    const b = this.random(16, purpose);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** `prefix_` + 24 random hex characters (one seeded stream per prefix) */
  id(prefix: string): string {
    return `${prefix}_${this.random(12, `id:${prefix}`).toString('hex')}`;
  }

  /** The seed for generated text: the request's own `seed`, mixed with --seed when the emulator has one. */
  textSeed(requestSeed?: number | string): number | string | undefined {
    return this.seed === undefined ? requestSeed : `${this.seed}/${requestSeed ?? 0}`;
  }

  /** 403 when the key's ACLs do not cover the model. */
  checkModelAcl(req: { key?: KeyRecord }, model: string): void {
    if (req.key && !aclAllowsModel(req.key, model))
      throw new HttpError(403, `The API key does not have access to model ${model}`);
  }

  sleep(ms: number): Promise<void> {
    return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
