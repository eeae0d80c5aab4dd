import { defineCommand } from '../../cmdutil/command.js';
import { checkProfileName, openConfigStore, readConfigFile } from '../../runtime/config.js';
import { UsageError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';

export default defineCommand({
  description: 'A profile that does not exist is refused (exit 2), unless --create.',
  args: [{ name: 'profile', description: 'profile name', required: true }],
  options: [{ flags: '--create', description: 'make the profile if it does not exist yet' }],
  examples: ['svc config use work', 'svc config use staging --create'],
  async run(ctx, [name], opts) {
    checkProfileName(name, 'PROFILE');
    const known = Object.keys(readConfigFile(ctx.config().dir).profiles ?? {});
    if (!opts.create && name !== 'default' && !known.includes(name)) {
      throw new UsageError(
        `PROFILE: ${name} does not exist${didYouMean(name, known)}; profiles: ` +
          `${known.join(', ') || '(none)'}; add --create to make it`,
      );
    }
    const store = await openConfigStore(ctx.config().dir);
    // --create makes it: the next `config use NAME` finds it without --create
    if (opts.create) store.createProfile(name);
    store.setCurrentProfile(name);
    ctx.out.info(`current profile: ${name}`);
    return 0;
  },
});
