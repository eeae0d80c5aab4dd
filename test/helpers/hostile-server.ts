// A hostile API server for the fault matrix: HTTP, server-sent events and WebSocket on a real loopback socket,
// answering each endpoint svc's fault matrix uses in the well-formed way, unless a fault was planned for that
// request. Faults are chosen per request (`plan('POST /v1/chat/completions', 'stall')`), consumed in order; a
// route without a planned fault answers normally. It imports nothing from src/ (it is an independent oracle).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type HttpFault =
  /** accept the request, never answer */
  | 'silent'
  /** the status line, headers and part of the body, then nothing */
  | 'stall'
  /** part of the body, then the connection is reset */
  | 'reset'
  /** a stream that ends cleanly without its end marker ([DONE], response.completed, message_stop…) */
  | 'no-end'
  /** 200 with text/html and a web page */
  | 'html'
  /** 200 with the right content type and an empty body */
  | 'empty'
  /** 200 with the right content type and a body that is not what the protocol says (bad JSON, non-JSON event) */
  | 'malformed'
  /** 200 with a content type other than the one asked for (JSON to a stream, JSON to audio) */
  | 'wrong-type'
  /** 200 without a length and a body that never ends (a page fetched for -a/-f) */
  | 'endless'
  | { status: number; retryAfter?: string; body?: string };

export type WsFault =
  /** the handshake completes, then nothing is ever sent */
  | 'silent'
  /** the session starts and the answer begins, then nothing */
  | 'stall'
  /** the session starts and the answer begins, then a close with this code (1000 = clean, without end marker) */
  | { close: number }
  /** the answer begins, then the TCP connection is dropped (1006) */
  | 'drop'
  /** the handshake is refused with this status (and Retry-After) */
  | { refuse: number; retryAfter?: string }
  /** the answer begins, then a text frame that is not a JSON object, and nothing more */
  | 'not-json'
  /** the answer begins, then a binary frame the protocol does not have, and nothing more */
  | 'binary';

export type Fault = HttpFault | WsFault;

export interface Hit {
  route: string;
  fault: Fault | 'ok';
  url: string;
}

/** An ID3 header is what the magic check looks at; 20 KB so that `ulimit -f 8` (4 KiB) cuts the write. */
export const MP3_BYTES = Buffer.concat([
  Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'),
  Buffer.alloc(20_000, 0x55),
]);
export const FILE_BYTES = Buffer.alloc(64 * 1024, 0x61);
/** Text the server puts in every answer: the matrix checks that what arrived is kept. */
export const ANSWER = ['Hello', ' from', ' the', ' hostile', ' server.'];

export class HostileServer {
  readonly http: Server;
  readonly wss: WebSocketServer;
  private readonly planned = new Map<string, Fault[]>();
  readonly hits: Hit[] = [];
  private readonly sockets = new Set<Socket>();
  /** text put in answers and errors (the TTY test sends escape sequences through it) */
  answer = ANSWER;
  errorMessage = 'the hostile server refused';
  url = '';
  /** resolves each time a request (or WebSocket) reached the point where a fault holds it */
  private holdWaiters: (() => void)[] = [];
  held = 0;

