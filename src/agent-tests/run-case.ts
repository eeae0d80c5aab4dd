// One case of `svc agents test`: its own realtime session, configured like the agent (instructions, voice,
// tools, knowledge base), driven turn by turn with text items or audio (committed by hand: no server VAD), and
// checked against each turn's expectations. A turn ends with the first answer that calls no tool; tool calls in
// between are answered from the case's scripted results or the `--tool-cmd` commands.
import { performance } from 'node:perf_hooks';
import { errorFromEvent, type ServerEvent, type SessionUpdate } from '../endpoints/realtime.js';
import { isTranscriptDelta, isTranscriptDone } from '../core/realtime-events.js';
import { IncompleteError, NetworkError, describeError } from '../core/errors.js';
import { runToolCommand } from '../cmdutil/local-tools.js';
import { closeNote, type WsConnection } from '../net/ws.js';
import type { TestCase, TestTurn, ToolExpectation } from './test-file.js';

export interface ToolCall {
  callId: string;
  name: string;
  /** the arguments as sent (a JSON string) */
  raw: string;
  arguments: unknown;
  result: string;
  /** neither the case nor --tool-cmd had an answer for it */
  unanswered?: boolean;
}

export interface TurnRecord {
  said: string;
  reply: string;
  calls: ToolCall[];
  ms: number;
}

export interface CaseResult {
  name: string;
  file: string;
  passed: boolean;
  /** what failed, each naming its turn */
  failures: string[];
  ms: number;
  /** the conversation as it went, for people */
  transcript: string[];
}

export interface CaseRunOptions {
  /** opens an authenticated `/v1/realtime` WebSocket */
  connect: () => Promise<WsConnection>;
  session: SessionUpdate;
  /** tool name → local command (`--tool-cmd`) */
  commands: Map<string, string>;
  toolTimeoutMs?: number;
  /** an audio file as 24 kHz mono pcm16, the session's input format */
  readAudio: (file: string) => Promise<Buffer>;
  /** validates arguments against a JSON Schema: undefined when they match, else why not */
  checkSchema: (schema: Record<string, unknown>, value: unknown) => Promise<string | undefined>;
  signal?: AbortSignal;
}

/** Tool rounds one turn may take before it counts as a loop. */
const MAX_TOOL_ROUNDS = 8;
const APPEND_BYTES = 24_000 * 2 * 0.2; // 200 ms of audio per append

export async function runCase(c: TestCase, o: CaseRunOptions): Promise<CaseResult> {
  const started = performance.now();
  const transcript: string[] = [];
  const failures: string[] = [];
  let conn: WsConnection | undefined;
  try {
    conn = await o.connect();
    await configure(conn, o.session, transcript);
    for (const [i, turn] of c.turns.entries()) {
      const label = `turn ${i + 1}`;
      const record = await runTurn(conn, turn, c, o, transcript);
      const problems = await check(turn, record, o);
      for (const p of problems) {
        failures.push(`${label}: ${p}`);
        transcript.push(`✘ ${label}: ${p}`);
      }
    }
  } catch (err) {
    // an API error's status and request id with its message, as agents simulate says a failed call's
    const msg = describeError(err);
    failures.push(`the session failed: ${msg}`);
    transcript.push(`✘ the session failed: ${msg}`);
  } finally {
    conn?.close(1000, 'test case done');
  }
  return {
    name: c.name,
    file: c.file,
    passed: failures.length === 0,
    failures,
    ms: performance.now() - started,
    transcript,
  };
}

async function nextEvent(conn: WsConnection, during: string): Promise<ServerEvent> {
  for (;;) {
    const m = await conn.next();
    if (!m) throw new NetworkError(`the server closed the session ${during}${closeNote(conn)}`);
    if (m.type === 'json') return m.data as ServerEvent;
  }
}

/** session.created → session.update (no server VAD: turns are committed by the test) → session.updated. */
export async function configure(conn: WsConnection, session: SessionUpdate, transcript: string[]): Promise<void> {
  conn.awaiting = () => true;
  const first = await nextEvent(conn, 'before it started');
  if (first.type === 'error') throw errorFromEvent(first);
  conn.send({ type: 'session.update', session: { ...session, turn_detection: null } });
  for (;;) {
    const ev = await nextEvent(conn, 'while it was being configured');
    if (ev.type === 'error') throw errorFromEvent(ev);
    if (ev.type === 'session.updated') break;
  }
  const tools = (session.tools ?? []).map((t) => (typeof t.name === 'string' ? t.name : t.type));
  transcript.push(`session: voice ${session.voice ?? '(default)'}; tools: ${tools.length ? tools.join(', ') : 'none'}`);
}

