// The local HTTP server of `svc calls listen`: receives realtime.call.incoming webhooks, checks each delivery
// (POST, size, Standard Webhooks headers and signature, a JSON object), answers the sender, drops repeated
// deliveries (remembered across restarts by a DeliveryMemory), and hands each verified call event on. No terminal
// code: notes go through `warn` / `info`.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface CallEvent {
  id?: string;
  type?: string;
  created_at?: number;
  data?: { call_id?: string; sip_headers?: { name: string; value: string }[]; metadata?: Record<string, unknown> };
  [k: string]: unknown;
}

const MAX_BODY = 1024 * 1024;

export function sipHeader(ev: CallEvent, name: string): string {
  const h = ev.data?.sip_headers?.find((x) => x?.name?.toLowerCase() === name.toLowerCase());
  return h?.value ?? '';
}

export interface WebhookServerOptions {
  host: string;
  port: number;
  /** the signing secret (whsec_… or raw) */
  secret: string;
  /** accepted age of a webhook timestamp, seconds */
  toleranceSec: number;
  /** a verified realtime.call.incoming event (each webhook id once) */
  onCall(ev: CallEvent & { data: { call_id: string } }): void;
  /** every verified delivery, each webhook id once, before it is read as a call (`--forward-to`) */
  onVerified?(id: string, body: Buffer, ev: CallEvent): void;
  /** a refused delivery */
  warn(message: string): void;
  /** a verified event of another type */
  info(message: string): void;
  /**
   * the deliveries acknowledged before, this run's and earlier runs' (realtime/webhook-memory.ts); without it, this
   * run's only
   */
  memory?: { has(id: string): boolean; remember(id: string, ts: number): void };
}

export class WebhookServer {
  private readonly seen = new Set<string>();
  private memoryFailed = false;

  private constructor(
    private readonly server: Server,
    private readonly opts: WebhookServerOptions,
    private readonly verify: (
      secret: string,
      headers: IncomingMessage['headers'],
      body: Buffer,
      o: { toleranceSec: number },
    ) => unknown,
  ) {}

  /** Listen on host:port (a port in use is an error that says what to do). */
  static async listen(opts: WebhookServerOptions): Promise<WebhookServer> {
    const { createServer } = await import('node:http');
    const { verify } = await import('svc-formats/webhooks');
    const server = createServer();
    const ws = new WebhookServer(server, opts, verify as WebhookServer['verify']);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      ws.handle(req, res).catch((err) => {
        if (!res.headersSent) reply(res, 500, { error: (err as Error).message });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRINUSE'
            ? new Error(
                `cannot listen on ${opts.host}:${opts.port}: the port is in use (choose another with --port, ` +
                  `or 0 for any free port)`,
              )
            : err,
        ),
      );
      server.listen(opts.port, opts.host, () => resolve());
    });
    return ws;
  }

  /** http://host:port/ as bound (the port chosen when 0 was asked). */
  get url(): string {
    const addr = this.server.address() as { port: number; address: string; family: string };
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `http://${host}:${addr.port}/`;
  }

  close(): void {
    this.server.close();
    this.server.closeAllConnections?.();
  }

  /** The delivery, remembered on disk before it is acknowledged; a memory that cannot be written is said once. */
  private remember(id: string, ts: number): void {
    try {
      this.opts.memory?.remember(id, ts);
    } catch (err) {
      if (this.memoryFailed) return;
      this.memoryFailed = true;
      this.opts.warn(`deliveries are not remembered across restarts: ${(err as Error).message}`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: 'webhooks are delivered with POST' });
    const body = await readBody(req);
    if (!body) return reply(res, 413, { error: 'body too large' });
    const reject = (status: number, why: string) => {
      this.opts.warn(`rejected a webhook (${status}): ${why}`);
      reply(res, status, { error: why });
    };
    const h = req.headers;
    const id = String(h['webhook-id'] ?? '');
    const ts = String(h['webhook-timestamp'] ?? '');
    const sig = String(h['webhook-signature'] ?? '');
    if (!id || !ts || !sig) return reject(400, 'missing webhook-id, webhook-timestamp or webhook-signature header');
    if (!/^\d+$/.test(ts)) return reject(400, `webhook-timestamp is not a number of seconds: ${ts}`);
    if (!/(^|\s)v1,\S+/.test(sig)) return reject(400, 'webhook-signature has no v1,<base64> signature');
    try {
      this.verify(this.opts.secret, h, body, { toleranceSec: this.opts.toleranceSec });
    } catch (err) {
      return reject(401, (err as Error).message);
    }
    let ev: CallEvent;
    try {
      ev = JSON.parse(body.toString('utf8')) as CallEvent;
    } catch {
      return reject(400, 'the body is not JSON');
    }
    // a signed `null`, array or number is refused loudly, not half-read
    if (typeof ev !== 'object' || ev === null || Array.isArray(ev))
      return reject(400, 'the body is not a JSON object (a webhook event)');
    // a repeated delivery of the same webhook (a retry, or a replay after a restart): acknowledged, not handed on
    if (this.seen.has(id) || this.opts.memory?.has(id)) return reply(res, 200, { ok: true });
    this.seen.add(id);
    this.remember(id, Number(ts));
    reply(res, 200, { ok: true });
    this.opts.onVerified?.(id, body, ev);
    if (ev.type !== 'realtime.call.incoming' || typeof ev.data?.call_id !== 'string') {
      this.opts.info(`ignored a verified webhook of type ${ev.type ?? '(none)'}`);
      return;
    }
    this.opts.onCall(ev as CallEvent & { data: { call_id: string } });
  }
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The request body, or undefined past MAX_BODY. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}
