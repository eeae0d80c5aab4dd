// A WebSocket session's record in the request log (method WS): which events went each way, how it ended. The
// record gets its status when the session is over — 101 for a session that was upgraded, the refusal's status,
// or 0 for a connection cut before any reply — so that `svc emulator requests --follow`, which prints finished
// requests in order, goes on past it.
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'ws';
import type { LoggedRequest, WsSessionLog } from '../state/request-log.js';

const BINARY = '(binary)';

/** The `type` of a JSON event, read from its start (audio events are large: they are not parsed whole). */
function eventType(data: unknown, isBinary: boolean): string {
  if (isBinary || typeof data !== 'string') {
    const text = Buffer.isBuffer(data) && !isBinary ? data.subarray(0, 200).toString('utf8') : undefined;
    if (text === undefined) return BINARY;
    return /"type"\s*:\s*"([^"]{1,80})"/.exec(text)?.[1] ?? '(text)';
  }
  return /"type"\s*:\s*"([^"]{1,80})"/.exec(data.slice(0, 200))?.[1] ?? '(text)';
}

function sessionIdOf(data: unknown): string | undefined {
  if (typeof data !== 'string') return undefined;
  return /"(?:session_id|id)"\s*:\s*"((?:sess|stt|tts)[^"]{0,80})"/.exec(data.slice(0, 400))?.[1];
}

const count = (m: Record<string, number>, type: string) => {
  m[type] = (m[type] ?? 0) + 1;
};

/**
 * The request log's record of one upgrade, from the request to its end: refused (the refusal's status), cut before
 * any reply (0, when the socket closes first), or a session (101 when it closes, with its events each way).
 */
export class UpgradeRecord {
  private readonly started = performance.now();
  private upgraded = false;

  constructor(
    private readonly entry: LoggedRequest,
    socket: Socket,
  ) {
    socket.once('close', () => {
      if (!this.upgraded) this.end(0);
    });
  }

  /** the upgrade was answered with `status` (a refusal), or the session is over (101) */
  end(status: number): void {
    if (this.entry.status !== undefined) return;
    this.entry.duration_ms = Math.round((performance.now() - this.started) * 10) / 10;
    this.entry.status = status;
  }

  /** Count the session's events each way (before any other wrapper of send), and end the record on close. */
  session(ws: WebSocket): void {
    this.upgraded = true;
    const log: WsSessionLog = { events_in: {}, events_out: {} };
    this.entry.ws = log;
    ws.on('message', (data, isBinary) => count(log.events_in, eventType(data, isBinary)));
    const send = ws.send.bind(ws) as (...args: unknown[]) => void;
    ws.send = ((data: unknown, ...rest: unknown[]) => {
      count(log.events_out, eventType(data, Buffer.isBuffer(data)));
      log.session_id ??= sessionIdOf(data);
      return send(data, ...rest);
    }) as WebSocket['send'];
    ws.once('close', (code, reason) => {
      log.close_code = code;
      const text = reason.toString('utf8');
      if (text) log.close_reason = text;
      this.end(101);
    });
  }
}
