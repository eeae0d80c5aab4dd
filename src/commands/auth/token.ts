import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';

export default defineCommand({
  description:
    'The key requests would use, from wherever it comes: SVC_API_KEY, the profile’s api_key_cmd (run now) or the ' +
    'key stored by `svc auth login` (with --emulator: the emulator’s). It is printed only into a pipe or a file ' +
    '(`export SVC_API_KEY=$(svc auth token --profile ci)`); on a terminal only with --show, so that it does not ' +
    'land in a scrollback or a screen share by accident. Nothing is sent to the API. With --json: ' +
    '{"api_key", "source", "profile"}.',
  options: [{ flags: '--show', description: 'print the key even when stdout is a terminal' }],
  examples: ['svc auth token | pbcopy', 'curl -H "Authorization: Bearer $(svc auth token)" …', 'svc auth token --show'],
  async run(ctx, _args, opts) {
    if (ctx.out.stdoutIsTTY && !opts.show) {
      throw new UsageError(
        'auth token: stdout is a terminal: the key would be shown on screen; pipe it (svc auth token | …) ' +
          'or pass --show',
      );
    }
    const cfg = ctx.config();
    const key = await ctx.apiKey();
    const source = ctx.globals.emulator ? 'emulator' : (cfg.apiKeySource ?? 'profile');
    if (ctx.out.json) ctx.out.printJson({ api_key: key, source, profile: cfg.profile });
    else ctx.out.line(key);
    return 0;
  },
});
