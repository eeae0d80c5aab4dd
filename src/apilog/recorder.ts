// The calls of one command run, collected from the HTTP chokepoint (status, duration, request id, JSON replies),
// from the WebSocket chokepoint (a record per session: the handshake, then what apilog/ws-session reads from its
// events) and from text commands (ctx.logCall: streamed answers and their usage), written to the call log at exit.
import {
  appendRecords,
  logDir,
  newCallId,
  normalizeUsage,
  priceCost,
  reportedCost,
  cachedPrices,
  savePrices,
  pricesFromCatalogue,
  type CallDetails,
  type CallRecord,
  type Prices,
} from './log.js';
import type { HttpCall } from '../net/http.js';
import type { WsHandshake, WsWatcher } from '../net/ws.js';
import type { WsSessionLog } from './ws-session.js';

export class CallRecorder {
  private readonly records: CallRecord[] = [];
  private readonly byCall = new Map<HttpCall, CallRecord>();
  private readonly rawUsage = new Map<CallRecord, unknown>();
  private readonly sessions = new Map<CallRecord, WsSessionLog>();
  /** the reader of sessions' events, loaded by readySessions() before a socket opens (HTTP-only runs never load it) */
  private SessionLog?: typeof WsSessionLog;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly command: string,
    private readonly retentionDays: number,
    /** --emulator: every call was answered by the emulator (marked, never counted toward the budget) */
    private readonly emulated = false,
  ) {}

  /** One append of the records held (marked when emulated). */
  private write(): void {
    const records = this.records.splice(0);
    if (this.emulated) for (const r of records) r.emulated = true;
    appendRecords(logDir(this.env), records, this.retentionDays);
  }

  readonly onCall = (call: HttpCall): void => {
    const started = new Date(Date.now() - call.durationMs);
    const rec: CallRecord = {
      id: newCallId(started),
      time: started.toISOString(),
      command: this.command,
      method: call.method,
      path: call.path,
      status: call.status,
      duration_ms: call.durationMs,
      ...(call.requestId ? { request_id: call.requestId } : {}),
      ...(call.error ? { error: call.error } : {}),
    };
    const body = call.json as Record<string, unknown> | undefined;
    if (body && typeof body === 'object') {
      if (typeof body.model === 'string') rec.model = body.model;
      const prompt = promptOf(body);
      if (prompt !== undefined) rec.prompt = prompt;
    }
    this.records.push(rec);
    this.byCall.set(call, rec);
  };

  async readySessions(): Promise<void> {
    this.SessionLog ??= (await import('./ws-session.js')).WsSessionLog;
  }

  /** A WebSocket handshake: its record now; an open session is read until it ends (or until the flush at exit). */
  readonly onWsOpen = (h: WsHandshake): WsWatcher | undefined => {
    const started = new Date(h.startedAt);
    const rec: CallRecord = {
      id: newCallId(started),
      time: started.toISOString(),
      command: this.command,
      method: 'WS',
      path: h.path,
      status: h.status,
      duration_ms: Date.now() - h.startedAt,
      ...(h.requestId ? { request_id: h.requestId } : {}),
      ...(h.error ? { error: h.error } : {}),
    };
    const model = h.query?.model;
    if (typeof model === 'string' && model) rec.model = model;
    this.records.push(rec);
    // refused, or no reply: the record is complete
    if (h.status !== 101 || !this.SessionLog) return undefined;
    const session = new this.SessionLog(h.path, h.query, h.startedAt);
    this.sessions.set(rec, session);
    return session;
  };

  readonly onReply = (call: HttpCall, body: unknown): void => {
    const rec = this.byCall.get(call);
    if (!rec || !body || typeof body !== 'object') return;
    const b = body as Record<string, unknown>;
    const answer = answerOf(b);
    this.add(rec, { model: typeof b.model === 'string' ? b.model : undefined, usage: b.usage, answer });
  };

  /** Details a text command knows better than the HTTP layer (a streamed answer, its usage): for the last call. */
  details(d: CallDetails): void {
    const rec = this.records[this.records.length - 1];
    if (rec) {
      this.add(rec, d);
      rec.duration_ms = Date.now() - Date.parse(rec.time);
    }
  }

  private add(rec: CallRecord, d: CallDetails): void {
    if (d.model) rec.model = d.model;
    if (d.prompt !== undefined) rec.prompt = d.prompt;
    if (d.answer !== undefined && d.answer !== '') rec.answer = d.answer;
    const usage = normalizeUsage(d.usage);
    if (usage) {
      rec.usage = usage;
      this.rawUsage.set(rec, d.usage);
    }
  }

  /** Sessions still open are recorded as they stand (interrupted: what arrived is kept). */
  private closeSessions(): void {
    const now = Date.now();
    for (const [rec, session] of this.sessions) this.add(rec, { usage: session.fill(rec, now) });
    this.sessions.clear();
  }

  /** At process exit before flush() could finish (a second Ctrl-C, the stop after a signal): no price lookup. */
  flushNow(): void {
    this.closeSessions();
    for (const rec of this.records) {
      const reported = rec.usage ? reportedCost(this.rawUsage.get(rec)) : undefined;
      if (reported !== undefined) rec.cost_usd = reported;
    }
    this.write();
  }

  /** Costs (the API's, else from the catalogue's prices fetched at most once a day), then one append per record. */
  async flush(fetchCatalogue: () => Promise<unknown>): Promise<void> {
    if (!this.records.length) return;
    this.closeSessions();
    let prices: Prices | undefined;
    let fetched = false;
    for (const rec of this.records) {
      if (!rec.usage) continue;
      const reported = reportedCost(this.rawUsage.get(rec));
      if (reported !== undefined) {
        rec.cost_usd = reported;
        continue;
      }
      if (!prices && !fetched) {
        fetched = true;
        prices = this.emulated ? undefined : cachedPrices(this.env, Date.now());
        if (!prices) {
          try {
            prices = pricesFromCatalogue(await fetchCatalogue(), Date.now());
            // the emulator's catalogue prices the emulated calls only, never the cache the real calls use
            if (!this.emulated) savePrices(this.env, prices);
          } catch {
            // no prices: the cost stays absent rather than guessed
          }
        }
      }
      const cost = priceCost(prices, rec.model, rec.usage);
      if (cost !== undefined) rec.cost_usd = cost;
    }
    this.write();
  }
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content
      .map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : ''))
      .filter(Boolean);
    return parts.length ? parts.join('\n') : undefined;
  }
  return undefined;
}

/** The user's words in a request of any text convention (chat/messages, responses, legacy completions, tokenize). */
function promptOf(body: Record<string, unknown>): string | undefined {
  const list = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : undefined;
  if (list) {
    for (let i = list.length - 1; i >= 0; i--) {
      const m = list[i] as { role?: string; content?: unknown };
      if (m?.role === 'user') return textOf(m.content);
    }
    return undefined;
  }
  // a document search's query is the user's words too (logs --grep finds it)
  for (const k of ['input', 'prompt', 'text', 'query'] as const)
    if (typeof body[k] === 'string') return body[k] as string;
  return undefined;
}

/** The answer's text in a reply of any text convention. */
function answerOf(b: Record<string, any>): string | undefined {
  const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
  if (choice) return textOf(choice.message?.content) ?? (typeof choice.text === 'string' ? choice.text : undefined);
  if (Array.isArray(b.output)) {
    const texts = b.output
      .flatMap((o: any) => (Array.isArray(o?.content) ? o.content : []))
      .map((c: any) => (typeof c?.text === 'string' ? c.text : ''))
      .filter(Boolean);
    return texts.length ? texts.join('\n') : undefined;
  }
  if (Array.isArray(b.content) && b.type === 'message') return textOf(b.content);
  return undefined;
}
