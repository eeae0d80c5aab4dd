// What `svc realtime talk`, `svc calls join` and `svc calls listen --join` share: the voice flags, their
// checks (before anything is sent), building the session configuration (agent + flags), opening the audio
// ends, and running one session to its end.
import { outputPath } from '../core/atomic-file.js';
import { existsSync, statSync } from 'node:fs';
import type { AudioSink } from '../audio/sink.js';
import type { AudioSource } from '../audio/source.js';
import { codecFromPath, unwritableAudioExtension } from 'svc-formats/audio-format';
import {
  AUDIO_FORMATS,
  DEPRECATED_MODELS,
  REALTIME_MODELS,
  REALTIME_REASONING_EFFORTS,
  SESSION_LIMITS,
  connectRealtime,
  sessionFromAgent,
  wireFormat,
  type AudioFormatName,
  type SessionUpdate,
} from '../endpoints/realtime.js';
import { voiceOption } from '../endpoints/voices.js';
import type { OptionSpec } from '../core/option-spec.js';
import type { Context } from '../runtime/context.js';
import { APPROVE_FLAG, AUDIO, MCP_FLAG, forceFlags, modelFlag, toolCmdFlag, toolFlag } from '../cmdutil/flag-sets.js';
import { checkApprovable } from '../cmdutil/approve.js';
import { toolCmdParser, type ToolCommand } from '../cmdutil/local-tools.js';
import { fail, maxLength, number, integer, oneOf, require } from '../core/validate.js';
import { PushToTalkKeys, attachKeys } from './keys.js';
import { SessionInstruments } from './instruments.js';
import { Playback } from './playback.js';
import { RealtimeSession, type SessionResult, type TurnMode } from './session.js';
import { sessionTools, toolFileParser } from './tools.js';
import type { VoiceApproval } from './approve.js';
import type { McpServers } from '../mcp/client.js';
import { TranscriptView, type TranscriptLabels, type TranscriptOut } from './transcript.js';
import type { EchoPath } from '../audio/echo-canceller.js';
import { cancelledSource, echoCancelWanted, openEchoPath, referenceSink } from './echo.js';

export interface VoiceFlags {
  voice?: string;
  instructions?: string;
  agent?: string;
  tool?: Record<string, any>[];
  toolCmd?: ToolCommand[];
  mcp?: string[];
  approve?: boolean;
  toolTimeout?: number;
  input?: string;
  output?: string;
  inputDevice?: string;
  outputDevice?: string;
  audioFormat?: AudioFormatName;
  duplex?: boolean;
  /** --aec / --no-aec (undefined: on in full duplex with the microphone and the speaker) */
  aec?: boolean;
  pushToTalk?: boolean;
  vadThreshold?: number;
  vadSilenceMs?: number;
  model?: string;
  reasoningEffort?: string;
  latencyLog?: string;
  record?: string;
  force?: boolean;
}

const { vadThreshold, vadSilenceMs } = SESSION_LIMITS;

/** Flags of the session itself (every voice command). */
export const SESSION_OPTIONS = [
  {
    flags: '--agent <id>',
    description: 'configure the session from a stored agent (instructions, voice, tools, VAD); flags given too win',
  },
  voiceOption('--voice <voice>', (voices) => `voice: ${voices.join(', ')}, or a custom voice id`),
  {
    flags: '--instructions <text>',
    description: `system instructions of the session (at most ${SESSION_LIMITS.instructions} characters)`,
    parse: maxLength(SESSION_LIMITS.instructions),
  },
  { ...toolFlag('function tool(s) from a JSON file (repeatable); flat or nested form'), parse: toolFileParser },
  toolCmdFlag(toolCmdParser),
  MCP_FLAG,
  APPROVE_FLAG,
  {
    flags: '--tool-timeout <seconds>',
    description: 'time limit of one tool command (1-600, default 60)',
    parse: number({ min: 1, max: 600 }),
  },
  {
    flags: '--vad-threshold <n>',
    description:
      `server VAD threshold, ${vadThreshold.minimum.toFixed(1)} to ${vadThreshold.maximum.toFixed(1)} ` +
      '(lower is more sensitive)',
    parse: number({ min: vadThreshold.minimum, max: vadThreshold.maximum }),
  },
  {
    flags: '--vad-silence-ms <ms>',
    description: `silence that ends a turn, ${vadSilenceMs.minimum} to ${vadSilenceMs.maximum} ms`,
    parse: integer({ min: vadSilenceMs.minimum, max: vadSilenceMs.maximum }),
  },
  {
    flags: '--audio-format <format>',
    description: 'audio on the wire: pcm (24 kHz pcm16, default), pcmu (G.711 mu-law 8 kHz), pcma (G.711 A-law 8 kHz)',
    parse: oneOf(AUDIO_FORMATS),
    choices: AUDIO_FORMATS,
  },
  AUDIO.inputDevice,
  AUDIO.outputDevice,
] as const satisfies readonly OptionSpec[];

