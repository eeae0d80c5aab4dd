// `serve --replay FILE`: requests that match a recording (method, path, query, the body's fields: fixture.ts
// `bodyShape`) get the recorded reply, streams at their recorded pace times `pace` (0: at once), WebSocket sessions
// event by event (a server event waits for the client's events recorded before it). Recordings that match the same
// request answer in their recorded order, the last one again once all have answered. No match: the emulator's own
// behaviour, or under `strict` a 404 naming the closest recording.
import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { BodyShape, Exchange, HttpExchange, RecordedRequest, ReplayFixture, WsExchange } from './fixture.js';

export interface ReplayOptions {
  fixture: ReplayFixture;
  /** no recording: 404 naming the closest (default: the emulator's own behaviour) */
  strict?: boolean;
  /** times the recorded pacing (1, the default: as recorded; 0: at once) */
  pace?: number;
}

export interface AskedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body?: BodyShape;
}

export type ReplayMatch<E extends Exchange> = { exchange: E } | { missing: string };

/** A client that streamed audio and has sent nothing for this long has sent all it will (replaySession). */
const AUDIO_IDLE_MS = 1000;

/** Query parameters that carry credentials are never part of a match. */
const CREDENTIAL_PARAM = /^(api[-_]?key|key|token|access[-_]?token|client[-_]?secret|secret)$/i;

/** JSON with its object keys sorted: two values are equal when their canonical texts are. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function queryRecord(q: URLSearchParams | Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const entries = q instanceof URLSearchParams ? [...q] : Object.entries(q).flatMap(([k, vs]) => vs.map((v) => [k, v]));
  for (const [k, v] of entries) if (!CREDENTIAL_PARAM.test(k!)) (out[k!] ??= []).push(v!);
  return out;
}

/** What differs between a recorded request and the one asked: names of query parameters and body fields. */
function differences(rec: RecordedRequest, asked: AskedRequest): string[] {
  const out: string[] = [];
  if (rec.method !== asked.method) out.push(`the method (${rec.method})`);
  if (rec.path !== asked.path) out.push(`the path (${rec.path})`);
  const rq = queryRecord(rec.query);
  const aq = queryRecord(asked.query);
  for (const k of new Set([...Object.keys(rq), ...Object.keys(aq)]))
    if (canonical(rq[k]) !== canonical(aq[k])) out.push(`query ${k}`);
  const rb = rec.body ?? {};
  const ab = asked.body ?? {};
  const fieldsOf = (b: BodyShape): Record<string, unknown> =>
    b.json ?? (b.form ? { ...b.form.fields, ...b.form.files } : b.sha256 ? { '(body bytes)': b.sha256 } : {});
  const rf = fieldsOf(rb);
  const af = fieldsOf(ab);
  for (const k of new Set([...Object.keys(rf), ...Object.keys(af)]))
    if (canonical(rf[k]) !== canonical(af[k])) out.push(k === '(body bytes)' ? 'the body' : `body ${k}`);
  return out;
}

export class Replayer {
  private readonly used = new Map<number, number>();
  readonly strict: boolean;
  readonly pace: number;

  constructor(readonly opts: ReplayOptions) {
    this.strict = !!opts.strict;
    this.pace = opts.pace ?? 1;
  }

  /** Whether some recording has this method and path (its body is then read before routing, to be matched). */
  has(method: string, path: string): boolean {
    return this.opts.fixture.doc.exchanges.some((e) => e.request.method === method && e.request.path === path);
  }

  find<E extends Exchange>(asked: AskedRequest): ReplayMatch<E> {
    const all = this.opts.fixture.doc.exchanges;
    const exact = all.filter((e) => differences(e.request, asked).length === 0);
    if (exact.length) {
      // recordings of the same request answer in order (a list before and after a delete), the last one again
      const groupKey = exact[0]!.id;
      const n = this.used.get(groupKey) ?? 0;
      this.used.set(groupKey, n + 1);
      return { exchange: exact[Math.min(n, exact.length - 1)] as E };
    }
    const ranked = all
      .map((e) => ({ e, diff: differences(e.request, asked) }))
      .sort((a, b) => a.diff.length - b.diff.length);
    const best = ranked[0];
    const what = `${asked.method} ${asked.path}`;
    if (!best) return { missing: `No recording matches ${what}: the replay fixture holds none` };
    return {
      missing:
        `No recording matches ${what}; the closest is #${best.e.id} ${best.e.request.method} ${best.e.request.path}, ` +
        `which differs in ${best.diff.join(', ')}`,
    };
  }