async function sendUserTurn(conn: WsConnection, turn: TestTurn, o: CaseRunOptions): Promise<void> {
  if (turn.user !== undefined) sendTextTurn(conn, turn.user);
  else sendAudioTurn(conn, await o.readAudio(turn.audio!));
}

/** A tool call's result, sent back into the session (the next answer is asked for once all are sent). */
export function sendToolResult(conn: WsConnection, call: ToolCall): void {
  conn.send({
    type: 'conversation.item.create',
    item: { type: 'function_call_output', call_id: call.callId, output: call.result },
  });
}

/** A user turn said as text, and the answer asked for. */
export function sendTextTurn(conn: WsConnection, text: string): void {
  conn.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
  conn.send({ type: 'response.create' });
}

/** A user turn said as audio (the session's input format), committed by hand, and the answer asked for. */
export function sendAudioTurn(conn: WsConnection, pcm: Buffer): void {
  for (let at = 0; at < pcm.length; at += APPEND_BYTES) {
    conn.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + APPEND_BYTES).toString('base64') });
  }
  conn.send({ type: 'input_audio_buffer.commit' });
  conn.send({ type: 'response.create' });
}

async function runTurn(
  conn: WsConnection,
  turn: TestTurn,
  c: TestCase,
  o: CaseRunOptions,
  transcript: string[],
): Promise<TurnRecord> {
  const t0 = performance.now();
  const record: TurnRecord = { said: turn.user ?? '', reply: '', calls: [], ms: 0 };
  transcript.push(turn.user !== undefined ? `user: ${turn.user}` : `user (audio ${turn.audio}):`);
  await sendUserTurn(conn, turn, o);
  let rounds = 0;
  for (;;) {
    const { text, calls } = await readResponse(conn, record, transcript);
    if (text) {
      record.reply = record.reply ? `${record.reply} ${text}` : text;
      transcript.push(`agent: ${text}`);
    }
    if (calls.length === 0) break;
    if (++rounds > MAX_TOOL_ROUNDS)
      throw new IncompleteError(`the agent kept calling tools (${MAX_TOOL_ROUNDS} rounds in one turn)`);
    for (const call of calls) {
      await answerCall(call, c, o);
      record.calls.push(call);
      transcript.push(`tool ${call.name}(${call.raw}) → ${call.result}`);
      sendToolResult(conn, call);
    }
    conn.send({ type: 'response.create' });
  }
  record.ms = performance.now() - t0;
  return record;
}

/** What a reader of the answer's events may add: a look at each event, and an answer cancelled on purpose. */
export interface ResponseWatch {
  /** returns true to pass over the event (one the watcher expected, as the error of a cancel that came too late) */
  onEvent?(ev: ServerEvent): boolean | undefined;
  /** true when the client cancelled the answer (a barge-in): its response.done is then no failure */
  cancelledByUs?(): boolean;
}

/** Events up to response.done: the answer's text and the tools it calls. */
export async function readResponse(
  conn: WsConnection,
  record: Pick<TurnRecord, 'said'>,
  transcript: string[],
  watch: ResponseWatch = {},
): Promise<{ text: string; calls: ToolCall[]; cancelled?: boolean }> {
  let deltas = '';
  let done: string | undefined;
  const calls: ToolCall[] = [];
  for (;;) {
    const ev = await nextEvent(conn, 'in the middle of a turn');
    if (watch.onEvent?.(ev)) continue;
    const t = ev.type;
    if (isTranscriptDelta(t) && typeof ev.delta === 'string') deltas += ev.delta;
    else if (isTranscriptDone(t))
      done = typeof ev.transcript === 'string' ? ev.transcript : typeof ev.text === 'string' ? ev.text : undefined;
    else if (t === 'conversation.item.input_audio_transcription.completed' && typeof ev.transcript === 'string') {
      record.said = ev.transcript.trim();
      transcript.push(`  (heard: ${record.said})`);
    } else if (
      t === 'response.function_call_arguments.done' &&
      typeof ev.name === 'string' &&
      typeof ev.call_id === 'string'
    ) {
      const raw = typeof ev.arguments === 'string' ? ev.arguments : JSON.stringify(ev.arguments ?? {});
      let parsed: unknown = raw;
      try {
        parsed = JSON.parse(raw);
      } catch {
        // kept as text: an expectation on it will say it is not JSON
      }
      calls.push({ name: ev.name, raw, arguments: parsed, result: '', callId: ev.call_id });
    } else if (t === 'error') throw errorFromEvent(ev);
    else if (t === 'response.done') {
      const status = ev.response?.status;
      if (status === 'failed') {
        const why = ev.response?.status_details?.error?.message;
        throw new IncompleteError(`the answer failed${why ? `: ${why}` : ''}`);
      }
      const cancelled = status === 'cancelled';
      if (cancelled && !watch.cancelledByUs?.()) throw new IncompleteError('the answer was cancelled by the server');
      return { text: (done ?? deltas).trim(), calls, ...(cancelled ? { cancelled } : {}) };
    }
  }
}

