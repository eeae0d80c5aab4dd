// One simulated call of `svc agents simulate`: its own realtime session configured like the agent (as `agents test`
// configures one), the caller model's lines sent as text (--text) or spoken with TTS as audio (--voice), the agent's
// answers read as the session's transcript, tool calls answered from the scenario or --tool-cmd, the latency of each
// turn measured from the caller's end of speech (the commit, or the text item) to the agent's first audio, then the
// judge's verdicts. What goes wrong in a call is that call's failure; only Ctrl-C leaves it unreported.
import { performance } from 'node:perf_hooks';
import type { ServerEvent, SessionUpdate } from '../../endpoints/realtime.js';
import { createChat, type ChatRequest, type ChatResponse } from '../../endpoints/chat.js';
import type { HttpClient } from '../../net/http.js';
import type { WsConnection } from '../../net/ws.js';
import { isAudioDelta, isTranscriptDelta } from '../../core/realtime-events.js';
import { BudgetError, IncompleteError, describeError } from '../../core/errors.js';
import {
  answerCall,
  configure,
  readResponse,
  sendAudioTurn,
  sendTextTurn,
  sendToolResult,
  type ToolCall,
} from '../run-case.js';
import { callerLine, callerRequest, judgeRequest, verdicts, type Line, type ToolUse, type Verdict } from './models.js';
import type { Scenario } from './scenario.js';

export type Mode = 'voice' | 'text';
/** The tool an agent calls to hang up (the convention `agents simulate` documents). */
export const END_CALL_TOOL = 'end_call';
const MAX_TOOL_ROUNDS = 8;
const PCM_BYTES_PER_SECOND = 24_000 * 2;

export interface CallPlan {
  scenario: Scenario;
  /** 1-based run of its scenario */
  run: number;
  /** seeds the caller's and the judge's requests (--seed), per call */
  seed?: number;
}

export interface SimTurn {
  caller: string;
  /** what the session heard of the caller's speech (voice) */
  heard?: string;
  agent: string;
  interrupted?: boolean;
  /** the caller's end of speech to the agent's first audio; absent when no audio came */
  latency_ms?: number;
  tool_calls: ToolUse[];
}

export type EndedBy = 'goal_met' | 'gave_up' | 'turn_limit' | 'agent' | 'failed';

export interface CallRecord {
  scenario: string;
  file: string;
  run: number;
  mode: Mode;
  passed: boolean;
  ended_by: EndedBy;
  turns: SimTurn[];
  /** the caller's last line when it ended the call (goal met or given up), not sent to the agent */
  caller_goodbye?: string;
  verdicts: Verdict[];
  failures: string[];
  latency: { p50_ms?: number; p95_ms?: number; budget: Scenario['latency'] };
  cost_usd: number;
  duration_ms: number;
  seed?: number;
  /** --record: each side's speech, 24 kHz mono pcm16 */
  audio?: { caller: Buffer[]; agent: Buffer[] };
}

export interface SimOptions {
  http: HttpClient;
  connect: () => Promise<WsConnection>;
  session: SessionUpdate;
  mode: Mode;
  callerModel: string;
  judgeModel: string;
  judgeMaxTokens: number;
  commands: Map<string, string>;
  toolTimeoutMs?: number;
  /** the caller's line as speech: 24 kHz mono pcm16, the session's input format */
  speak: (text: string, signal: AbortSignal) => Promise<Buffer>;
  /** budget.daily: the worst case of a request reserved before it is sent (throws a BudgetError when it cannot be) */
  reserve: (path: string, body: unknown) => Promise<(<T>(send: () => Promise<T>) => Promise<T>) | undefined>;
  /** a chat call's cost in USD at the catalogue's prices (undefined: not known) */
  cost: (model: string, usage: unknown) => Promise<number | undefined>;
  record: boolean;
  signal: AbortSignal;
}

