import { defineCommand } from '../../core/command.js';
import { ExitCode } from '../../core/errors.js';
import { checkKey } from './keys.js';

export default defineCommand({
  summary: 'Print one setting of the profile',
  args: [{ name: 'key', description: 'base_url, model, timeout, max_retries or voice', required: true }],
  examples: ['svc config get model'],
  async run(ctx, [raw]) {
    const key = checkKey(raw);
    const value = ctx.config().profileData[key];
    if (value === undefined) return ExitCode.notFound;
    ctx.out.line(value);
    return 0;
  },
});
