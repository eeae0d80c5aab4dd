import { defineCommand } from '../../cmdutil/command.js';
import { EmulatorAdmin, type ArmedFault } from '../../endpoints/emulator.js';

function describeFault(f: ArmedFault): string {
  const what =
    f.kind === 'status'
      ? `${f.status}${f.retryAfter !== undefined ? ` retry-after=${f.retryAfter}` : ''}`
      : f.kind === 'drop'
        ? `drop after ${f.afterEvents ?? 0} events`
        : `slow ${f.delayMs ?? 1000} ms`;
  return what;
}

export default defineCommand({
  examples: ['svc emulator fault list', 'svc emulator fault list --json'],
  async run(ctx) {
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const { faults } = await admin.listFaults();
    if (ctx.out.json) {
      for (const f of faults) ctx.out.printJsonLine(f);
      return 0;
    }
    await ctx.out.table(
      faults,
      [
        { header: 'FAULT', get: describeFault },
        { header: 'PATH', get: (f) => f.path ?? '*' },
        { header: 'METHOD', get: (f) => f.method ?? '*' },
        { header: 'LEFT', get: (f) => f.left, align: 'right' },
      ],
      { emptyMessage: 'no faults armed' },
    );
    return 0;
  },
});
