// Fault injection for tests: a 429 with Retry-After, a 5xx, a connection dropped mid-stream, a slow first byte.
export interface Fault {
  /** regular expression matched against the path (default: every path) */
  path?: string;
  method?: string;
  /** 'status' answers `status`; 'drop' cuts a stream after `afterEvents` events (or the socket at once);
   *  'slow' delays the first byte by `delayMs` */
  kind: 'status' | 'drop' | 'slow';
  status?: number;
  /** seconds, or an HTTP date; sent as Retry-After */
  retryAfter?: string;
  message?: string;
  afterEvents?: number;
  delayMs?: number;
  /** how many requests it applies to (default 1) */
  times?: number;
}

export class FaultList {
  private faults: (Fault & { left: number })[] = [];

  /** Add a fault; throws (naming what is wrong) for one that could never apply or would break every request. */
  add(f: Fault): void {
    FaultList.check(f);
    this.faults.push({ ...f, left: f.times ?? 1 });
  }

  static check(f: Fault): void {
    if (!f || typeof f !== 'object') throw new Error('a fault is an object {kind, …}');
    if (!['status', 'drop', 'slow'].includes(f.kind))
      throw new Error(`unknown fault kind ${JSON.stringify(f.kind)}: status, drop or slow`);
    if (f.kind === 'status' && (!Number.isInteger(f.status) || f.status! < 400 || f.status! > 599))
      throw new Error(`a status fault needs a status from 400 to 599 (got ${JSON.stringify(f.status)})`);
    if (f.times !== undefined && (!Number.isInteger(f.times) || f.times < 1))
      throw new Error(`times must be a positive integer (got ${JSON.stringify(f.times)})`);
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
  list(): (Fault & { left: number })[] {
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
   * `slow:ms=500`.
   */
  static parse(spec: string): Fault {
    const [head, ...rest] = spec.split(':');
    const opts = Object.fromEntries(rest.map((p) => p.split('=') as [string, string]));
    const common = { path: opts.path, method: opts.method, times: opts.times ? Number(opts.times) : undefined };
    if (head === 'drop') return { kind: 'drop', afterEvents: Number(opts.after ?? 0), ...common };
    if (head === 'slow') return { kind: 'slow', delayMs: Number(opts.ms ?? 1000), ...common };
    const status = Number(head);
    if (!Number.isInteger(status) || status < 400 || status > 599) throw new Error(`unknown fault ${spec}`);
    return { kind: 'status', status, retryAfter: opts['retry-after'], message: opts.message, ...common };
  }
}