/** Echo cancellation on the microphone's path (realtime talk; calls join with --input mic --output speaker). */
export const AEC_OPTIONS = [
  {
    flags: '--aec',
    description:
      "cancel the speaker's echo in the microphone (speexdsp's echo canceller); on by default with --duplex, " +
      'so that open speakers need no headphones',
  },
  { flags: '--no-aec', description: 'no echo cancellation (headphones, or a device that cancels echo itself)' },
] as const satisfies readonly OptionSpec[];

/** Flags of `svc realtime talk` only. */
export const TALK_OPTIONS = [
  modelFlag(`realtime model: ${REALTIME_MODELS.join(', ')} (voice-2.0 is deprecated)`, {
    parse: oneOf(REALTIME_MODELS),
    choices: REALTIME_MODELS,
  }),
  {
    flags: '--reasoning-effort <effort>',
    description: 'high (default) or none',
    parse: oneOf(REALTIME_REASONING_EFFORTS),
    choices: REALTIME_REASONING_EFFORTS,
  },
  {
    flags: '--input <mic|file|->',
    description:
      'audio to send: the microphone (default), a file (WAV, MP3 or raw in the session format), or - for stdin',
  },
  {
    flags: '--output <speaker|file|->',
    description:
      'where the answers play: the speaker (default), a file (WAV unless the extension says ' +
      '.pcm/.ulaw/.alaw/.mp3), or - for stdout (WAV)',
    parse: outputPath({ pass: ['speaker'] }),
  },
  {
    flags: '--duplex',
    description:
      'keep the microphone open while the assistant speaks; talking over it stops playback (barge-in); the ' +
      "speaker's echo is cancelled (--aec), so open speakers work",
  },
  { flags: '--push-to-talk', description: 'on a terminal: hold space (or tap to toggle) to talk; no server VAD' },
  ...AEC_OPTIONS,
  {
    flags: '--latency-log <file>',
    description: 'write the latencies of every turn to FILE, one JSON line each (see docs/realtime.md)',
    parse: outputPath(),
  },
  {
    flags: '--record <file>',
    description: 'record both sides to a stereo WAV file, time-aligned: you on the left, the assistant on the right',
    parse: outputPath(),
  },
  ...forceFlags('an existing --output, --record or --latency-log file'),
] as const satisfies readonly OptionSpec[];

/** Checks that span flags; throws a UsageError (exit 2) before anything is sent. */
export function checkVoiceFlags(ctx: Context, f: VoiceFlags): void {
  const input = f.input;
  if (input !== undefined && input !== 'mic' && input !== '-') {
    require(existsSync(input) &&
      statSync(input).isFile(), '--input', input, 'mic, - (stdin) or an existing audio file');
  }
  const output = f.output;
  if (output !== undefined && output !== 'speaker' && output !== '-') {
    require(!existsSync(output) ||
      !statSync(output).isDirectory(), '--output', output, 'speaker, - (stdout) or a file path (not a directory)');
    const ext = unwritableAudioExtension(output);
    require(ext ===
      undefined, '--output', output, `a file svc can write: .wav (default), .mp3, .pcm/.raw, .ulaw, .alaw ` +
      `(${ext} is not written)`);
  }
  if (f.record !== undefined) {
    const codec = codecFromPath(f.record);
    require(codec === undefined ||
      codec === 'wav', '--record', f.record, 'a .wav file (the recording is a stereo WAV)');
  }
  if (f.pushToTalk) {
    require(!f.duplex, '--push-to-talk', 'with --duplex', 'one of --push-to-talk or --duplex');
    require(input === 'mic', '--push-to-talk', `with --input ${input}`, 'the microphone as input (--input mic)');
    require(!!ctx.streams.stdin
      .isTTY, '--push-to-talk', 'without a terminal', 'a terminal on stdin (space is the talk key)');
  }
  if (f.aec) {
    const what = `with --input ${input ?? '(none)'} --output ${output ?? '(none)'}`;
    require(input === 'mic' &&
      output === 'speaker', '--aec', what, 'the microphone and the speaker (--input mic --output speaker)');
  }
  if (input === '-' && output === '-') {
    // allowed: audio in from stdin, out to stdout; the transcript goes to stderr
  }
  checkDeviceFlags(f);
  if (f.approve) checkApproveFlag(ctx, f);
  const names = new Set<string>();
  for (const t of f.tool ?? []) {
    require(!names.has(t.name), '--tool', t.name, 'tool names that are unique');
    names.add(t.name);
  }
  const maxTools = SESSION_LIMITS.tools;
  require((f.tool?.length ?? 0) <= maxTools, '--tool', `${f.tool?.length} tools`, `at most ${maxTools} tools`);
}

