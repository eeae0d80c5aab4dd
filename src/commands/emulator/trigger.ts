import { defineCommand } from '../../cmdutil/command.js';
import { fail, pattern, repeatable } from '../../core/validate.js';
import { EmulatorAdmin, type TriggerKind } from '../../endpoints/emulator.js';

interface Opts {
  number?: string;
  webhook?: string;
  from?: string;
  say?: string[];
}

const KINDS = ['incoming-call', 'video-done', 'deferred-ready', 'file-expired'] as const;

export default defineCommand<Opts>({
  description: [
    'incoming-call: a simulated caller dials a number (--number, default the newest number with a webhook); ' +
      "the signed realtime.call.incoming webhook goes to the number's webhook URL (or --webhook URL) and the " +
      'call becomes joinable (svc calls join ID). Prints the call id.',
    'video-done ID: the video request finishes now. deferred-ready ID: the deferred chat completion is ready ' +
      'now. file-expired ID: the file expires now (404 from then on).',
  ].join(' '),
  args: [
    { name: 'event', description: KINDS.join(', '), required: true, choices: KINDS },
    { name: 'id', description: 'the request, completion or file id (video-done, deferred-ready, file-expired)' },
  ],
  options: [
    { flags: '--number <id|e164>', description: 'incoming-call: the phone number id or E.164 number called' },
    {
      flags: '--webhook <url>',
      description: "incoming-call: deliver the webhook here instead of the number's URL",
      parse: pattern(/^https?:\/\/\S+$/, 'an http(s) URL'),
    },
    {
      flags: '--from <e164>',
      description: "incoming-call: the caller's number (default +14155550123)",
      parse: pattern(/^\+[1-9]\d{1,14}$/, 'an E.164 number like +14155550123'),
    },
    {
      flags: '--say <text>',
      description: 'incoming-call: what the caller says, one turn per flag (repeatable)',
      parse: repeatable(),
    },
  ],
  examples: [
    'svc emulator trigger incoming-call --number +14155550100',
    'svc emulator trigger incoming-call --webhook http://127.0.0.1:9000/',
    'svc emulator trigger video-done 3f6c…',
    'svc emulator trigger file-expired file_abc123',
  ],
  async run(ctx, [event, id], opts) {
    if (!(KINDS as readonly string[]).includes(event)) return fail('event', event, KINDS.join(', '));
    const kind = event as TriggerKind;
    if (kind === 'incoming-call') {
      if (id !== undefined) fail('id', id, 'no id for incoming-call (use --number)');
    } else {
      if (!id)
        fail(
          'id',
          '(none)',
          `the id of the ` +
            `${kind === 'file-expired' ? 'file' : kind === 'video-done' ? 'video request' : 'deferred completion'}`,
        );
      for (const [flag, v] of [
        ['--number', opts.number],
        ['--webhook', opts.webhook],
        ['--from', opts.from],
        ['--say', opts.say],
      ] as const) {
        if (v !== undefined) fail(flag, v, 'only with incoming-call');
      }
    }
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const body =
      kind === 'incoming-call'
        ? { number: opts.number, webhook: opts.webhook, from: opts.from, caller_script: opts.say }
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
