// WS /v1/realtime: realtime voice sessions (../realtime/realtime-session.ts), including sessions on a
// simulated inbound SIP call (`?call_id=`), where the emulator plays the caller. Admin: GET/DELETE
// /_emulator/realtime lists what each session saw (append times, response audio times) for tests.
import type { WebSocket } from 'ws';
import { endCall } from '../voice/calls.js';
import type { Backend } from '../state/backend.js';
import { agents } from '../voice/agents.js';
import { clearRealtimeLogs, realtimeLogs, type RealtimeSessionLog } from '../realtime/realtime-log.js';
import { requestCheckerNow } from '../http/request-check.js';
import { findVoice } from '../voice/voices.js';
import { EmulatedRealtimeSession, REALTIME_MODELS, REALTIME_REASONING_EFFORTS } from '../realtime/realtime-session.js';
import type { EmuRequest, Router } from '../http/router.js';

type Json = Record<string, any>;

interface CallRecord {
  call_id: string;
  status: 'active' | 'ended' | string;
  team_id?: string;
  agent_id?: string | null;
  /** what the simulated caller says, one turn each (emulator-only; a default line otherwise) */
  caller_script?: string | string[];
  [k: string]: unknown;
}

export const DEFAULT_CALLER_LINE = 'Hello, I am calling about my order.';

export function register(router: Router): void {
  router.ws('/v1/realtime', (ws, req, core) => openSession(ws, req, core));
  router.get('/_emulator/realtime', (_req, res, core) => res.json(200, { sessions: realtimeLogs(core) }), {
    auth: false,
  });
  router.delete(
    '/_emulator/realtime',
    (_req, res, core) => {
      clearRealtimeLogs(core);
      res.json(200, { cleared: true });
    },
    { auth: false },
  );
}

/** The client secret a connection authenticated with, if any. */
function clientSecretOf(req: EmuRequest): string | undefined {
  const proto = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .find((p) => p.startsWith('svc-client-secret.'));
  if (proto) return proto.slice('svc-client-secret.'.length);
  const m = /^Bearer\s+(svc-cs-\S+)/.exec(String(req.headers.authorization ?? ''));
  return m?.[1];
}

function refuse(ws: WebSocket, type: string, code: string, message: string): void {
  ws.send(JSON.stringify({ type: 'error', event_id: `event_refused`, error: { type, code, message } }));
  ws.close(1008, message.slice(0, 120));
}

function openSession(ws: WebSocket, req: EmuRequest, core: Backend): void {
  const opening = acceptedOpening(ws, req, core);
  if (!opening) return;
  const { callId, call, model, effort } = opening;
  const initial = call?.agent_id ? (agentSession(core, call.agent_id) ?? opening.initial) : opening.initial;
  const log = newSessionLog(core, callId, model, effort);
  const findTeamVoice = (id: string) => findVoice(core, id, req.key?.team_id)?.voice_id;
  const session = new EmulatedRealtimeSession(ws, core, {
    model,
    reasoningEffort: effort,
    callId,
    initial,
    log,
    findVoice: findTeamVoice,
    checkEvent: (ev) => requestCheckerNow()?.wsEvent('/v1/realtime', ev) ?? [],
    strict: core.strict,
  });
  const timers: NodeJS.Timeout[] = [];
  const cleanups: (() => void)[] = [];
  const onClose = () => session.close(1001, 'emulator closing');
  core.once('close', onClose);
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      session.send({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          code: 'invalid_event',
          message: 'Binary frames are not accepted: send audio as base64 in input_audio_buffer.append',
        },
      });
      return;
    }
    try {
      session.handleText(data.toString());
    } catch (err) {
      // a bug must not take the whole emulator down: report it on this session only
      session.send({
        type: 'error',
        error: { type: 'server_error', code: 'internal', message: `emulator failure: ${(err as Error).message}` },
      });
    }
  });
  ws.on('close', () => {
    session.markClosed();
    log.closed_at = Date.now();
    timers.forEach(clearInterval);
    for (const cleanup of cleanups) cleanup();
    core.off('close', onClose);
  });
  session.start();
  if (call && callId) {
    runCaller(session, core, callId, call, timers);
    cleanups.push(hearTriggers(session, core, callId));
  }
}

interface Opening {
  callId: string | undefined;
  /** the active SIP call the session joins */
  call: CallRecord | undefined;
  model: string;
  effort: string;
  /** session fields the client secret carries */
  initial: Json | undefined;
}

/**
 * What the connection asks for (model, reasoning effort, a SIP call) when the emulator accepts it; undefined when
 * refused (an error event, then the socket closed).
 */