/**
 * A device flag is for the device it names: --input-device with the microphone, --output-device with the speaker
 * (calls join uses neither unless --input / --output ask for them). Otherwise it would be ignored: exit 2.
 */
function checkDeviceFlags(f: VoiceFlags): void {
  if (f.inputDevice !== undefined && f.input !== 'mic') {
    const input = f.input === undefined ? 'no --input was given' : `--input is ${f.input}`;
    fail('--input-device', f.inputDevice, `only with the microphone (--input mic); ${input}`);
  }
  if (f.outputDevice !== undefined && f.output !== 'speaker') {
    const output = f.output === undefined ? 'no --output was given' : `--output is ${f.output}`;
    fail('--output-device', f.outputDevice, `only when the audio plays on the speaker (--output speaker); ${output}`);
  }
}

/**
 * --approve asks on the terminal (realtime/approve.ts): only with tools that run here, and only where a terminal can
 * answer: not with --no-input or a stdin that is no terminal, and not with --input - (stdin carries the audio).
 */
function checkApproveFlag(ctx: Context, f: VoiceFlags): void {
  require(!!(f.toolCmd?.length || f.mcp?.length), '--approve', 'set', 'only together with --tool-cmd or --mcp');
  const why = 'a terminal to ask on, and stdin carries the audio: use --input mic or a file';
  require(f.input !== '-', '--approve', 'with --input -', why);
  checkApprovable(ctx);
}

export interface RunVoiceOptions {
  callId?: string;
  labels: TranscriptLabels;
  /** where the transcript goes (default: stdout, or stderr when stdout carries audio) */
  transcriptTo?: TranscriptOut;
  /** take Ctrl-C over (false when a caller like `calls listen` owns it) */
  manageInterrupt?: boolean;
  /** stops the session when aborted */
  stop?: AbortSignal;
  /** prefix for stderr notes (several calls at once) */
  notePrefix?: string;
}

/** Build the session.update: the agent's settings, then the flags. */
export async function buildSessionUpdate(ctx: Context, f: VoiceFlags, mode: TurnMode): Promise<SessionUpdate> {
  let base: SessionUpdate = {};
  if (f.agent) {
    const { getAgent } = await import('../endpoints/agents.js');
    const agent = await getAgent(await ctx.http(), f.agent);
    base = sessionFromAgent(agent);
  }
  const fmt = wireFormat(f.audioFormat ?? 'pcm').format;
  const update: SessionUpdate = { ...base, audio: { input: { format: fmt }, output: { format: fmt } } };
  if (f.instructions !== undefined) update.instructions = f.instructions;
  if (f.voice !== undefined) update.voice = f.voice;
  if (mode === 'push-to-talk') update.turn_detection = null;
  else if (f.vadThreshold !== undefined || f.vadSilenceMs !== undefined || base.turn_detection) {
    update.turn_detection = { ...(base.turn_detection ?? {}), type: 'server_vad' };
    if (f.vadThreshold !== undefined) update.turn_detection.threshold = f.vadThreshold;
    if (f.vadSilenceMs !== undefined) update.turn_detection.silence_duration_ms = f.vadSilenceMs;
  } else update.turn_detection = { type: 'server_vad' };
  const tools = sessionTools(base.tools ?? [], f.tool ?? [], f.toolCmd ?? []);
  if (tools.length) update.tools = tools;
  else delete update.tools;
  return update;
}

/** --mcp: the servers started before the session, their tools added to the session's (stopped when it ends). */
export async function runVoiceSession(ctx: Context, f: VoiceFlags, o: RunVoiceOptions): Promise<number> {
  const approval = f.approve
    ? new (await import('./approve.js')).VoiceApproval(ctx.streams, !!f.pushToTalk)
    : undefined;
  if (!f.mcp?.length) return voiceSession(ctx, f, o, undefined, approval);
  const { startServers } = await import('../mcp/client.js');
  const mcp = await startServers(ctx, f.mcp, [
    ...(f.tool ?? []).map((t) => String(t.name)),
    ...(f.toolCmd ?? []).map((t) => t.name),
  ]);
  try {
    return await voiceSession(ctx, f, o, mcp, approval);
  } finally {
    await mcp.close();
  }
}

