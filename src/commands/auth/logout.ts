import { defineCommand } from '../../cmdutil/command.js';
import { openConfigStore, readConfigFile } from '../../runtime/config.js';

export default defineCommand({
  examples: ['svc auth logout', 'svc auth logout --profile work'],
  async run(ctx) {
    const cfg = ctx.config();
    const had = !!readConfigFile(cfg.dir).profiles?.[cfg.profile]?.api_key;
    if (had) {
      const store = await openConfigStore(cfg.dir);
      store.setProfileValue(cfg.profile, 'api_key', undefined);
      ctx.out.info(`removed the API key of profile ${cfg.profile}`);
    } else ctx.out.info(`profile ${cfg.profile} has no stored API key`);
    if (ctx.env.SVC_API_KEY) ctx.out.warn('SVC_API_KEY is still set in the environment');
    return 0;
  },
});