  private wait(ms: number, gone: () => boolean): Promise<void> {
    if (ms <= 0 || this.pace === 0) return Promise.resolve();
    return new Promise((r) => {
      const t = setTimeout(r, ms);
      const poll = setInterval(() => {
        if (gone()) clearTimeout(t), clearInterval(poll), r();
      }, 50);
      setTimeout(() => clearInterval(poll), ms).unref();
    });
  }

  /** A refused session's recorded message (the `error` of a JSON body, else its text). */
  refusalText(ex: WsExchange): string {
    const text = ex.reply.body ? this.opts.fixture.bytes(ex.reply.body).toString('utf8') : '';
    try {
      return String((JSON.parse(text) as { error?: unknown }).error ?? text);
    } catch {
      return text || `refused with status ${ex.reply.status}`;
    }
  }

  /** The recorded reply: status, headers, then each piece at its recorded time (times `pace`). */
  async answerHttp(res: ServerResponse, ex: HttpExchange): Promise<void> {
    const fixture = this.opts.fixture;
    const gone = () => res.destroyed;
    const pieces = ex.reply.body.map((p) => ({ t: p.t, bytes: fixture.bytes(p.data) }));
    await this.wait(ex.reply.latency_ms * this.pace, gone);
    const length = pieces.reduce((n, p) => n + p.bytes.length, 0);
    res.writeHead(ex.reply.status, { ...ex.reply.headers, 'content-length': String(length) });
    const start = performance.now();
    for (const p of pieces) {
      if (gone()) return;
      await this.wait(start + p.t * this.pace - performance.now(), gone);
      if (!res.write(p.bytes)) await new Promise<void>((r) => res.once('drain', () => r()));
    }
    res.end();
  }

  /**
   * A recorded session, event by event: the server's events at their recorded times (times `pace`) after the
   * client's event recorded before them has come (the k-th client event of a type waits for the client's k-th
   * event of that type); a close the server made is made again. Audio the client streams (binary frames,
   * `*.append` events) may come in other slices than recorded: its wait also ends once the client has sent
   * nothing for AUDIO_IDLE_MS.
   */
  async replaySession(ws: WebSocket, ex: WsExchange): Promise<void> {
    const fixture = this.opts.fixture;
    const received = new Map<string, number>();
    let wake = () => {};
    let closed = false;
    let lastMessageAt = performance.now();
    ws.on('message', (data, binary) => {
      lastMessageAt = performance.now();
      let type = binary ? 'binary' : 'text';
      if (!binary)
        try {
          type = String((JSON.parse(String(data)) as { type?: unknown }).type ?? 'text');
        } catch {
          // a text frame that is not JSON counts as `text`
        }
      received.set(type, (received.get(type) ?? 0) + 1);
      wake();
    });
    ws.on('close', () => {
      closed = true;
      wake();
    });
    const expected = new Map<string, number>();
    let syncAt = performance.now();
    let syncT = 0;
    for (const ev of ex.events) {
      if (closed) return;
      if (ev.from === 'client') {
        const k = (expected.get(ev.type) ?? 0) + 1;
        expected.set(ev.type, k);
        const audio = ev.type === 'binary' || ev.type.endsWith('.append');
        while (!closed && (received.get(ev.type) ?? 0) < k) {
          if (audio && performance.now() - lastMessageAt >= AUDIO_IDLE_MS) break;
          await new Promise<void>((r) => {
            wake = r;
            if (audio) setTimeout(r, AUDIO_IDLE_MS / 4);
          });
        }
        syncAt = performance.now();
        syncT = ev.t;
        continue;
      }
      await this.wait(syncAt + (ev.t - syncT) * this.pace - performance.now(), () => closed);
      if (closed) return;
      const bytes = fixture.bytes(ev.data);
      ws.send(ev.binary ? bytes : bytes.toString('utf8'), { binary: !!ev.binary });
    }
    if (ex.close?.from === 'server' && !closed) {
      const code = ex.close.code >= 1000 && ex.close.code < 5000 && ![1005, 1006].includes(ex.close.code);
      if (code) ws.close(ex.close.code, ex.close.reason);
      else ws.terminate();
    }
  }
}
