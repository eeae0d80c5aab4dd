// What every route module shares: the state store, keys, settings, the request log, faults, the clock.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DEFAULT_EMULATOR_KEY, aclAllowsModel, makeKey, type KeyRecord } from './auth.js';
import { FaultList } from './faults.js';
import { HttpError, type EmuRequest } from './router.js';
import type { StateStore } from './state.js';

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

export const DEFAULT_SETTINGS: EmulatorSettings = { tokenDelayMs: 0, deferredDelayMs: 1500, latencyMs: 0, videoDelayMs: 1500 };

export interface LoggedRequest {
  id: string;
  time: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  /** the body as text when it was read and is small enough (JSON bodies) */
  body?: string;
}

export class EmulatorCore extends EventEmitter {
  readonly faults = new FaultList();
  readonly requests: LoggedRequest[] = [];
  settings: EmulatorSettings;
  url = '';
  wsUrl = '';
  readonly defaultKey: string;

  constructor(readonly store: StateStore, settings: Partial<EmulatorSettings> = {}, defaultKey = DEFAULT_EMULATOR_KEY) {
    super();
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

  addKey(partial: Partial<KeyRecord> = {}): KeyRecord {
    const rec = makeKey(partial);
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

  uuid(): string {
    return randomUUID();
  }

  /** `prefix_` + 24 random hex characters */
  id(prefix: string): string {
    return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  }

  /** 403 when the key's ACLs do not cover the model. */
  checkModelAcl(req: EmuRequest, model: string): void {
    if (req.key && !aclAllowsModel(req.key, model)) throw new HttpError(403, `The API key does not have access to model ${model}`);
  }

  sleep(ms: number): Promise<void> {
    return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
