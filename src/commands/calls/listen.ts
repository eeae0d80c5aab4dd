import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineCommand } from '../../core/command.js';
import { describeError } from '../../core/errors.js';
import { integer, require } from '../../core/validate.js';
import { SESSION_OPTIONS, checkVoiceFlags, runVoiceSession, type VoiceFlags } from '../../realtime/run.js';

interface ListenFlags extends VoiceFlags {
  port: number;
  host: string;
  secret?: string;
  join?: boolean;
  maxCalls?: number;
  tolerance: number;
}

interface CallEvent {
  id?: string;
  type?: string;
  created_at?: number;
  data?: { call_id?: string; sip_headers?: { name: string; value: string }[]; metadata?: Record<string, unknown> };
  [k: string]: unknown;
}

const MAX_BODY = 1024 * 1024;

function sipHeader(ev: CallEvent, name: string): string {
  const h = ev.data?.sip_headers?.find((x) => x?.name?.toLowerCase() === name.toLowerCase());
  return h?.value ?? '';
}

export default defineCommand<ListenFlags>({
  summary: 'Receive realtime.call.incoming webhooks, verify them, print (and join) each call',
  description:
    'Runs a local HTTP server for the webhooks of inbound SIP calls. Every delivery is checked with the Standard Webhooks signature ' +
    '(webhook-id, webhook-timestamp, webhook-signature with the signing secret): missing or malformed headers are refused with 400, ' +
    'a wrong signature or a timestamp outside the tolerance with 401. Each verified call is printed: CALL_ID, FROM and TO ' +
    'tab-separated in a pipe, a sentence on a terminal, the whole event as one JSON line with --json. With --join a realtime session ' +
    'joins each call (configured by --agent and the session flags) and its transcript is printed too. Ctrl-C stops.',
  options: [
    { flags: '--port <port>', description: 'port to listen on (0 picks a free one; default 8080)', parse: integer({ min: 0, max: 65535 }), default: 8080 },
    { flags: '--host <address>', description: 'address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)', default: '127.0.0.1' },
    { flags: '--secret <secret>', description: 'the webhook signing secret (env SVC_WEBHOOK_SECRET); whsec_… or raw' },
    { flags: '--tolerance <seconds>', description: 'accepted age of a webhook timestamp, 1-3600 s (default 300)', parse: integer({ min: 1, max: 3600 }), default: 300 },
    { flags: '--join', description: 'join each call with a realtime session and print its transcript' },
    { flags: '--max-calls <n>', description: 'stop after n verified calls (and, with --join, once their sessions ended)', parse: integer({ min: 1, max: 1_000_000 }) },
    ...SESSION_OPTIONS.filter((o) => !/--input-device|--output-device|--audio-format/.test(o.flags)),
  ],
  examples: [
    'SVC_WEBHOOK_SECRET=whsec_... svc calls listen --port 8080',
    'svc calls listen --secret whsec_... --join --agent agent_123',
    'svc calls listen --port 8080 --json | jq -r .data.call_id',
  ],
  async run(ctx, _args, opts) {
    const secret = opts.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
    require(!!secret, '--secret', '(none)', 'the webhook signing secret, as --secret or in SVC_WEBHOOK_SECRET');
    checkVoiceFlags(ctx, opts);
    const { verify } = await import('../../core/webhooks.js');
    const { createServer } = await import('node:http');

    const seen = new Set<string>();
    const sessions = new Set<Promise<void>>();
    const stopAll = new AbortController();
    let calls = 0;
    let failures = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });

    const printCall = (ev: CallEvent) => {
      if (ctx.out.json) return ctx.out.printJsonLine(ev);
      const id = ev.data?.call_id ?? '';
      const from = sipHeader(ev, 'From');
      const to = sipHeader(ev, 'To');
      if (ctx.out.stdoutIsTTY) ctx.out.line(`incoming call ${ctx.out.c.bold(id)}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}`);
      else ctx.out.line([id, from, to].join('\t'));
    };

    const checkDone = () => {
      if (opts.maxCalls !== undefined && calls >= opts.maxCalls && sessions.size === 0) finish();
    };

    const join = (callId: string) => {
      const p = runVoiceSession(ctx, { ...opts, input: undefined, output: undefined }, {
        callId,
        labels: { user: `[${callId}] caller`, assistant: `[${callId}] agent` },
        manageInterrupt: false,
        stop: stopAll.signal,
        notePrefix: `[${callId}] `,
      })
        .then(() => undefined)
        .catch((err) => {
          failures++;
          ctx.out.error(`[${callId}] ${describeError(err)}`);
        })
        .finally(() => {
          sessions.delete(p);
          checkDone();
        });
      sessions.add(p);
    };

    const reply = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST') return reply(res, 405, { error: 'webhooks are delivered with POST' });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req as AsyncIterable<Buffer>) {
        size += c.length;
        if (size > MAX_BODY) return reply(res, 413, { error: 'body too large' });
        chunks.push(c);
      }
      const body = Buffer.concat(chunks);
      const h = req.headers;
      const id = String(h['webhook-id'] ?? '');
      const ts = String(h['webhook-timestamp'] ?? '');
      const sig = String(h['webhook-signature'] ?? '');
      const reject = (status: number, why: string) => {
        ctx.out.warn(`rejected a webhook (${status}): ${why}`);
        reply(res, status, { error: why });
      };
      if (!id || !ts || !sig) return reject(400, 'missing webhook-id, webhook-timestamp or webhook-signature header');
      if (!/^\d+$/.test(ts)) return reject(400, `webhook-timestamp is not a number of seconds: ${ts}`);
      if (!/(^|\s)v1,\S+/.test(sig)) return reject(400, 'webhook-signature has no v1,<base64> signature');
      try {
        verify(secret!, h, body, { toleranceSec: opts.tolerance });
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
      if (typeof ev !== 'object' || ev === null || Array.isArray(ev)) return reject(400, 'the body is not a JSON object (a webhook event)');
      reply(res, 200, { ok: true });
      if (seen.has(id)) return; // a repeated delivery of the same webhook
      seen.add(id);
      if (ev.type !== 'realtime.call.incoming' || typeof ev.data?.call_id !== 'string') {
        ctx.out.info(`ignored a verified webhook of type ${ev.type ?? '(none)'}`);
        return;
      }
      if (opts.maxCalls !== undefined && calls >= opts.maxCalls) return;
      calls++;
      printCall(ev);
      if (opts.join) join(ev.data.call_id);
      checkDone();
    };

    const server = createServer((req, res) => {
      handle(req, res).catch((err) => {
        if (!res.headersSent) reply(res, 500, { error: (err as Error).message });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'EADDRINUSE' ? new Error(`cannot listen on ${opts.host}:${opts.port}: the port is in use (choose another with --port, or 0 for any free port)`) : err),
      );
      server.listen(opts.port, opts.host, () => resolve());
    });
    const addr = server.address() as { port: number; address: string; family: string };
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    ctx.out.info(`listening for realtime.call.incoming webhooks on http://${host}:${addr.port}/ (Ctrl-C stops)`);

    ctx.setInterruptHandler(() => {
      ctx.out.info('stopping');
      finish();
    });
    ctx.signal.addEventListener('abort', () => finish(), { once: true });
    await finished;
    ctx.setInterruptHandler(undefined);
    stopAll.abort();
    server.close();
    server.closeAllConnections?.();
    await Promise.all([...sessions]);
    return failures > 0 ? 1 : 0;
  },
});
