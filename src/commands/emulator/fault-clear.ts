import { defineCommand } from '../../cmdutil/command.js';
import { EmulatorAdmin } from '../../endpoints/emulator.js';

export default defineCommand({
  examples: ['svc emulator fault clear'],
  async run(ctx) {
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    await admin.clearFaults();
    ctx.out.info('faults cleared');
    return 0;
  },
});
