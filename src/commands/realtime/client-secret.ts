import { defineCommand } from '../../cmdutil/command.js';
import { readJsonFile } from '../../cmdutil/tool-file.js';
import { fail, parseDuration } from '../../core/validate.js';
import { createClientSecret } from '../../endpoints/realtime-secrets.js';

export default defineCommand({
  description:
    'Prints only the secret (for scripts: `SECRET=$(svc realtime client-secret)`); --json prints {value, ' +
    'expires_at}. ' +
    'A browser sends it as the bearer token or as the subprotocol `svc-client-secret.<SECRET>`. ' +
    'Client secrets cannot join SIP calls (those need an API key).',
  options: [
    {
      flags: '--expires-after <seconds>',
      description: 'lifetime, 1 to 3600 seconds (also 10m, 1h)',
      parse: expiresAfter,
      default: 600,
    },
    {
      flags: '--session <file>',
      description:
        'the `session` the secret is bound to: a JSON object file (instructions, voice, tools, audio, ' +
        'turn_detection, …)',
      parse: sessionFile,
    },
  ],
  examples: [
    'svc realtime client-secret',
    'svc realtime client-secret --expires-after 60 --json',
    'svc realtime client-secret --session session.json',
  ],
  async run(ctx, _args, opts) {
    const secret = await createClientSecret(await ctx.http(), opts.expiresAfter, opts.session);
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
  if (!Number.isFinite(secs) || secs < 1 || secs > 3600)
    fail(flag, raw, 'a lifetime from 1 to 3600 seconds (e.g. 600, 10m, 1h)');
  return secs;
}

function sessionFile(raw: string, flag: string): Record<string, unknown> {
  const v = readJsonFile(flag, raw);
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    fail(flag, raw, 'a JSON file holding one object (the session configuration)');
  return v as Record<string, unknown>;
}
