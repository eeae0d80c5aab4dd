import { defineCommand } from '../../core/command.js';
import { openConfigStore } from '../../core/config.js';
import { pattern } from '../../core/validate.js';

export default defineCommand({
  summary: 'Make a profile the current one',
  args: [{ name: 'profile', description: 'profile name', required: true }],
  async run(ctx, [name]) {
    pattern(/^[\w.-]{1,64}$/, 'a name of letters, digits, _, . or - (at most 64)')(name, 'PROFILE', undefined);
    const store = await openConfigStore(ctx.config().dir);
    store.setCurrentProfile(name);
    ctx.out.info(`current profile: ${name}`);
    return 0;
  },
});