/** The value at the p-th percentile (nearest rank) of a list of numbers; undefined for none. */
export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Failures of a latency budget, each naming it: over several turns' figures of one call or one scenario. */
export function latencyFailures(figures: number[], budget: Scenario['latency']): string[] {
  const out: string[] = [];
  for (const [k, p] of [
    ['p50_ms', 50],
    ['p95_ms', 95],
  ] as const) {
    const limit = budget[k];
    const got = percentile(figures, p);
    if (limit !== undefined && got !== undefined && got > limit)
      out.push(`latency budget ${k} ${limit} ms: the agent's first audio came after ${Math.round(got)} ms (p${p})`);
  }
  return out;
}

class Call {
  readonly lines: Line[] = [];
  readonly turns: SimTurn[] = [];
  readonly failures: string[] = [];
  readonly audio = { caller: [] as Buffer[], agent: [] as Buffer[] };
  cost = 0;
  endedBy: EndedBy = 'turn_limit';
  goodbye?: string;
  constructor(
    readonly plan: CallPlan,
    readonly o: SimOptions,
  ) {}

  async chat(body: ChatRequest): Promise<ChatResponse> {
    const send = () => createChat(this.o.http, body, this.o.signal);
    const spend = await this.o.reserve('/v1/chat/completions', body);
    const res = await (spend ? spend(send) : send());
    this.cost += (await this.o.cost(String(body.model), res.usage)) ?? 0;
    return res;
  }

  /** The caller's next line: the opening first when the scenario has one; undefined when it ends the call. */
  async callerSays(first: boolean): Promise<string | undefined> {
    const s = this.plan.scenario;
    if (first && s.opening) return s.opening;
    const line = await callerLine(await this.chat(callerRequest(s, this.o.callerModel, this.lines, this.seed(1))));
    if (typeof line === 'string') throw new IncompleteError(line);
    if (!first && line.status !== 'continue') {
      this.endedBy = line.status;
      this.goodbye = line.say;
      this.lines.push({ who: 'caller', text: line.say });
      return undefined;
    }
    return line.say;
  }

  /** a seed per request of the call, so that a run repeats (--seed) */
  seed(offset: number): number | undefined {
    const s = this.plan.seed;
    return s === undefined ? undefined : (s + this.lines.length * 2 + offset) | 0;
  }

  async turn(conn: WsConnection, said: string): Promise<SimTurn> {
    const t: SimTurn = { caller: said, agent: '', tool_calls: [] };
    this.lines.push({ who: 'caller', text: said });
    if (this.o.mode === 'voice') {
      const pcm = await this.o.speak(said, this.o.signal);
      if (this.o.record) this.audio.caller.push(pcm);
      sendAudioTurn(conn, pcm);
    } else sendTextTurn(conn, said);
    const spoken = performance.now();
    const heard = { said: '' };
    const log: string[] = [];
    for (let round = 0; ; round++) {
      const watch = this.watch(conn, t, spoken);
      const { text, calls, cancelled } = await readResponse(conn, heard, log, watch);
      if (cancelled) t.interrupted = true;
      if (text) t.agent = t.agent ? `${t.agent} ${text}` : text;
      if (calls.length === 0 || t.interrupted) break;
      if (round >= MAX_TOOL_ROUNDS)
        throw new IncompleteError(`the agent kept calling tools (${MAX_TOOL_ROUNDS} rounds in one turn)`);
      await this.answer(conn, calls, t);
    }
    if (heard.said) t.heard = heard.said;
    this.lines.push({ who: 'agent', text: t.agent + (t.interrupted ? ' [interrupted by the caller]' : '') });
    return t;
  }

  /** a barge-in was sent, and its answer may have ended first: the server's "no active response" is expected */
  cancelSent = false;

  /** Each event of an answer: the first audio's time, the agent's audio (--record), a barge-in when due. */
  watch(conn: WsConnection, t: SimTurn, spoken: number) {
    const after = this.o.mode === 'voice' ? this.plan.scenario.interruptAfter : undefined;
    let bytes = 0;
    let barged = false;
    return {
      onEvent: (ev: ServerEvent): boolean => {
        if (ev.type === 'error' && this.cancelSent && ev.error?.code === 'response_cancel_not_active') return true;
        const audio = isAudioDelta(ev.type) && typeof ev.delta === 'string';
        if (t.latency_ms === undefined && (audio || (this.o.mode === 'text' && isTranscriptDelta(ev.type))))
          t.latency_ms = Math.round(performance.now() - spoken);
        if (!audio) return false;
        const pcm = Buffer.from(ev.delta as string, 'base64');
        bytes += pcm.length;
        if (this.o.record) this.audio.agent.push(pcm);
        if (after !== undefined && !barged && bytes >= after * PCM_BYTES_PER_SECOND) {
          barged = this.cancelSent = true;
          conn.send({ type: 'response.cancel' });
        }
        return false;
      },
      cancelledByUs: () => barged,
    };
  }

