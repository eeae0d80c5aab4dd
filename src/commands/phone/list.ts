import { defineCommand } from '../../core/command.js';
import { integer } from '../../core/validate.js';
import { listNumbers } from '../../api/phone.js';

export default defineCommand<{ limit?: number }>({
  summary: 'List the phone numbers of the team',
  options: [{ flags: '--limit <n>', description: 'how many numbers (1-1000, default 100)', parse: integer({ min: 1, max: 1000 }) }],
  examples: ['svc phone list', 'svc phone list --json'],
  async run(ctx, _args, opts) {
    const numbers = await listNumbers(await ctx.http(), opts.limit);
    if (ctx.out.json) {
      for (const n of numbers) ctx.out.printJsonLine(n);
      return 0;
    }
    await ctx.out.table(
      numbers,
      [
        { header: 'ID', get: (n) => n.phone_number_id },
        { header: 'NUMBER', get: (n) => n.phone_number },
        { header: 'NAME', get: (n) => n.name },
        { header: 'AGENT', get: (n) => n.agent_id ?? '' },
      ],
      { emptyMessage: 'no phone numbers' },
    );
    return 0;
  },
});
