import { getApiKey } from '../../endpoints/identity.js';
import { defineCommand } from '../../cmdutil/command.js';
import { openConfigStore } from '../../runtime/config.js';
import { ExitCode, UsageError } from '../../core/errors.js';
import { noInputReason, refusePrompt } from '../../runtime/no-input.js';
import { readHidden } from '../../term/prompt.js';

export default defineCommand({
  description:
    'The key is never taken as an argument. On a terminal it is asked for without echo; otherwise it is read ' +
    'from stdin (`--with-key` says so explicitly). It is checked with GET /v1/api-key, then saved in the ' +
    'profile (config file mode 0600). --base-url given here is saved with it.',
  options: [{ flags: '--with-key', description: 'read the key from stdin (for scripts)' }],
  examples: [
    'svc auth login',
    'printenv MY_KEY | svc auth login --with-key',
    'svc auth login --profile work --base-url https://api.example.com',
  ],
  async run(ctx, _args, opts) {
    const stdin = ctx.streams.stdin;
    let key: string;
    const noInput = stdin.isTTY && !opts.withKey ? noInputReason(ctx.globals, ctx.env) : undefined;
    if (noInput)
      refusePrompt(
        noInput,
        'auth login asks for the key',
        'give it on stdin with --with-key (printenv MY_KEY | svc auth login --with-key), or set api_key_cmd',
      );
    if (stdin.isTTY && !opts.withKey) key = await readHidden(ctx.streams, 'API key: ');
    else {
      if (stdin.isTTY) ctx.out.info('paste the key, then Ctrl-D');
      key = await ctx.readStdin();
    }
    key = key.trim();
    if (!key) throw new UsageError('no API key given (stdin was empty)');
    if (/\s/.test(key)) throw new UsageError('the API key must be one line without spaces');

    const info = await getApiKey(await ctx.http({ apiKey: key }));
    const problems = [
      info.api_key_blocked && 'the key is blocked',
      info.api_key_disabled && 'the key is disabled',
      info.team_blocked && 'the team is blocked',
    ].filter(Boolean);
    if (problems.length) {
      ctx.out.error(`not saved: ${problems.join(', ')}`);
      return ExitCode.auth;
    }
    const cfg = ctx.config();
    const store = await openConfigStore(cfg.dir);
    store.setProfileValue(cfg.profile, 'api_key', key);
    if (ctx.globals.baseUrl) store.setProfileValue(cfg.profile, 'base_url', ctx.globals.baseUrl);
    if (ctx.out.json) ctx.out.printJson({ profile: cfg.profile, config_file: store.path, ...info });
    ctx.out.info(
      `logged in: key ${info.redacted_api_key} "${info.name}" of team ${info.team_id}; saved to profile ` +
        `${cfg.profile} (${store.path})`,
    );
    if (ctx.env.SVC_API_KEY) ctx.out.warn('SVC_API_KEY is set and takes precedence over the saved key');
    return 0;
  },
});
