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
  isBilled,
  savePrices,
  pricesFromCatalogue,
  type CallDetails,
  type CallRecord,
  type Prices,
} from './log.js';
import type { HttpCall } from '../net/http.js';
import type { WsHandshake, WsWatcher } from '../net/ws.js';
import type { WsSessionLog } from './ws-session.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { release as releaseReservations } from './budget.js';
import { isoTime } from '../core/iso-time.js';

/** a batch's records are written once this many have their replies */
const SETTLED_GROUP = 200;

export class CallRecorder {
  private readonly records: CallRecord[] = [];
  private readonly byCall = new Map<HttpCall, CallRecord>();
  private readonly rawUsage = new Map<CallRecord, unknown>();
  private readonly sessions = new Map<CallRecord, WsSessionLog>();
  /** the answer text of streamed replies as it arrived, kept when the command could not log the whole answer */
  private readonly streamed = new Map<CallRecord, string>();
  /** video edits by request id: their length is known once a poll in this run sees the job done */
  private readonly videoEdits = new Map<string, CallRecord>();
  /** the reader of sessions' events, loaded by readySessions() before a socket opens (HTTP-only runs never load it) */
  private SessionLog?: typeof WsSessionLog;
  /** `svc batch`: the batch's id on every record, and records written as their replies come (memory stays flat) */
  private batch?: string;
  private readonly settled = new Set<CallRecord>();
  /**
   * budget.daily's reservations (apilog/budget): the one a send runs under (its first call takes it, however the
   * endpoint function shapes the body), then by that call's record
   */
  // made by the first spend(): a run without budget.daily never compiles AsyncLocalStorage's code
  private scope?: AsyncLocalStorage<{ id: string; taken: boolean }>;
  private readonly reservationOf = new Map<CallRecord, string>();
  /** deferred chats taken by the API: their reservations end with the record of the answer fetched, by request id */
  private readonly deferredHeld = new Map<string, string>();
  /** ends reservations once their records are written (set with the first reservation) */
  private release?: typeof releaseReservations;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly command: string,
    private readonly retentionDays: number,
    /** --emulator: every call was answered by the emulator (marked, never counted toward the budget) */
    private readonly emulated = false,
  ) {}

  /** this run talks to an emulator: --emulator, or a base URL whose replies say so (its prices are not cached) */
  private get emulatorRun(): boolean {
    return this.emulated || this.records.some((r) => r.emulated);
  }

  /** One append of the records held (marked when emulated). */
  private write(): void {
    const records = this.records.splice(0);
    if (this.emulated) for (const r of records) r.emulated = true;
    this.append(records);
  }

  /**
   * Run a send under a reservation of budget.daily: its first call takes it, and it ends once that call's record is
   * written (a deferred chat's: once the record of its answer fetched is); a send that failed before any call ends
   * it at once.
   */
  async spend<T>(id: string, release: typeof releaseReservations, send: () => Promise<T>): Promise<T> {
    this.release = release;
    const slot = { id, taken: false };
    try {
      this.scope ??= new AsyncLocalStorage();
      return await this.scope.run(slot, send);
    } finally {
      if (!slot.taken) release(logDir(this.env), [id]);
    }
  }

  /**
   * Append records and end their reservations in one step under the ledger's lock. A record billed without a
   * known cost keeps its reservation (the spend is real, the log cannot say it).
   */
  private append(records: CallRecord[]): void {
    const dir = logDir(this.env);
    const ends: string[] = [];
    for (const rec of records) {
      const fetched = rec.path.includes('/deferred-completion/') && /\/deferred-completion\/([^/]+)$/.exec(rec.path);
      const answered = fetched && rec.status === 200 ? decodeURIComponent(fetched[1]!) : undefined;
      const id = this.reservationOf.get(rec) ?? (answered === undefined ? undefined : this.deferredHeld.get(answered));
      if (id === undefined) continue;
      this.reservationOf.delete(rec);
      if (answered !== undefined) this.deferredHeld.delete(answered);
      const unpriced = isBilled(rec) && !rec.emulated && rec.cost_usd === undefined;
      if (!unpriced) ends.push(id);
    }
    const write = () => appendRecords(dir, records, this.retentionDays);
    if (this.release && ends.length) this.release(dir, ends, write);
    else write();
  }

  readonly onCall = (call: HttpCall): void => {
    const started = new Date(Date.now() - call.durationMs);
    const rec: CallRecord = {
      id: newCallId(started),
      time: isoTime(started.getTime()),
      command: this.command,
      method: call.method,
      path: call.path,
      status: call.status,
      duration_ms: call.durationMs,
      ...(call.requestId ? { request_id: call.requestId } : {}),
      ...(call.error ? { error: call.error } : {}),
      ...(call.emulated ? { emulated: true } : {}),
    };
    const body = call.json as Record<string, unknown> | undefined;
    const slot = this.scope?.getStore();
    if (slot && !slot.taken) {
      slot.taken = true;
      this.reservationOf.set(rec, slot.id);
    }
    if (body && typeof body === 'object') {
      if (typeof body.model === 'string') rec.model = body.model;
      const prompt = promptOf(body);
      if (prompt !== undefined) rec.prompt = prompt;
    }
    this.records.push(rec);
    this.byCall.set(call, rec);
    if (this.batch) {
      rec.batch = this.batch;
      if (call.status === null || call.status >= 300) this.settle(rec);
    }
  };

  async readySessions(): Promise<void> {
    this.SessionLog ??= (await import('./ws-session.js')).WsSessionLog;
  }

  /** A WebSocket handshake: its record now; an open session is read until it ends (or until the flush at exit). */
  readonly onWsOpen = (h: WsHandshake): WsWatcher | undefined => {
    const started = new Date(h.startedAt);
    const rec: CallRecord = {
      id: newCallId(started),
      time: isoTime(started.getTime()),
      command: this.command,
      method: 'WS',
      path: h.path,
      status: h.status,
      duration_ms: Date.now() - h.startedAt,
      ...(h.requestId ? { request_id: h.requestId } : {}),
      ...(h.error ? { error: h.error } : {}),
      ...(h.emulated ? { emulated: true } : {}),
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
    const held = this.reservationOf.get(rec);
    if (held !== undefined && typeof b.request_id === 'string' && (call.json as { deferred?: unknown })?.deferred) {
      // the API took a deferred chat: it is billed when its answer is fetched, so the reservation waits for that
      this.reservationOf.delete(rec);
      this.deferredHeld.set(b.request_id, held);
    }
    const answer = answerOf(b);
    this.add(rec, { model: typeof b.model === 'string' ? b.model : undefined, usage: b.usage, answer });
    this.countMedia(rec, call.json as Record<string, unknown> | undefined, b);
    if (this.batch) this.settle(rec);
  };

  /** Tag every record from now on with a batch's id; its records are then written in groups as they complete. */
  tagBatch(id: string): void {
    this.batch = id;
  }

  private settle(rec: CallRecord): void {
    this.settled.add(rec);
    // a record holding a reservation of budget.daily is written at once: the reservation ends with it
    if (this.settled.size >= SETTLED_GROUP || this.reservationOf.has(rec) || this.deferredHeld.size > 0)
      this.writeSettled();
  }

  /** Write the records whose replies are in (their cost the API's, else from cached prices) and forget them. */
  private writeSettled(): void {
    const done = this.records.filter((r) => this.settled.has(r));
    const prices = this.emulatorRun ? undefined : cachedPrices(this.env, Date.now());
    for (const rec of done) {
      const reported = isBilled(rec) ? reportedCost(this.rawUsage.get(rec)) : undefined;
      const cost = isBilled(rec) ? (reported ?? priceCost(prices, rec.model, rec)) : undefined;
      if (cost !== undefined) rec.cost_usd = cost;
      if (this.emulated) rec.emulated = true;
      this.rawUsage.delete(rec);
    }
    const gone = new Set(done);
    this.records.splice(0, this.records.length, ...this.records.filter((r) => !gone.has(r)));
    for (const [call, rec] of this.byCall) if (gone.has(rec)) this.byCall.delete(call);
    this.settled.clear();
    this.append(done);
  }

  /**
   * What image and video calls are billed by: the images a reply carries; the seconds a video job generates (the
   * request's duration or the API's default: 8 s, an extension 6 s; an edit's length once a poll here sees it done).
   */
  private countMedia(rec: CallRecord, sent: Record<string, unknown> | undefined, b: Record<string, any>): void {
    // (V8 compiles each expression below on its first use: a reply of no image or video needs none of them)
    if (!rec.path.includes('/images/') && !rec.path.includes('/videos/')) return;
    if (rec.method === 'POST' && /\/images\/(generations|edits)$/.test(rec.path) && Array.isArray(b.data)) {
      rec.images = b.data.length;
      return;
    }
    const job = /\/videos\/(generations|extensions|edits)$/.exec(rec.path);
    if (rec.method === 'POST' && job && typeof b.request_id === 'string') {
      const asked = typeof sent?.duration === 'number' ? sent.duration : undefined;
      if (job[1] === 'edits') this.videoEdits.set(b.request_id, rec);
      else rec.video_seconds = asked ?? (job[1] === 'generations' ? 8 : 6);
      return;
    }
    const poll = /\/videos\/([^/]+)$/.exec(rec.path);
    const edit = rec.method === 'GET' && poll ? this.videoEdits.get(decodeURIComponent(poll[1]!)) : undefined;
    if (edit && b.status === 'done' && typeof b.video?.duration === 'number') {
      edit.video_seconds = b.video.duration;
      this.videoEdits.delete(decodeURIComponent(poll![1]!));
    }
  }

  /** An event of a streamed reply (net/sse): the answer's text as it arrives, by convention (path). */
  readonly onStreamEvent = (call: HttpCall, data: unknown): void => {
    const rec = this.byCall.get(call);
    const piece = rec ? streamedText(rec.path, data) : undefined;
    if (rec && piece) this.streamed.set(rec, (this.streamed.get(rec) ?? '') + piece);
  };

  /**
   * A reply that began but did not end as it should (interrupted by Ctrl-C or a signal, cut, stalled, without its end
   * marker): its record says so, with what arrived (not a 200 that answered nothing).
   */
  readonly onCallFailed = (call: HttpCall, reason: string): void => {
    const rec = this.byCall.get(call);
    if (!rec) return;
    rec.error ??= reason;
    rec.duration_ms = Date.now() - Date.parse(rec.time);
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

  /**
   * Sessions still open are recorded as they stand (interrupted: what arrived is kept); so are streamed answers the
   * command did not log whole (it failed or was interrupted first).
   */
  private closeSessions(): void {
    const now = Date.now();
    for (const [rec, session] of this.sessions) this.add(rec, { usage: session.fill(rec, now) });
    this.sessions.clear();
    for (const [rec, text] of this.streamed) if (rec.answer === undefined) this.add(rec, { answer: text });
    this.streamed.clear();
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
    const emulated = this.emulatorRun;
    for (const rec of this.records) {
      if (!isBilled(rec)) continue;
      const reported = reportedCost(this.rawUsage.get(rec));
      if (reported !== undefined) {
        rec.cost_usd = reported;
        continue;
      }
      if (!prices && !fetched) {
        fetched = true;
        prices = emulated ? undefined : cachedPrices(this.env, Date.now());
        if (!prices) {
          try {
            prices = pricesFromCatalogue(await fetchCatalogue(), Date.now());
            // the emulator's catalogue prices the emulated calls only, never the cache the real calls use
            if (!emulated) savePrices(this.env, prices);
          } catch {
            // no prices: the cost stays absent rather than guessed
          }
        }
      }
      const cost = priceCost(prices, rec.model, rec);
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

/**
 * The answer's text in one event of a streamed reply: chat (choice 0's delta), legacy completions (choice 0's text),
 * responses (output_text.delta), messages (a text_delta).
 */
function streamedText(path: string, data: unknown): string | undefined {
  const d = data as Record<string, any> | null;
  if (!d || typeof d !== 'object') return undefined;
  if (path.endsWith('/chat/completions') || path.endsWith('/completions') || path.endsWith('/complete')) {
    const choice = Array.isArray(d.choices) ? d.choices.find((c: any) => (c?.index ?? 0) === 0) : undefined;
    const text = choice?.delta?.content ?? choice?.text ?? d.completion;
    return typeof text === 'string' ? text : undefined;
  }
  if (d.type === 'response.output_text.delta' && typeof d.delta === 'string') return d.delta;
  if (d.type === 'content_block_delta' && d.delta?.type === 'text_delta' && typeof d.delta.text === 'string')
    return d.delta.text;
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
