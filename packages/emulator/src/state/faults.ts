// Fault injection for tests: a 429 with Retry-After, a 5xx, a connection dropped mid-stream, a slow first byte.
export interface Fault {
  /** regular expression matched against the path (default: every path) */
  path?: string;
  method?: string;
  /** 'status' answers `status`; 'drop' cuts a stream after `afterEvents` events (or the socket at once);
   *  'slow' delays the first byte by `delayMs` */
  kind: 'status' | 'drop' | 'slow';
  status?: number;
  /** seconds (a number or its digits), or an HTTP date; sent as Retry-After */
  retryAfter?: string | number;
  message?: string;
  afterEvents?: number;
  delayMs?: number;
  /** how many requests it applies to (default 1) */
  times?: number;
}

/** A fault as GET /_emulator/faults lists it: `left`, the requests it still applies to. */
export type ArmedFault = Fault & { left: number };

const MAX_EVENTS = 1_000_000;

function checkNumber(name: string, v: unknown, max: number): void {
  if (v !== undefined && (!Number.isInteger(v) || (v as number) < 0 || (v as number) > max))
    throw new Error(`${name} must be an integer from 0 to ${max} (got ${JSON.stringify(v)})`);
}

function validRetryAfter(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= 86_400;
  if (typeof v !== 'string') return false;
  if (/^\d+$/.test(v)) return Number(v) <= 86_400;
  return /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(v) && !Number.isNaN(Date.parse(v));
}

/** The grammar of a fault spec, as every refusal states it. */
export const FAULT_GRAMMAR =
  'STATUS[:retry-after=S][:message=TEXT][:times=N][:path=RE][:method=M], drop[:after=N], or slow[:ms=N]';

export class FaultList {
  private faults: ArmedFault[] = [];

  /** Add a fault; throws (naming what is wrong) for one that could never apply or would break every request. */
  add(f: Fault): void {
    FaultList.check(f);
    const retryAfter = f.retryAfter === undefined ? {} : { retryAfter: String(f.retryAfter) };
    this.faults.push({ ...f, ...retryAfter, left: f.times ?? 1 });
  }

  static check(f: Fault): void {
    if (!f || typeof f !== 'object') throw new Error('a fault is an object {kind, …}');
    if (!['status', 'drop', 'slow'].includes(f.kind))
      throw new Error(`unknown fault kind ${JSON.stringify(f.kind)}: status, drop or slow`);
    if (f.kind === 'status' && (!Number.isInteger(f.status) || f.status! < 400 || f.status! > 599))
      throw new Error(`a status fault needs a status from 400 to 599 (got ${JSON.stringify(f.status)})`);
    if (f.times !== undefined && (!Number.isInteger(f.times) || f.times < 1))
      throw new Error(`times must be a positive integer (got ${JSON.stringify(f.times)})`);
    checkNumber('afterEvents', f.afterEvents, MAX_EVENTS);
    checkNumber('delayMs', f.delayMs, MAX_DELAY_MS);
    if (f.method !== undefined && (typeof f.method !== 'string' || !METHODS.includes(f.method.toUpperCase())))
      throw new Error(`method must be one of ${METHODS.join(', ')} (got ${JSON.stringify(f.method)})`);
    if (f.retryAfter !== undefined && !validRetryAfter(f.retryAfter))
      throw new Error(`retry-after must be seconds (0 to 86400) or an HTTP date (got ${JSON.stringify(f.retryAfter)})`);
    if (f.message !== undefined && (typeof f.message !== 'string' || f.message === ''))
      throw new Error('message must be a non-empty text');
    if (f.path !== undefined) {
      if (typeof f.path !== 'string') throw new Error('path must be a regular expression string');
      try {
        new RegExp(f.path);
      } catch (err) {
        throw new Error(`path is not a regular expression: ${(err as Error).message}`);
      }
    }
  }

  /** The faults still armed (for GET /_emulator/faults). */
  list(): ArmedFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }

  /** Take the first fault that applies to this request (consuming one use). */
  take(method: string, path: string): Fault | undefined {
    const i = this.faults.findIndex(
      (f) =>
        f.left > 0 && (!f.method || f.method.toUpperCase() === method) && (!f.path || new RegExp(f.path).test(path)),
    );
    if (i === -1) return undefined;
    const f = this.faults[i]!;
    f.left--;
    if (f.left <= 0) this.faults.splice(i, 1);
    return f;
  }

  /**
   * Parse `--fault` values of `svc emulator serve`: `429:retry-after=1:path=/v1/chat`, `500`, `drop:after=3`,
   * `slow:ms=500`. Throws an Error naming the part that is wrong: an unknown head or option, an option without
   * `=`, one given twice, or a value out of its range (`slow:ms=abc` is refused, never read as the default).
   */
  static parse(spec: string): Fault {
    const [head = '', ...rest] = spec.split(':');
    const opts = specOptions(head, rest);
    const common = {
      path: opts.path,
      method: opts.method === undefined ? undefined : opts.method.toUpperCase(),
      times: opts.times === undefined ? undefined : specInteger('times', opts.times, 1, 1_000_000),
    };
    let fault: Fault;
    if (head === 'drop')
      fault = { kind: 'drop', afterEvents: specInteger('after', opts.after ?? '0', 0, 1_000_000), ...common };
    else if (head === 'slow')
      fault = { kind: 'slow', delayMs: specInteger('ms', opts.ms ?? '1000', 0, MAX_DELAY_MS), ...common };
    else {
      const status = /^\d{3}$/.test(head) ? Number(head) : Number.NaN;
      if (!(status >= 400 && status <= 599))
        throw new Error(`${JSON.stringify(head)} is not a fault: a status from 400 to 599, drop or slow`);
      fault = { kind: 'status', status, retryAfter: opts['retry-after'], message: opts.message, ...common };
    }
    for (const k of Object.keys(fault) as (keyof Fault)[]) if (fault[k] === undefined) delete fault[k];
    FaultList.check(fault);
    return fault;
  }
}

/** The longest `slow` delay (ms): ten minutes, longer than any client's timeout worth testing. */
const MAX_DELAY_MS = 600_000;
const COMMON_OPTIONS = ['times', 'path', 'method'];
const KIND_OPTIONS: Record<string, string[]> = { drop: ['after'], slow: ['ms'] };
const STATUS_OPTIONS = ['retry-after', 'message'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'WS'];

function specOptions(head: string, parts: string[]): Record<string, string> {
  const allowed = [...(KIND_OPTIONS[head] ?? STATUS_OPTIONS), ...COMMON_OPTIONS];
  const opts: Record<string, string> = {};
  for (const part of parts) {
    const i = part.indexOf('=');
    const name = i === -1 ? part : part.slice(0, i);
    if (!allowed.includes(name))
      throw new Error(`${JSON.stringify(part)} is not an option of ${head || 'a fault'}: ${allowed.join(', ')}`);
    if (i === -1) throw new Error(`${name} needs a value (${name}=…)`);
    if (name in opts) throw new Error(`${name} is given twice`);
    opts[name] = part.slice(i + 1);
  }
  return opts;
}

function specInteger(name: string, raw: string, min: number, max: number): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) throw new Error(`${name}=${raw}: ${name} must be an integer from ${min} to ${max}`);
  return n;
}