  constructor() {
    this.http = createServer((req, res) => void this.onRequest(req, res));
    this.http.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.wss = new WebSocketServer({ noServer: true });
    this.http.on('upgrade', (req, socket, head) => {
      const route = `WS ${new URL(req.url ?? '/', 'http://x').pathname}`;
      const next = this.planned.get(route)?.[0];
      if (typeof next === 'object' && 'refuse' in next) {
        this.take(route);
        this.hits.push({ route, fault: next, url: req.url ?? '' });
        const body = JSON.stringify({ error: { message: this.errorMessage } });
        const retry = next.retryAfter !== undefined ? `retry-after: ${next.retryAfter}\r\n` : '';
        socket.end(
          `HTTP/1.1 ${next.refuse} Refused\r\ncontent-type: application/json\r\n${retry}` +
            `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
        return;
      }
      this.wss.handleUpgrade(req, socket as Socket, head, (ws) => this.onSocket(ws, req));
    });
  }

  /** On a free port, or on `port` (a server that comes up where a client was refused before). */
  static async start(port = 0): Promise<HostileServer> {
    const s = new HostileServer();
    await new Promise<void>((resolve) => s.http.listen(port, '127.0.0.1', resolve));
    s.url = `http://127.0.0.1:${(s.http.address() as AddressInfo).port}`;
    return s;
  }

  /** Plan faults for the next requests of `route` ('POST /v1/chat/completions', 'WS /v1/tts'). */
  plan(route: string, ...faults: Fault[]): this {
    this.planned.set(route, [...(this.planned.get(route) ?? []), ...faults]);
    return this;
  }

  /** Wait until a request is being held by a fault (silent, stall): the moment to send a signal. */
  whenHeld(): Promise<void> {
    if (this.held > 0) return Promise.resolve();
    return new Promise((r) => this.holdWaiters.push(r));
  }

  private hold(): void {
    this.held++;
    for (const w of this.holdWaiters.splice(0)) w();
  }

  private take(route: string): Fault | 'ok' {
    const q = this.planned.get(route);
    return q?.length ? q.shift()! : 'ok';
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.http.close(() => r()));
  }

  // ---- HTTP ----

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readBody(req);
    const path = url.pathname.replace(/\/file_[^/]+/, '/{id}');
    const route = `${req.method} ${path}`;
    const fault = this.take(route);
    this.hits.push({ route, fault, url: req.url ?? '' });
    let json: Record<string, unknown> = {};
    try {
      json = body.length && /json/.test(String(req.headers['content-type'])) ? JSON.parse(body.toString()) : {};
    } catch {
      // multipart and others
    }
    const reply = this.normalReply(route, json);
    if (!reply) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${route}` } }));
      return;
    }
    if (fault === 'ok') {
      res.writeHead(200, {
        'content-type': reply.type,
        'content-length': String(Buffer.byteLength(reply.body)),
        'x-request-id': 'req_hostile',
      });
      res.end(reply.body);
      return;
    }
    if (typeof fault === 'object' && 'status' in fault) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': 'req_hostile' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      res
        .writeHead(fault.status, headers)
        .end(fault.body ?? JSON.stringify({ error: { message: this.errorMessage, type: 'hostile' } }));
      return;
    }
    const part = reply.partial ?? reply.body.subarray(0, Math.floor(reply.body.length / 2));
    switch (fault) {
      case 'silent':
        this.hold();
        return; // never answered
      case 'stall':
        res.writeHead(200, { 'content-type': reply.type, 'x-request-id': 'req_hostile' });
        res.write(part);
        this.hold();
        return;
      case 'reset':
        res.writeHead(200, { 'content-type': reply.type, 'x-request-id': 'req_hostile' });
        res.write(part, () => setTimeout(() => req.socket.destroy(), 50));
        return;
      case 'no-end':
        res.writeHead(200, { 'content-type': reply.type, 'x-request-id': 'req_hostile' });
        res.end(reply.partial ?? part);
        return;
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-request-id': 'req_hostile' });
        res.end('<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>');
        return;
      case 'empty':
        res.writeHead(200, { 'content-type': reply.type, 'content-length': '0', 'x-request-id': 'req_hostile' });
        res.end();
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': reply.type, 'x-request-id': 'req_hostile' });
        res.end(reply.malformed ?? '{"id": "broken", "choices": [');
        return;
      case 'wrong-type':
        res.writeHead(200, {
          'content-type': reply.type.startsWith('application/json') ? 'text/plain' : 'application/json',
          'x-request-id': 'req_hostile',
        });
        res.end(JSON.stringify({ id: 'x', object: 'not what was asked' }));
        return;
      case 'endless': {
        res.writeHead(200, { 'content-type': reply.type, 'x-request-id': 'req_hostile' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        // written as fast as it is read, until the client goes away
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
        return;
      }
      default:
        res.writeHead(500).end();
    }
  }

  /** The well-formed reply of each route; `partial` is a prefix without the end marker (streams). */
  private normalReply(
    route: string,
    json: Record<string, unknown>,
  ): { type: string; body: Buffer; partial?: Buffer; malformed?: string } | undefined {
    const text = this.answer;
    const sse = (events: unknown[], done: string[]) => {
      const lines = events.map((e) => `data: ${JSON.stringify(e)}\n\n`);
      return {
        type: 'text/event-stream',
        body: Buffer.from(lines.join('') + done.join('')),
        partial: Buffer.from(lines.slice(0, -1).join('')),
        malformed: `${lines[0]}data: {"truncated": \n\n`,
      };
    };
    const now = 1_700_000_000;
    switch (route) {
      // a web page, as -a URL and -f URL fetch it
      case 'GET /page.txt':
        return { type: 'text/plain; charset=utf-8', body: Buffer.from('A page to attach.\n') };
      case 'POST /v1/chat/completions': {
        if (json.stream) {
          // events of any shape: the last one's delta and finish_reason differ from the others'
          const chunks: unknown[] = text.map((t, i) => ({
            id: 'chat_1',
            object: 'chat.completion.chunk',
            created: now,
            model: 'svc-4',
            choices: [
              { index: 0, delta: i === 0 ? { role: 'assistant', content: t } : { content: t }, finish_reason: null },
            ],
          }));
          chunks.push({
            id: 'chat_1',
            object: 'chat.completion.chunk',
            created: now,
            model: 'svc-4',
            choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
          });
          return sse(chunks, ['data: [DONE]\n\n']);
        }
        return jsonReply({
          id: 'chat_1',
          object: 'chat.completion',
          created: now,
          model: 'svc-4',
          choices: [{ index: 0, message: { role: 'assistant', content: text.join('') }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 },
        });
      }
      case 'POST /v1/responses': {
        const response = {
          id: 'resp_1',
          object: 'response',
          created_at: now,
          model: 'svc-4',
          status: 'completed',
          output: [
            {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: text.join(''), annotations: [] }],
            },
          ],
          usage: { input_tokens: 1, output_tokens: 5, total_tokens: 6 },
        };
        if (json.stream) {
          const events: unknown[] = [
            {
              type: 'response.created',
              sequence_number: 0,
              response: { ...response, status: 'in_progress', output: [] },
            },
          ];
          for (const t of text)
            events.push({
              type: 'response.output_text.delta',
              sequence_number: events.length,
              item_id: 'msg_1',
              output_index: 0,
              content_index: 0,
              delta: t,
            });
          events.push({ type: 'response.completed', sequence_number: events.length, response });
          return sse(events, []);
        }
        return jsonReply(response);
      }
      case 'POST /v1/messages': {
        const message = {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'svc-4',
          content: [{ type: 'text', text: text.join('') }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 5 },
        };
        if (json.stream) {
          const events: unknown[] = [
            { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          ];
          for (const t of text)
            events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } });
          events.push(
            { type: 'content_block_stop', index: 0 },
            {
              type: 'message_delta',
              delta: { stop_reason: 'end_turn', stop_sequence: null },
              usage: { output_tokens: 5 },
            },
            { type: 'message_stop' },
          );
          return sse(events, []);
        }
        return jsonReply(message);
      }
      case 'GET /v1/models':
        return jsonReply({
          object: 'list',
          data: [
            { id: text.join('').replace(/\s/g, '-'), object: 'model', created: now, owned_by: 'hostile' },
            { id: 'svc-4', object: 'model', created: now, owned_by: 'svc' },
          ],
        });
      case 'GET /v1/agents':
        return jsonReply({
          agents: [
            {
              agent_id: 'agent_hostile1',
              name: text.join(''),
              instructions: 'answer',
              tools: null,
              voice: { voice_id: 'ara' },
              collection_ids: [],
              created_at: '2023-11-14T22:13:20Z',
              updated_at: '2023-11-14T22:13:20Z',
            },
          ],
        });
      case 'GET /v1/phone-numbers':
        return jsonReply({ phone_numbers: [] });
      case 'POST /v1/files':
        return jsonReply({
          id: 'file_1',
          object: 'file',
          bytes: 5,
          created_at: now,
          filename: 'up.txt',
          purpose: 'assistants',
        });
      case 'GET /v1/files/{id}/content':
        return { type: 'application/octet-stream', body: FILE_BYTES };
      case 'POST /v1/tts':
        return { type: 'audio/mpeg', body: MP3_BYTES };
      case 'POST /v1/stt':
        return jsonReply({ text: text.join(''), language: 'en', duration: 0.5, words: [] });
      default:
        return undefined;
    }
  }

  // ---- WebSocket ----

  private onSocket(ws: WebSocket, req: IncomingMessage): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = `WS ${url.pathname}`;
    const fault = this.take(route);
    this.hits.push({ route, fault, url: req.url ?? '' });
    ws.on('error', () => {});
    if (fault === 'silent') {
      this.hold();
      return;
    }
    // the moment the answer has begun: the fault takes over from here
    const broken = () => {
      if (fault === 'ok') return false;
      if (fault === 'stall') this.hold();
      else if (fault === 'drop') ws.terminate();
      else if (fault === 'not-json') ws.send('[1,2,3]');
      else if (fault === 'binary') ws.send(Buffer.from([1, 2, 3]), { binary: true });
      else if (typeof fault === 'object' && 'close' in fault)
        ws.close(fault.close, fault.close === 1000 ? '' : 'hostile close');
      return true;
    };
    const send = (ev: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(ev));
    const text = this.answer;
    if (url.pathname === '/v1/tts') {
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const msg = JSON.parse(String(data)) as { type: string };
        if (msg.type !== 'text.done') return;
        send({ type: 'audio.delta', delta: Buffer.alloc(3200, 1).toString('base64') });
        if (broken()) return;
        send({ type: 'audio.delta', delta: Buffer.alloc(3200, 2).toString('base64') });
        send({ type: 'audio.done', trace_id: 'trace_1' });
      });
      return;
    }
    if (url.pathname === '/v1/stt') {
      send({ type: 'transcript.created', id: 'stt_1' });
      let partialSent = false;
      ws.on('message', (data, isBinary) => {
        if (isBinary) {
          if (!partialSent) {
            partialSent = true;
            send({
              type: 'transcript.partial',
              text: text[0],
              is_final: true,
              speech_final: false,
              start: 0,
              duration: 0.1,
            });
            broken();
          }
          return;
        }
        const msg = JSON.parse(String(data)) as { type: string };
        if (msg.type !== 'audio.done' || fault !== 'ok') return;
        send({ type: 'transcript.done', text: text.slice(1).join('').trim(), duration: 0.5 });
        ws.close(1000);
      });
      return;
    }
    if (url.pathname === '/v1/realtime') {
      const session = { id: 'sess_1', model: 'voice-latest', voice: 'eve', turn_detection: { type: 'server_vad' } };
      send({ type: 'session.created', session });
      let answered = false;
      const answer = () => {
        answered = true;
        send({ type: 'input_audio_buffer.committed', item_id: 'item_1' });
        send({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } });
        send({
          type: 'response.output_audio.delta',
          response_id: 'resp_1',
          delta: Buffer.alloc(4800, 3).toString('base64'),
        });
        send({ type: 'response.output_audio_transcript.delta', response_id: 'resp_1', delta: text.join('') });
        if (broken()) return;
        send({ type: 'response.output_audio_transcript.done', response_id: 'resp_1', transcript: text.join('') });
        send({ type: 'response.done', response: { id: 'resp_1', status: 'completed' } });
        // a call ends when the caller hangs up: the server closes
        if (url.searchParams.has('call_id')) setTimeout(() => ws.close(1000, 'call ended'), 200);
      };
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data)) as { type: string };
        if (msg.type === 'session.update') {
          send({ type: 'session.updated', session: { ...session, ...(msg as { session?: object }).session } });
          // a call has no local input: the caller speaks at once
          if (url.searchParams.has('call_id')) setTimeout(answer, 50);
        } else if (msg.type === 'input_audio_buffer.append' && !answered) answer();
      });
      return;
    }
    ws.close(4004, 'no such route');
  }
}

function jsonReply(value: unknown) {
  const body = Buffer.from(JSON.stringify(value));
  return { type: 'application/json', body, malformed: body.toString().slice(0, Math.floor(body.length / 2)) };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A loopback port where nothing listens (a refused connection), and where nothing will: below the kernel's range for
 * ports picked by `listen(0)`. A port taken from that range and closed could be handed at once to another worker's
 * emulator, whose 401 then reached a test that expected a refusal (fault-matrix's recorder row, once in a run).
 */
export async function closedPort(): Promise<string> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (ephemeralLow() - 10_000));
    const s = createServer();
    const free = await new Promise<boolean>((r) => {
      s.once('error', () => r(false));
      s.listen(port, '127.0.0.1', () => r(true));
    });
    if (free) {
      await new Promise<void>((r) => s.close(() => r()));
      return `http://127.0.0.1:${port}`;
    }
  }
}

/** The lowest port `listen(0)` may pick: Linux's setting, else 32768 (macOS and Windows start at 49152). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 11_000) return low;
  } catch {
    // not Linux
  }
  return 32_768;
}
