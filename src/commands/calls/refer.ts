import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { pattern } from '../../core/validate.js';
import { TARGET_URI, referCall } from '../../endpoints/calls.js';

export default defineCommand({
  args: [{ name: 'call-id', description: 'call id (from the realtime.call.incoming webhook)', required: true }],
  options: [
    {
      flags: '--to <uri>',
      description: 'tel:+<E.164> for the phone network, or sip:<user>@<host>',
      parse: pattern(
        TARGET_URI,
        'tel:+<E.164 number> (e.g. tel:+14155550100) or sip:<user>@<host> (e.g. sip:desk@pbx.example.com)',
      ),
    },
  ],
  examples: ['svc calls refer rtc_123 --to tel:+14155550100', 'svc calls refer rtc_123 --to sip:desk@pbx.example.com'],
  async run(ctx, [callId], opts) {
    if (opts.to === undefined) throw new UsageError('--to is required: tel:+<E.164 number> or sip:<user>@<host>');
    const reply = await referCall(await ctx.http(), callId, opts.to);
    if (ctx.out.json) ctx.out.printJson(reply);
    else ctx.out.info(`transferred call ${callId} to ${opts.to}`);
    return 0;
  },
});
