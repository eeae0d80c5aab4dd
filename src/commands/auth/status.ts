import { getApiKey, getMe, type ApiKeyInfo, type CallerIdentity } from '../../endpoints/identity.js';
import { defineCommand } from '../../cmdutil/command.js';
import { ApiError, ExitCode, describeError, exitCodeForStatus } from '../../core/errors.js';

/** Where the key in use came from, as a person would name it. */
function keySource(emulator: boolean | undefined, source: string | undefined): string {
  if (emulator) return 'the emulator';
  return source === 'env' ? 'SVC_API_KEY' : source === 'command' ? 'api_key_cmd' : 'the profile';
}

export default defineCommand({
  examples: ['svc auth status', 'svc auth status --json'],
  async run(ctx) {
    const cfg = ctx.config();
    const http = await ctx.http();
    let info: ApiKeyInfo;
    let me: CallerIdentity | undefined;
    try {
      info = await getApiKey(http);
      me = await getMe(http).catch(() => undefined);
    } catch (err) {
      if (err instanceof ApiError && exitCodeForStatus(err.status, err.message) === ExitCode.auth) {
        ctx.out.error(`the API key is not usable: ${describeError(err)}`);
        return ExitCode.auth;
      }
      throw err;
    }
    const unusable = info.api_key_blocked || info.api_key_disabled || info.team_blocked;
    if (ctx.out.json) ctx.out.printJson({ profile: cfg.profile, base_url: http.baseUrl, api_key: info, me });
    else {
      ctx.out.details([
        ['profile', cfg.profile],
        ['base url', http.baseUrl],
        [
          'key',
          `${info.redacted_api_key} (${info.api_key_id}, from ${keySource(ctx.globals.emulator, cfg.apiKeySource)})`,
        ],
        ['name', info.name],
        ['user', info.user_id],
        ['team', info.team_id],
        ['key blocked', info.api_key_blocked],
        ['key disabled', info.api_key_disabled],
        ['team blocked', info.team_blocked],
        ['acls', info.acls.join(', ')],
        ['zero data retention', me?.zdr_status],
      ]);
    }
    if (unusable) {
      const flags = [
        info.api_key_blocked && 'blocked',
        info.api_key_disabled && 'disabled',
        info.team_blocked && 'team blocked',
      ];
      ctx.out.error(`the API key is not usable: ${flags.filter(Boolean).join(', ')}`);
      return ExitCode.auth;
    }
    return 0;
  },
});
