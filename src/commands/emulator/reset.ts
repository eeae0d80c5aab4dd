import { defineCommand } from '../../cmdutil/command.js';
import { EmulatorAdmin } from '../../endpoints/emulator.js';

export default defineCommand({
  description:
    'Removes every resource, key (but the built-in one), fault and logged request of the emulator at the ' +
    'base URL (SVC_BASE_URL or --base-url), then creates its --fixtures again. Off loopback set ' +
    'SVC_EMULATOR_ADMIN_TOKEN to the token it printed.',
  examples: ['svc emulator reset', 'SVC_BASE_URL=http://127.0.0.1:8080 svc emulator reset --json'],
  async run(ctx) {
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const r = await admin.reset();
    if (ctx.out.json) ctx.out.printJson(r);
    else {
      const made = Object.entries(r.fixtures ?? {}).map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`);
      ctx.out.info(`emulator reset${made.length ? `; fixtures re-applied: ${made.join(', ')}` : ''}`);
    }
    return 0;
  },
});
