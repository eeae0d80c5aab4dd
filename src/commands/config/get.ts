import { defineCommand } from '../../cmdutil/command.js';
import { ExitCode } from '../../core/errors.js';
import { checkKey, shownValue } from './keys.js';

/** What applies when the profile does not set a key (the environment and flags come first). */
function effective(ctx: Parameters<Parameters<typeof defineCommand>[0]['run']>[0], key: string): string | undefined {
  const cfg = ctx.config();
  if (key === 'base_url') return cfg.baseUrl;
  if (key === 'timeout') return String(cfg.timeoutSec);
  if (key === 'max_retries') return String(cfg.maxRetries);
  if (key === 'model') return cfg.model;
  if (key === 'voice') return cfg.voice;
  return undefined;
}

export default defineCommand({
  description:
    'A key the profile does not set prints the value that applies (environment or default) with a note on ' +
    'stderr; a key with no value at all exits 5 with a message. --json: {"key", "value", "source"}.',
  args: [{ name: 'key', description: 'base_url, model, timeout, max_retries or voice', required: true }],
  examples: ['svc config get model', 'svc config get base_url --json'],
  async run(ctx, [raw]) {
    const key = checkKey(raw);
    const cfg = ctx.config();
    const set = cfg.profileData[key];
    const found = set ?? effective(ctx, key);
    const value = found === undefined ? undefined : shownValue(key, found);
    const source = set !== undefined ? 'profile' : value !== undefined ? 'default' : 'unset';
    if (value === undefined) {
      if (ctx.out.json) ctx.out.printJson({ key, value: null, source });
      ctx.out.error(`${key} is not set in profile ${cfg.profile}, and has no default`);
      return ExitCode.notFound;
    }
    if (ctx.out.json) ctx.out.printJson({ key, value, source });
    else {
      ctx.out.line(value);
      if (set === undefined)
        ctx.out.info(
          `note: ${key} is not set in profile ${cfg.profile}; this is the value that applies (environment or default)`,
        );
    }
    return 0;
  },
});
