import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import { defineCommand } from '../../cmdutil/command.js';
import { fail, httpUrl, pattern, repeatable } from '../../core/validate.js';
import { EmulatorAdmin, type TriggerKind } from '../../endpoints/emulator.js';
import { TRIGGERS } from 'svc-emulator/admin';

type Opts = OptionValues<typeof OPTIONS>;

const KINDS = TRIGGERS;

/** what the id of each trigger names */
const ID_OF: Record<string, string> = {
  'caller-says': 'call',
  'caller-hangup': 'call',
  'video-done': 'video request',
  'deferred-ready': 'deferred completion',
  'file-expired': 'file',
};

/** Each trigger's id and flags: exit 2 naming what does not belong, before anything is sent. */
function checkTriggerArgs(kind: TriggerKind, id: string | undefined, opts: Opts): void {
  if (kind === 'incoming-call') {
    if (id !== undefined) fail('id', id, 'no id for incoming-call (use --number)');
    return;
  }
  if (!id) fail('id', '(none)', `the id of the ${ID_OF[kind]}`);
  if (kind === 'caller-says' && opts.say?.length !== 1)
    fail('--say', opts.say?.join(' | ') ?? '(none)', 'exactly one line for caller-says');
  for (const [flag, v] of [
    ['--number', opts.number],
    ['--webhook', opts.webhook],
    ['--from', opts.from],
    ['--say', kind === 'caller-says' ? undefined : opts.say],
  ] as const) {
    if (v !== undefined)
      fail(flag, v, flag === '--say' ? 'only with incoming-call or caller-says' : 'only with incoming-call');
  }
}

const OPTIONS = [
  { flags: '--number <id|e164>', description: 'incoming-call: the phone number id or E.164 number called' },
  {
    flags: '--webhook <url>',
    description: "incoming-call: deliver the webhook here instead of the number's URL",
    parse: httpUrl(),
  },
  {
    flags: '--from <e164>',
    description: "incoming-call: the caller's number (default +14155550123)",
    parse: pattern(/^\+[1-9]\d{1,14}$/, 'an E.164 number like +14155550123'),
  },
  {
    flags: '--say <text>',
    description: 'incoming-call: what the caller says, one turn per flag (repeatable); caller-says: the line',
    parse: repeatable(),
  },
] as const satisfies readonly OptionSpec[];

export default defineCommand({
  description: [
    'incoming-call: a simulated caller dials a number (--number, default the newest number with a webhook); ' +
      "the signed realtime.call.incoming webhook goes to the number's webhook URL (or --webhook URL) and the " +
      'call becomes joinable (svc calls join ID). Prints the call id.',
    'caller-says CALL_ID --say TEXT: the caller of an active call says TEXT now, in the session that joined it. ' +
      'caller-hangup CALL_ID: the caller hangs up now (the session on the call closes).',
    'video-done ID: the video request finishes now. deferred-ready ID: the deferred chat completion is ready ' +
      'now. file-expired ID: the file expires now (404 from then on).',
  ].join(' '),
  args: [
    { name: 'event', description: KINDS.join(', '), required: true, choices: KINDS },
    {
      name: 'id',
      description: 'the call, request, completion or file id (caller-says, caller-hangup, video-done, …)',
    },
  ],
  options: OPTIONS,
  examples: [
    'svc emulator trigger incoming-call --number +14155550100',
    'svc emulator trigger incoming-call --webhook http://127.0.0.1:9000/',
    'svc emulator trigger caller-says call_abc123 --say "Actually, make it five people"',
    'svc emulator trigger caller-hangup call_abc123',
    'svc emulator trigger video-done 3f6c…',
    'svc emulator trigger file-expired file_abc123',
  ],
  async run(ctx, [event, id], opts) {
    if (!(KINDS as readonly string[]).includes(event)) return fail('event', event, KINDS.join(', '));
    const kind = event as TriggerKind;
    checkTriggerArgs(kind, id, opts);
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const body =
      kind === 'incoming-call'
        ? { number: opts.number, webhook: opts.webhook, from: opts.from, caller_script: opts.say }
        : kind === 'caller-says'
          ? { id, text: opts.say![0] }
          : { id };
    const r = await admin.trigger(kind, body);
    if (ctx.out.json) {
      ctx.out.printJson(r);
      return 0;
    }
    if (kind === 'incoming-call') {
      const call = r.call as { call_id: string; from: string; to: string };
      const hook = r.webhook as { url: string; status?: number; delivered: boolean; error?: string } | null;
      ctx.out.line(call.call_id);
      ctx.out.info(`incoming call ${call.call_id} from ${call.from} to ${call.to}`);
      if (!hook) ctx.out.warn('the number has no webhook: nothing was delivered');
      else if (hook.delivered) ctx.out.info(`webhook delivered to ${hook.url} (${hook.status})`);
      else ctx.out.warn(`webhook to ${hook.url} failed: ${hook.error ?? `status ${hook.status}`}`);
      return hook && !hook.delivered ? 1 : 0;
    }
    ctx.out.info(`${kind}: ${id}`);
    return 0;
  },
});