/** The case's scripted result, else the --tool-cmd command's output, else an error result (and a failure). */
export async function answerCall(
  call: ToolCall,
  c: Pick<TestCase, 'tools'>,
  o: Pick<CaseRunOptions, 'commands' | 'signal' | 'toolTimeoutMs'>,
): Promise<void> {
  if (Object.hasOwn(c.tools, call.name)) {
    const v = c.tools[call.name];
    call.result = typeof v === 'string' ? v : JSON.stringify(v);
    return;
  }
  const command = o.commands.get(call.name);
  if (command) {
    call.result = await runToolCommand(command, call.raw, { signal: o.signal, timeoutMs: o.toolTimeoutMs });
    return;
  }
  call.unanswered = true;
  call.result = JSON.stringify({ error: `no result for the tool ${call.name} in this test` });
}

/** Every expectation of the turn that does not hold, said plainly. */
async function check(turn: TestTurn, r: TurnRecord, o: CaseRunOptions): Promise<string[]> {
  const e = turn.expect;
  const out: string[] = [];
  const reply = r.reply;
  const lower = reply.toLowerCase();
  const quoted = JSON.stringify(reply.length > 160 ? `${reply.slice(0, 160)}…` : reply);
  for (const s of e.reply_contains ?? [])
    if (!lower.includes(s.toLowerCase())) out.push(`the reply does not contain ${JSON.stringify(s)}: ${quoted}`);
  for (const s of e.reply_not_contains ?? [])
    if (lower.includes(s.toLowerCase())) out.push(`the reply contains ${JSON.stringify(s)}: ${quoted}`);
  for (const re of e.reply_matches ?? []) if (!re.test(reply)) out.push(`the reply does not match ${re}: ${quoted}`);
  if (e.no_tool_call && r.calls.length)
    out.push(`no tool call was expected; the agent called ${r.calls.map((x) => `${x.name}(${x.raw})`).join(', ')}`);
  for (const want of e.tool_called ?? []) {
    const why = await matchCall(want, r.calls, o);
    if (why) out.push(why);
  }
  for (const x of r.calls.filter((c) => c.unanswered))
    out.push(
      `the agent called ${x.name}, which has no result in this test: add tools.${x.name} to the case or pass ` +
        `--tool-cmd ${x.name}=COMMAND`,
    );
  if (e.within_seconds !== undefined && r.ms > e.within_seconds * 1000)
    out.push(`the turn took ${(r.ms / 1000).toFixed(2)} s: more than ${e.within_seconds} s`);
  return out;
}

async function matchCall(want: ToolExpectation, calls: ToolCall[], o: CaseRunOptions): Promise<string | undefined> {
  const named = calls.filter((x) => x.name === want.name);
  if (named.length === 0)
    return (
      `the tool ${want.name} was not ` +
      `called${calls.length ? ` (called: ${calls.map((x) => x.name).join(', ')})` : ' (no tool was called)'}`
    );
  const reasons: string[] = [];
  for (const call of named) {
    let why: string | undefined;
    if (want.arguments !== undefined) why = partialMismatch(want.arguments, call.arguments, 'arguments');
    if (!why && want.arguments_schema !== undefined) why = await o.checkSchema(want.arguments_schema, call.arguments);
    if (!why) return undefined;
    reasons.push(`${call.raw}: ${why}`);
  }
  return `the tool ${want.name} was called, but not with the expected arguments: ${reasons.join('; ')}`;
}

/** undefined when every key of `want` is in `got` with an equal value (objects compared the same way, recursively). */
export function partialMismatch(want: unknown, got: unknown, path: string): string | undefined {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    if (got === null || typeof got !== 'object' || Array.isArray(got))
      return `${path} is ${JSON.stringify(got)}, not an object`;
    for (const [k, v] of Object.entries(want)) {
      if (!(k in got)) return `${path}.${k} is missing`;
      const why = partialMismatch(v, (got as Record<string, unknown>)[k], `${path}.${k}`);
      if (why) return why;
    }
    return undefined;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length)
      return `${path} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
    for (const [i, v] of want.entries()) {
      const why = partialMismatch(v, got[i], `${path}[${i}]`);
      if (why) return why;
    }
    return undefined;
  }
  return Object.is(want, got) ? undefined : `${path} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
}