function acceptedOpening(ws: WebSocket, req: EmuRequest, core: Backend): Opening | undefined {
  const callId = req.query.get('call_id') ?? undefined;
  const secret = clientSecretOf(req);
  const model = callId ? 'voice-latest' : (req.query.get('model') ?? 'voice-latest');
  const effort = req.query.get('reasoning.effort') ?? req.query.get('reasoning_effort') ?? 'high';
  if (!callId && !(REALTIME_MODELS as readonly string[]).includes(model)) {
    refuse(
      ws,
      'invalid_request_error',
      'invalid_value',
      `Invalid value for \`model\`: ${model}; must be one of ${REALTIME_MODELS.join(', ')}`,
    );
    return undefined;
  }
  if (!(REALTIME_REASONING_EFFORTS as readonly string[]).includes(effort)) {
    refuse(
      ws,
      'invalid_request_error',
      'invalid_value',
      `Invalid value for \`reasoning.effort\`: ${effort}; must be high or none`,
    );
    return undefined;
  }
  let call: CallRecord | undefined;
  if (callId !== undefined) {
    if (secret) {
      refuse(
        ws,
        'invalid_request_error',
        'permission_denied',
        'Sessions on a SIP call (call_id) need an API key; client secrets are not accepted',
      );
      return undefined;
    }
    call = core.store.collection<CallRecord>('calls').get(callId);
    if (call?.status !== 'active' || (call.team_id !== undefined && call.team_id !== req.key?.team_id)) {
      refuse(ws, 'invalid_request_error', 'not_found', `Call ${callId} was not found or is not active`);
      return undefined;
    }
  }
  const initial = secret ? core.store.collection<{ session?: Json }>('client_secrets').get(secret)?.session : undefined;
  return { callId, call, model, effort, initial };
}

/** A call to a number assigned to an agent starts with the agent's configuration (undefined: no such agent). */
function agentSession(core: Backend, agentId: string): Json | undefined {
  const a = agents(core).get(agentId) as Json | undefined;
  if (!a) return undefined;
  const initial: Json = {};
  if (a.instructions) initial.instructions = a.instructions;
  if (a.voice?.voice_id) initial.voice = a.voice.voice_id;
  if (Array.isArray(a.tools)) initial.tools = a.tools;
  if (a.voice && (a.voice.vad_threshold !== undefined || a.voice.vad_silence_duration_ms !== undefined)) {
    initial.turn_detection = {
      type: 'server_vad',
      ...(a.voice.vad_threshold !== undefined ? { threshold: a.voice.vad_threshold } : {}),
      ...(a.voice.vad_silence_duration_ms !== undefined
        ? { silence_duration_ms: a.voice.vad_silence_duration_ms }
        : {}),
    };
  }
  return initial;
}

/** The session's entry in the admin log (GET /_emulator/realtime); a long-running emulator keeps the newest 200. */
function newSessionLog(core: Backend, callId: string | undefined, model: string, effort: string): RealtimeSessionLog {
  const log: RealtimeSessionLog = {
    session_id: '',
    ...(callId ? { call_id: callId } : {}),
    model,
    reasoning_effort: effort,
    opened_at: Date.now(),
    appends: [],
    input_audio_ms: 0,
    client_events: [],
    session: {},
    transcripts: [],
    responses: [],
    function_outputs: [],
    truncations: [],
  };
  const logs = realtimeLogs(core);
  logs.push(log);
  if (logs.length > 200) logs.splice(0, logs.length - 200);
  return log;
}

/**
 * Mid-call triggers (`svc emulator trigger caller-says|caller-hangup CALL_ID`): the caller says a line now, or
 * hangs up now. Returns what stops listening.
 */
function hearTriggers(session: EmulatedRealtimeSession, core: Backend, callId: string): () => void {
  const says = (text: string) => {
    if (!session.isClosed) session.simulateCaller(text);
  };
  const hangup = () => session.close(1000, 'call ended');
  core.on(`caller.says:${callId}`, says);
  core.on(`caller.hangup:${callId}`, hangup);
  return () => {
    core.off(`caller.says:${callId}`, says);
    core.off(`caller.hangup:${callId}`, hangup);
  };
}

/** The simulated caller of a SIP call: says its lines one turn at a time, then hangs up. */
function runCaller(
  session: EmulatedRealtimeSession,
  core: Backend,
  callId: string,
  call: CallRecord,
  timers: NodeJS.Timeout[],
): void {
  const calls = core.store.collection<CallRecord>('calls');
  const script = call.caller_script;
  const lines = (Array.isArray(script) ? script : typeof script === 'string' ? [script] : [DEFAULT_CALLER_LINE]).filter(
    (l) => typeof l === 'string' && l.trim(),
  );
  let next = 0;
  let started = false;
  const say = () => {
    if (session.isClosed || session.responding || session.awaitingFunctionOutput) return;
    const current = calls.get(callId);
    if (current?.status !== 'active') return;
    if (next < lines.length) {
      session.simulateCaller(lines[next++]!);
      return;
    }
    // the caller has said everything and heard the answer: hang up
    endCall(core, callId, 'caller');
    session.close(1000, 'call ended');
  };
  session.onResponseDone = () => {
    if (started) setTimeout(say, core.settings.realtimeCallerPauseMs ?? 200);
  };
  // The caller speaks once the client has configured the session (or after a short wait without one).
  const begin = () => {
    if (started) return;
    started = true;
    say();
  };
  const origHandle = session.handleText.bind(session);
  session.handleText = (text: string) => {
    origHandle(text);
    if (!started && text.includes('"session.update"')) setTimeout(begin, 50);
  };
  timers.push(setTimeout(begin, core.settings.realtimeCallerWaitMs ?? 1000));
  // The call can end from elsewhere (svc calls hangup): the session ends with it.
  timers.push(
    setInterval(() => {
      const current = calls.get(callId);
      if (!session.isClosed && current?.status !== 'active') session.close(1000, 'call ended');
    }, 200),
  );
}
