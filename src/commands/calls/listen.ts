import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand } from '../../cmdutil/command.js';
import type { Context } from '../../runtime/context.js';
import { UsageError, describeError, fileErrorReason } from '../../core/errors.js';
import { readEnv, type EnvName } from '../../core/environment.js';
import { dataDir } from '../../core/paths.js';
import { fail, integer, pattern, require } from '../../core/validate.js';
import { INSECURE_HTTP_ENV, plainHttpRefused } from '../../net/origin.js';
import { allowsInsecureHttp } from '../../runtime/config.js';
import { noInputReason, refusePrompt } from '../../runtime/no-input.js';
import { readHidden } from '../../term/prompt.js';
import { SESSION_OPTIONS, checkVoiceFlags, runVoiceSession } from '../../realtime/run.js';
import { sipHeader, WebhookServer, type CallEvent } from '../../realtime/webhook-server.js';

type ListenFlags = OptionValues<typeof OPTIONS>;

const OPTIONS = [
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
  {
    flags: '--secret-file <file|->',
    description: 'the webhook signing secret from a file, or - for stdin (default: SVC_WEBHOOK_SECRET); whsec_… or raw',
  },
  // refused with the reason: an argument is visible to every user of the machine (ps) and kept in shell history
  {
    flags: '--secret <secret>',
    description: 'refused: use SVC_WEBHOOK_SECRET or --secret-file',
    parse: refuseSecret('--secret', 'SVC_WEBHOOK_SECRET', '--secret-file'),
    hidden: true,
  },
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
    flags: '--forward-secret-file <file|->',
    description:
      'with --forward-to: sign the relayed deliveries with the secret in this file, or - for stdin (default: ' +
      'SVC_FORWARD_SECRET, else the signing secret)',
  },
  {
    flags: '--forward-secret <secret>',
    description: 'refused: use SVC_FORWARD_SECRET or --forward-secret-file',
    parse: refuseSecret('--forward-secret', 'SVC_FORWARD_SECRET', '--forward-secret-file'),
    hidden: true,
  },
  { flags: '--join', description: 'join each call with a realtime session and print its transcript' },
  {
    flags: '--max-calls <n>',
    description: 'stop after n verified calls (and, with --join, once their sessions ended)',
    parse: integer({ min: 1, max: 1_000_000 }),
  },
  // no --approve: several calls at once would ask on one terminal
  ...SESSION_OPTIONS.filter((o) => !/--input-device|--output-device|--audio-format|--approve/.test(o.flags)),
] as const satisfies readonly OptionSpec[];

export default defineCommand({
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
  options: OPTIONS,
  examples: [
    'SVC_WEBHOOK_SECRET=whsec_... svc calls listen --port 8080',
    'svc calls listen --secret-file ~/.config/svc/webhook-secret --join --agent agent_123',
    'pass show svc/webhook | svc calls listen --secret-file -',
    'svc calls listen --port 8080 --json | jq -r .data.call_id',
    'SVC_WEBHOOK_SECRET=whsec_... svc calls listen --forward-to http://127.0.0.1:3000/webhooks',
  ],
  async run(ctx, _args, opts) {
    // the deliveries relayed carry the callers' numbers and what they said: the rule of every URL svc connects to
    if (opts.forwardTo && plainHttpRefused(new URL(opts.forwardTo), allowsInsecureHttp(ctx.env)))
      fail(
        '--forward-to',
        opts.forwardTo,
        `https://, or http:// to a loopback address (set ${INSECURE_HTTP_ENV}=1 to relay in clear to another host)`,
      );
    require(opts.forwardSecretFile === undefined || !!opts.forwardTo, '--forward-secret-file', opts.forwardSecretFile ??
      '', 'only with --forward-to');
    require(!(
      opts.secretFile === '-' && opts.forwardSecretFile === '-'
    ), '--forward-secret-file', '-', 'a file: stdin already carries --secret-file -');
    const secret = (await readSecret(ctx, opts.secretFile, SIGNING))!;
    const forwardSecret = opts.forwardTo ? await readSecret(ctx, opts.forwardSecretFile, FORWARDING) : undefined;
    checkVoiceFlags(ctx, opts);
    const calls = new Calls(ctx, opts);
    const forward = await forwarding(ctx, opts, forwardSecret ?? secret);
    const { DeliveryMemory } = await import('../../realtime/webhook-memory.js');
    const server = await WebhookServer.listen({
      host: opts.host,
      port: opts.port,
      secret,
      toleranceSec: opts.tolerance,
      // acknowledged deliveries, remembered for the tolerance window: a replay after a restart is not a new call
      memory: DeliveryMemory.open(join(dataDir(ctx.env), 'webhooks'), secret, opts.tolerance),
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
  return forwardDeliveries({ url: opts.forwardTo, secret, timeoutMs: 10_000 }, (line, ok) =>
    ok ? ctx.out.info(line) : ctx.out.warn(line),
  );
}

/** A secret svc reads: its file flag (a file, or stdin for -), else its environment variable. */
interface SecretSource {
  flag: string;
  variable: EnvName;
  what: string;
  /** no file and no variable: fine (undefined), or exit 2 */
  optional?: boolean;
}

const SIGNING: SecretSource = { flag: '--secret-file', variable: 'SVC_WEBHOOK_SECRET', what: 'webhook signing secret' };
const FORWARDING: SecretSource = {
  flag: '--forward-secret-file',
  variable: 'SVC_FORWARD_SECRET',
  what: 'secret that signs the forwarded deliveries',
  optional: true,
};

/** `--secret VALUE` and the like: refused (exit 2), with the reason and the ways that keep it off the command line. */
function refuseSecret(flag: string, variable: EnvName, fileFlag: string): () => never {
  return () => {
    throw new UsageError(
      `${flag}: a secret given as an argument is visible to every user of this machine (ps, /proc) and kept in ` +
        `the shell history; give it in ${variable} or with ${fileFlag} FILE (- reads stdin)`,
    );
  };
}

/** The secret from its file flag (a file, or stdin for -), else its variable; exit 2 when empty or required. */
async function readSecret(ctx: Context, file: string | undefined, src: SecretSource): Promise<string | undefined> {
  let secret: string | undefined;
  if (file === '-') {
    const stdin = ctx.streams.stdin;
    if (stdin.isTTY) {
      const noInput = noInputReason(ctx.globals, ctx.env);
      const instead = `give it in ${src.variable} or a file`;
      if (noInput) refusePrompt(noInput, `calls listen asks for the ${src.what}`, instead);
      secret = await readHidden(ctx.streams, `${src.what}: `);
    } else secret = await ctx.readStdin();
  } else if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(
        `${src.flag}: cannot read ${file}: ${fileErrorReason((err as NodeJS.ErrnoException).code, err)}`,
      );
    }
  } else secret = readEnv(ctx.env, src.variable);
  if (secret === undefined && src.optional) return undefined;
  secret = secret?.trim();
  const from = file === '-' ? 'stdin' : file !== undefined ? file : src.variable;
  require(!!secret, file !== undefined ? src.flag : src.variable, secret === undefined
    ? '(none)'
    : `(empty ${from})`, `the ${src.what}, in ${src.variable} or a file given with ${src.flag} (- for stdin)`);
  return secret!;
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
