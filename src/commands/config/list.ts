import { defineCommand } from '../../cmdutil/command.js';
import { readConfigFile, redactKey } from '../../runtime/config.js';
import { shownValue } from './keys.js';

export default defineCommand({
  options: [{ flags: '--all', description: 'every profile' }],
  async run(ctx, _args, opts: { all?: boolean }) {
    const cfg = ctx.config();
    const file = readConfigFile(cfg.dir);
    const profiles = opts.all ? Object.keys(file.profiles ?? {}) : [cfg.profile];
    const rows: { profile: string; key: string; value: string }[] = [];
    for (const p of profiles) {
      for (const [key, value] of Object.entries(file.profiles?.[p] ?? {})) {
        rows.push({ profile: p, key, value: key === 'api_key' ? redactKey(value) : shownValue(key, String(value)) });
      }
    }
    if (ctx.out.json) {
      for (const r of rows) ctx.out.printJsonLine(r);
      return 0;
    }
    await ctx.out.table(
      rows,
      [
        { header: 'PROFILE', get: (r) => `${r.profile}${r.profile === cfg.profile ? '*' : ''}` },
        { header: 'KEY', get: (r) => r.key },
        { header: 'VALUE', get: (r) => r.value },
      ],
      { emptyMessage: `profile ${cfg.profile} has no settings` },
    );
    return 0;
  },
});
