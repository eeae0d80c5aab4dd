import { defineCommand } from '../../cmdutil/command.js';
import { openConfigStore } from '../../runtime/config.js';
import { checkKey, checkValue, shownValue } from './keys.js';

export default defineCommand({
  args: [
    {
      name: 'key',
      description: 'base_url, model, timeout, max_retries, voice, api_key_cmd, proxy, ca_cert, client_cert, client_key',
      required: true,
    },
    { name: 'value', description: 'the value', required: true },
  ],
  examples: [
    'svc config set model svc-4-mini',
    'svc config set api_key_cmd "pass show svc/key"',
    'svc config set base_url http://127.0.0.1:8080 --profile local',
  ],
  async run(ctx, [rawKey, rawValue]) {
    const key = checkKey(rawKey);
    const value = checkValue(key, rawValue);
    const cfg = ctx.config();
    const store = await openConfigStore(cfg.dir);
    store.setProfileValue(cfg.profile, key, value);
    ctx.out.info(`${key} = ${shownValue(key, value)} (profile ${cfg.profile})`);
    return 0;
  },
});
