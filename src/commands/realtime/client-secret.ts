import { defineCommand } from '../../core/command.js';
import { fail, parseDuration } from '../../core/validate.js';
import { createClientSecret } from '../../api/realtime-secrets.js';

export default defineCommand<{ expiresAfter: number }>({
  summary: 'Create an ephemeral client secret for browser-side realtime sessions',
  description:
    'Prints only the secret (for scripts: `SECRET=$(svc realtime client-secret)`); --json prints {value, expires_at}. ' +
    'A browser sends it as the bearer token or as the subprotocol `svc-client-secret.<SECRET>`. ' +
    'Client secrets cannot join SIP calls (those need an API key).',
  options: [{ flags: '--expires-after <seconds>', description: 'lifetime, 1 to 3600 seconds (also 10m, 1h)', parse: expiresAfter, default: 600 }],
  examples: ['svc realtime client-secret', 'svc realtime client-secret --expires-after 60 --json'],
  async run(ctx, _args, opts) {
    const secret = await createClientSecret(await ctx.http(), opts.expiresAfter);
    if (ctx.out.json) {
      ctx.out.printJson(secret);
      return 0;
    }
    ctx.out.line(secret.value);
    ctx.out.info(`expires at ${new Date(secret.expires_at * 1000).toISOString().replace('.000Z', 'Z')}`);
    return 0;
  },
});

function expiresAfter(raw: string, flag: string): number {
  const secs = parseDuration(raw);
  if (!Number.isFinite(secs) || secs < 1 || secs > 3600) fail(flag, raw, 'a lifetime from 1 to 3600 seconds (e.g. 600, 10m, 1h)');
  return secs;
}