async function voiceSession(
  ctx: Context,
  f: VoiceFlags,
  o: RunVoiceOptions,
  mcp: McpServers | undefined,
  approval: VoiceApproval | undefined,
): Promise<number> {
  const mode: TurnMode = f.pushToTalk ? 'push-to-talk' : f.duplex ? 'duplex' : 'half-duplex';
  const prefix = o.notePrefix ?? '';
  if (f.model && DEPRECATED_MODELS.includes(f.model))
    ctx.out.warn(`${prefix}the model ${f.model} is deprecated; use voice-latest or voice-3.0`);
  const update = withMcpTools(await buildSessionUpdate(ctx, f, mode), mcp);
  const wire = wireFormat(f.audioFormat ?? 'pcm');
  const { source, playback, echo } = await openLocalAudio(ctx, f, wire);
  let inst: SessionInstruments;
  try {
    inst = await SessionInstruments.open(ctx, f, playback, wire.sampleRate);
    inst.echo = echo;
  } catch (err) {
    await source?.close();
    await playback.abort();
    throw err;
  }
  // stdout through the Output's writer: a transcript that cannot be written ends the session (exit 1, the reason said)
  const transcriptTo = o.transcriptTo ?? (f.output === '-' ? ctx.streams.stderr : ctx.out.stdoutWriter);
  const view = new TranscriptView(inst.transcriptOut(transcriptTo), { json: ctx.out.json, labels: o.labels });
  inst.view = view;
  const commands = new Map((f.toolCmd ?? []).map((t) => [t.name, t.command]));

  let conn;
  try {
    conn = await connectRealtime((path, query) => ctx.ws(path, query), {
      model: f.model,
      reasoningEffort: f.reasoningEffort,
      callId: o.callId,
    });
  } catch (err) {
    await source?.close();
    await playback.abort();
    await inst.finish(false);
    throw err;
  }
  const what = o.callId ? `call ${o.callId}` : 'session';
  const how = localAudio(f, mode, !!o.callId);
  const session = new RealtimeSession({
    conn,
    update,
    source,
    inputEncoding: wire.encoding,
    playback,
    view,
    mode,
    commands,
    mcp,
    approve: approval?.approve,
    endWhenInputEnds: !!f.input && f.input !== 'mic',
    call: !!o.callId,
    note: (t) => inst.around(() => ctx.out.info(`${prefix}${t}`)),
    warn: (t) => inst.around(() => ctx.out.warn(`${prefix}${t}`)),
    toolTimeoutMs: f.toolTimeout !== undefined ? f.toolTimeout * 1000 : undefined,
    signal: ctx.signal,
    observers: inst.observers,
    onReady: () => {
      ctx.out.info(`${prefix}connected to ${what} (${how}; Ctrl-C ends)`);
      inst.start(session);
    },
  });
  let result: SessionResult;
  try {
    result = await runToEnd(ctx, session, o, { mode, source, playback, prefix, inst, approval });
  } catch (err) {
    await inst.finish(false);
    throw err;
  }
  await inst.finish(true);
  const why = endReason(result);
  ctx.out.info(
    `${prefix}${what} ended (${why}; ${session.stats.responses} answer${session.stats.responses === 1 ? '' : 's'})`,
  );
  return 0;
}

/** The session's tools with the MCP servers' added, as realtime function tools. */
function withMcpTools<U extends { tools?: unknown[] }>(update: U, mcp: McpServers | undefined): U {
  if (!mcp) return update;
  const offered = mcp.tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
  }));
  update.tools = [...(update.tools ?? []), ...offered];
  return update;
}

