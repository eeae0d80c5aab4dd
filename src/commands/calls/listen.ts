import { defineCommand } from '../../cmdutil/command.js';
import type { Context } from '../../runtime/context.js';
import { describeError } from '../../core/errors.js';
import { integer, pattern, require } from '../../core/validate.js';
import { SESSION_OPTIONS, checkVoiceFlags, runVoiceSession, type VoiceFlags } from '../../realtime/run.js';
import { sipHeader, WebhookServer, type CallEvent } from '../../realtime/webhook-server.js';

interface ListenFlags extends VoiceFlags {
  port: number;
  host: string;
  secret?: string;
  join?: boolean;
  maxCalls?: number;
  tolerance: number;
  forwardTo?: string;
  forwardSecret?: string;
}

export default defineCommand<ListenFlags>({
  description:
    'Runs a local HTTP server for the webhooks of inbound SIP calls. Every delivery is checked with the ' +
    'Standard Webhooks signature ' +
    '(webhook-id, webhook-timestamp, webhook-signature with the signing secret): missing or malformed ' +
    'headers are refused with 400, ' +
    'a wrong signature or a timestamp outside the tolerance with 401. Each verified call is printed: ' +
    'CALL_ID, FROM and TO ' +
    'tab-separated in a pipe, a sentence on a terminal, the whole event as one JSON line with --json. With ' +
    '--join a realtime session ' +
    'joins each call (configured by --agent and the session flags) and its transcript is printed too. Ctrl-C stops.',
  options: [
    {
      flags: '--port <port>',
      description: 'port to listen on (0 picks a free one; default 8080)',
      parse: integer({ min: 0, max: 65535 }),
      default: 8080,
    },
    {
      flags: '--host <address>',
      description: 'address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)',
      default: '127.0.0.1',
    },
    { flags: '--secret <secret>', description: 'the webhook signing secret (env SVC_WEBHOOK_SECRET); whsec_… or raw' },
    {
      flags: '--tolerance <seconds>',
      description: 'accepted age of a webhook timestamp, 1-3600 s (default 300)',
      parse: integer({ min: 1, max: 3600 }),
      default: 300,
    },
    {
      flags: '--forward-to <url>',
      description:
        'relay every verified delivery to this URL (your local server), re-signed, and print its status on stderr',
      parse: pattern(/^https?:\/\/\S+$/, 'an http(s) URL like http://127.0.0.1:3000/webhooks'),
    },
    {
      flags: '--forward-secret <secret>',
      description: 'with --forward-to: sign the relayed deliveries with this secret (default: the --secret)',
    },
    { flags: '--join', description: 'join each call with a realtime session and print its transcript' },
    {
      flags: '--max-calls <n>',
      description: 'stop after n verified calls (and, with --join, once their sessions ended)',
      parse: integer({ min: 1, max: 1_000_000 }),
    },
    ...SESSION_OPTIONS.filter((o) => !/--input-device|--output-device|--audio-format/.test(o.flags)),
  ],
  examples: [
    'SVC_WEBHOOK_SECRET=whsec_... svc calls listen --port 8080',
    'svc calls listen --secret whsec_... --join --agent agent_123',
    'svc calls listen --port 8080 --json | jq -r .data.call_id',
    'svc calls listen --secret whsec_... --forward-to http://127.0.0.1:3000/webhooks',
  ],
  async run(ctx, _args, opts) {
    const secret = opts.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
    require(!!secret, '--secret', '(none)', 'the webhook signing secret, as --secret or in SVC_WEBHOOK_SECRET');
    checkVoiceFlags(ctx, opts);
    require(!opts.forwardSecret || !!opts.forwardTo, '--forward-secret', '(given)', 'only with --forward-to');
    const calls = new Calls(ctx, opts);
    const forward = await forwarding(ctx, opts, secret!);
    const server = await WebhookServer.listen({
      host: opts.host,
      port: opts.port,
      secret: secret!,
      toleranceSec: opts.tolerance,
      onCall: (ev) => calls.incoming(ev),
      onVerified: forward?.onVerified,
      warn: (m) => ctx.out.warn(m),
      info: (m) => ctx.out.info(m),
    });
    ctx.out.info(`listening for realtime.call.incoming webhooks on ${server.url} (Ctrl-C stops)`);
    ctx.setInterruptHandler(() => {
      ctx.out.info('stopping');
      calls.finish();
    });
    ctx.signal.addEventListener('abort', () => calls.finish(), { once: true });
    await calls.finished;
    ctx.setInterruptHandler(undefined);
    server.close();
    await forward?.settled();
    return calls.stop();
  },
});

/** --forward-to: relays each verified delivery, re-signed, and reports the answer's status on stderr. */
async function forwarding(ctx: Context, opts: ListenFlags, secret: string) {
  if (!opts.forwardTo) return undefined;
  const { forwardDeliveries } = await import('../../realtime/webhook-forward.js');
  ctx.out.info(`forwarding verified deliveries to ${opts.forwardTo}`);
  return forwardDeliveries(
    { url: opts.forwardTo, secret: opts.forwardSecret ?? secret, timeoutMs: 10_000 },
    (line, ok) => (ok ? ctx.out.info(line) : ctx.out.warn(line)),
  );
}

/** The verified calls: printed, joined with --join, counted against --max-calls; done when stopped or all ended. */
class Calls {
  private count = 0;
  private failures = 0;
  private readonly sessions = new Set<Promise<void>>();
  private readonly stopAll = new AbortController();
  finish: () => void = () => undefined;
  readonly finished = new Promise<void>((resolve) => {
    this.finish = resolve;
  });

  constructor(
    private readonly ctx: Context,
    private readonly opts: ListenFlags,
  ) {}

  incoming(ev: CallEvent & { data: { call_id: string } }): void {
    if (this.opts.maxCalls !== undefined && this.count >= this.opts.maxCalls) return;
    this.count++;
    this.print(ev);
    if (this.opts.join) this.join(ev.data.call_id);
    this.checkDone();
  }

  /** End every session; exit 1 when one failed. */
  async stop(): Promise<number> {
    this.stopAll.abort();
    await Promise.all([...this.sessions]);
    return this.failures > 0 ? 1 : 0;
  }

  private print(ev: CallEvent): void {
    const out = this.ctx.out;
    if (out.json) return out.printJsonLine(ev);
    const id = ev.data?.call_id ?? '';
    const from = sipHeader(ev, 'From');
    const to = sipHeader(ev, 'To');
    if (out.stdoutIsTTY)
      out.line(`incoming call ${out.c.bold(id)}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}`);
    else out.line([id, from, to].join('\t'));
  }

  private checkDone(): void {
    if (this.opts.maxCalls !== undefined && this.count >= this.opts.maxCalls && this.sessions.size === 0) this.finish();
  }

  private join(callId: string): void {
    const p = runVoiceSession(
      this.ctx,
      { ...this.opts, input: undefined, output: undefined },
      {
        callId,
        labels: { user: `[${callId}] caller`, assistant: `[${callId}] agent` },
        manageInterrupt: false,
        stop: this.stopAll.signal,
        notePrefix: `[${callId}] `,
      },
    )
      .then(() => undefined)
      .catch((err) => {
        this.failures++;
        this.ctx.out.error(`[${callId}] ${describeError(err)}`);
      })
      .finally(() => {
        this.sessions.delete(p);
        this.checkDone();
      });
    this.sessions.add(p);
  }
}
