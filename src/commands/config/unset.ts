import { defineCommand } from '../../cmdutil/command.js';
import { openConfigStore } from '../../runtime/config.js';
import { checkKey } from './keys.js';

export default defineCommand({
  args: [{ name: 'key', description: 'base_url, model, timeout, max_retries or voice', required: true }],
  async run(ctx, [raw]) {
    const key = checkKey(raw);
    const cfg = ctx.config();
    const store = await openConfigStore(cfg.dir);
    store.setProfileValue(cfg.profile, key, undefined);
    ctx.out.info(`${key} removed (profile ${cfg.profile})`);
    return 0;
  },
});