/** The input (--input: microphone, file or stdin) and the output (--output) of the session, either optional. */
async function openLocalAudio(
  ctx: Context,
  f: VoiceFlags,
  wire: ReturnType<typeof wireFormat>,
): Promise<{ source: AudioSource | undefined; playback: Playback; echo?: EchoPath }> {
  let source: AudioSource | undefined;
  let sink: AudioSink | undefined;
  if (f.input) {
    const { openSource } = await import('../audio/source.js');
    const byName = f.input !== 'mic' && f.input !== '-' ? codecFromPath(f.input) : undefined;
    // the microphone records PCM whatever the wire's format; headerless files and stdin are in the wire's format
    const encoding =
      f.input === 'mic' ? 'pcm' : byName === 'mulaw' || byName === 'alaw' || byName === 'pcm' ? byName : wire.encoding;
    source = await openSource(f.input, {
      sampleRate: wire.sampleRate,
      channels: 1,
      encoding: byName === 'wav' || byName === 'mp3' ? undefined : encoding,
      realtime: f.input !== 'mic',
      device: f.inputDevice,
      stdin: ctx.streams.stdin,
      env: ctx.env,
      signal: ctx.signal,
    });
  }
  try {
    if (f.output) {
      const { openSink } = await import('../audio/sink.js');
      const format = { sampleRate: wire.sampleRate, channels: 1 };
      const replace = !!f.force;
      sink = await openSink(f.output, { format, device: f.outputDevice, env: ctx.env, stdout: ctx.out, replace });
    }
  } catch (err) {
    await source?.close();
    throw err;
  }
  let echo: EchoPath | undefined;
  if (source && sink?.kind === 'speaker' && echoCancelWanted(f)) {
    // the speaker's echo taken out of the microphone before it is sent: the playback is the reference
    try {
      echo = await openEchoPath(wire.sampleRate);
      source = cancelledSource(source, echo);
      sink = referenceSink(sink, echo);
    } catch (err) {
      await source.close();
      await sink.abort();
      throw err;
    }
  }
  return { source, playback: new Playback(sink, wire.encoding, wire.sampleRate), echo };
}

/**
 * Run the session until it ends: Ctrl-C (when this run owns it) and `o.stop` end it, so do the push-to-talk keys;
 * then the keys, the handler and the input are let go, and the output finished (abandoned when the session failed).
 */
async function runToEnd(
  ctx: Context,
  session: RealtimeSession,
  o: RunVoiceOptions,
  local: {
    mode: TurnMode;
    source: AudioSource | undefined;
    playback: Playback;
    prefix: string;
    inst: SessionInstruments;
    approval: VoiceApproval | undefined;
  },
): Promise<SessionResult> {
  let interrupts = 0;
  if (o.manageInterrupt !== false) {
    ctx.setInterruptHandler(() => {
      interrupts++;
      if (interrupts === 1) {
        local.approval?.end();
        local.inst.around(() => ctx.out.info(`${local.prefix}(ending the session; Ctrl-C again to quit at once)`));
        session.stop();
      } else ctx.setInterruptHandler(undefined);
    });
  }
  o.stop?.addEventListener('abort', () => session.stop(), { once: true });
  let detachKeys: (() => void) | undefined;
  if (local.mode === 'push-to-talk') {
    const keys = new PushToTalkKeys(session);
    detachKeys = attachKeys(ctx.streams.stdin, keys, () => session.stop(), local.approval?.keys);
  }
  if (local.approval) local.approval.status = local.inst.status;
  let result: SessionResult | undefined;
  try {
    result = await session.run();
  } finally {
    local.approval?.end();
    detachKeys?.();
    if (o.manageInterrupt !== false) ctx.setInterruptHandler(undefined);
    await local.source?.close();
    // a failed session leaves an existing --output FILE as it was
    if (result) await local.playback.end();
    else await local.playback.abort();
  }
  return result;
}

/** Why the session ended, for the last note. */
function endReason(result: SessionResult): string {
  return result.reason === 'input-ended'
    ? 'the input ended'
    : result.reason === 'stopped'
      ? 'stopped'
      : result.closeReason
        ? `the server closed it: ${result.closeReason}`
        : 'the server closed it';
}

/** What the local audio does, for the "connected" note: the input and the output, or that there is none. */
function localAudio(f: VoiceFlags, mode: TurnMode, call: boolean): string {
  const parts: string[] = [];
  if (f.input === 'mic') {
    parts.push(
      mode === 'push-to-talk'
        ? 'hold space to talk, q to quit'
        : mode === 'duplex'
          ? `duplex, talk any time${echoCancelWanted(f) ? ' (echo cancelled)' : ''}`
          : 'half-duplex: the microphone is muted while the assistant speaks',
    );
  } else if (f.input !== undefined) {
    const what = f.input === '-' ? 'stdin' : f.input;
    parts.push(`sending ${what} at real time${mode === 'half-duplex' ? ' (not while the assistant speaks)' : ''}`);
  }
  const whose = call ? "the agent's audio" : 'the answers';
  if (f.output === 'speaker') parts.push(`${whose} on the speaker`);
  else if (f.output === '-') parts.push(`${whose} to stdout`);
  else if (f.output !== undefined) parts.push(`${whose} to ${f.output}`);
  return parts.length ? parts.join('; ') : 'no local audio';
}
