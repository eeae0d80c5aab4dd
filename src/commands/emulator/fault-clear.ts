import { defineCommand } from '../../core/command.js';
import { EmulatorAdmin } from '../../api/emulator.js';

export default defineCommand({
  summary: 'Remove every fault from a running emulator',
  examples: ['svc emulator fault clear'],
  async run(ctx) {
    const admin = new EmulatorAdmin(await ctx.http({ requireKey: false }), ctx.env.SVC_EMULATOR_ADMIN_TOKEN, ctx.signal);
    await admin.clearFaults();
    ctx.out.info('faults cleared');
    return 0;
  },
});