  async answer(conn: WsConnection, calls: ToolCall[], t: SimTurn): Promise<void> {
    for (const call of calls) {
      await answerCall(call, this.plan.scenario, { ...this.o, signal: this.o.signal });
      if (call.unanswered)
        this.failures.push(
          `the agent called ${call.name}, which has no result in this scenario: add tools.${call.name} or pass ` +
            `--tool-cmd ${call.name}=COMMAND`,
        );
      t.tool_calls.push({ name: call.name, arguments: call.arguments, result: call.result });
      if (call.name === END_CALL_TOOL) this.endedBy = 'agent';
      sendToolResult(conn, call);
    }
    conn.send({ type: 'response.create' });
  }

  /** neither side has ended the call */
  open(): boolean {
    return this.endedBy === 'turn_limit';
  }

  async converse(): Promise<void> {
    let conn: WsConnection | undefined;
    try {
      conn = await this.o.connect();
      await configure(conn, this.o.session, []);
      for (let i = 0; i < this.plan.scenario.maxTurns && this.open(); i++) {
        const said = await this.callerSays(i === 0);
        if (said === undefined) break;
        this.turns.push(await this.turn(conn, said));
      }
    } finally {
      conn?.close(1000, 'simulated call done');
    }
  }

  async judge(): Promise<Verdict[]> {
    const s = this.plan.scenario;
    const tools = this.turns.flatMap((t) => t.tool_calls);
    const body = judgeRequest(
      s,
      { lines: this.lines, tools, endedBy: this.endedBy },
      { model: this.o.judgeModel, maxTokens: this.o.judgeMaxTokens, seed: this.seed(7) },
    );
    const got = await verdicts(await this.chat(body), s.criteria);
    if (typeof got === 'string') {
      this.failures.push(got);
      return [];
    }
    for (const v of got) if (v.verdict !== 'pass') this.failures.push(`criterion failed: ${v.criterion}: ${v.reason}`);
    return got;
  }
}

/** Run one call to its end and judge it; throws only when the run must stop (Ctrl-C, budget.daily refused). */
export async function simulateCall(plan: CallPlan, o: SimOptions): Promise<CallRecord> {
  const started = performance.now();
  const call = new Call(plan, o);
  const s = plan.scenario;
  let judged: Verdict[] = [];
  try {
    await call.converse();
    judged = await call.judge();
  } catch (err) {
    // Ctrl-C, and budget.daily's refusal: the run stops there (a money refusal is no failure of the agent)
    if (o.signal.aborted || err instanceof BudgetError) throw err;
    call.endedBy = 'failed';
    // an API error's status and request id with its message (a judge's HTTP 500 is not the agent's failure)
    call.failures.push(`the call failed: ${describeError(err)}`);
  }
  const figures = call.turns.flatMap((t) => (t.latency_ms === undefined ? [] : [t.latency_ms]));
  call.failures.push(...latencyFailures(figures, s.latency));
  return {
    scenario: s.name,
    file: s.file,
    run: plan.run,
    mode: o.mode,
    passed: call.failures.length === 0,
    ended_by: call.endedBy,
    turns: call.turns,
    ...(call.goodbye !== undefined ? { caller_goodbye: call.goodbye } : {}),
    verdicts: judged,
    failures: call.failures,
    latency: { p50_ms: percentile(figures, 50), p95_ms: percentile(figures, 95), budget: s.latency },
    cost_usd: call.cost,
    duration_ms: Math.round(performance.now() - started),
    ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
    ...(o.record ? { audio: call.audio } : {}),
  };
}
