import { defineCommand } from '../../cmdutil/command.js';
import { hangupCall } from '../../endpoints/calls.js';

export default defineCommand({
  args: [{ name: 'call-id', description: 'call id (from the realtime.call.incoming webhook)', required: true }],
  examples: ['svc calls hangup rtc_123'],
  async run(ctx, [callId]) {
    const reply = await hangupCall(await ctx.http(), callId);
    if (ctx.out.json) ctx.out.printJson(reply);
    else ctx.out.info(`hung up call ${callId}`);
    return 0;
  },
});
