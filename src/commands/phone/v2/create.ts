import { isIP } from 'node:net';
import { defineCommand } from '../../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../../cmdutil/confirm.js';
import { UsageError } from '../../../core/errors.js';
import { fail, httpUrl, maxLength, oneOf, pattern, repeatable, require } from '../../../core/validate.js';
import { createV2, type V2CreateBody } from '../../../endpoints/phone.js';
import { E164 } from '../shared.js';
import { OPERATIONS } from 'svc-formats/api-facts';

/** a v2 number's origins and name limit: the document's (both flags are required: the command always reads them) */
const ORIGINS = OPERATIONS.createPhoneNumberV2.fields['body.origin'].enum;
const NAME_MAX = OPERATIONS.createPhoneNumberV2.fields['body.name'].maxLength;

/** `a.b.c.d/n` (n 0-32) or an IPv6 address with /n (n 0-128). */
export function cidr(raw: string, flag: string): string {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(raw);
  const family = m ? isIP(m[1]!) : 0;
  const bits = m ? Number(m[2]) : NaN;
  if (!m || family === 0 || bits > (family === 4 ? 32 : 128))
    fail(flag, raw, 'a CIDR block such as 203.0.113.0/24 or 2001:db8::/32');
  return raw;
}

const webhookUrl = httpUrl();

export default defineCommand({
  description:
    'origin svc_provisioned: the service provides the number. origin byo_trunk: register a number of your own ' +
    'SIP trunk (Direct SIP); --number (E.164) is required then and allowed only then. With --webhook-url, inbound ' +
    'calls are announced there (`realtime.call.incoming`), signed with a secret printed once, on stdout. ' +
    'Provisioning (svc_provisioned) is billed: it asks for confirmation on a terminal; off a terminal pass --yes.',
  options: [
    {
      flags: '--origin <origin>',
      description: `${ORIGINS.join(' or ')}`,
      parse: oneOf(ORIGINS),
      choices: ORIGINS,
    },
    {
      flags: '--name <name>',
      description: `name of the number (at most ${NAME_MAX} characters)`,
      parse: maxLength(NAME_MAX),
    },
    {
      flags: '--number <e164>',
      description: 'the number in E.164 form, e.g. +14155550100 (byo_trunk only)',
      parse: pattern(E164, 'a number in E.164 form: + then up to 15 digits, e.g. +14155550100'),
    },
    { flags: '--agent <id>', description: 'route calls of this number to this agent' },
    {
      flags: '--webhook-url <url>',
      description: 'where `realtime.call.incoming` events are delivered',
      parse: webhookUrl,
    },
    {
      flags: '--webhook-name <name>',
      description: 'name of the webhook (default: the number name; needs --webhook-url)',
      parse: maxLength(NAME_MAX),
    },
    {
      flags: '--allowed-address <cidr>',
      description: 'source address block allowed to send SIP (repeatable), e.g. 203.0.113.0/24',
      parse: repeatable(cidr),
    },
    YES_OPTION,
  ],
  examples: [
    'svc phone v2 create --origin svc_provisioned --name support --agent agent_123 --webhook-url ' +
      'https://example.com/hooks/calls --yes',
    'svc phone v2 create --origin byo_trunk --name pbx --number +14155550100 --allowed-address 203.0.113.0/24',
  ],
  async run(ctx, _args, opts) {
    if (opts.origin === undefined) throw new UsageError(`--origin is required: ${ORIGINS.join(' or ')}`);
    if (opts.name === undefined || opts.name.trim() === '')
      throw new UsageError(`--name is required: a name for the number (at most ${NAME_MAX} characters)`);
    if (opts.origin === 'byo_trunk')
      require(opts.number !==
        undefined, '--number', '(missing)', 'required with --origin byo_trunk: the E.164 number of your trunk');
    else
      require(opts.number ===
        undefined, '--number', opts.number, 'only with --origin byo_trunk (svc_provisioned numbers are chosen by ' +
        'the service)');
    require(opts.webhookName === undefined ||
      opts.webhookUrl !== undefined, '--webhook-name', opts.webhookName, 'only together with --webhook-url');
    if (opts.agent !== undefined && opts.agent.trim() === '')
      throw new UsageError('--agent: "" is not allowed: an agent id');

    const body: V2CreateBody = { origin: opts.origin, name: opts.name };
    if (opts.number !== undefined) body.phone_number = opts.number;
    if (opts.agent !== undefined) body.agent_id = opts.agent;
    if (opts.webhookUrl !== undefined) body.webhook = { name: opts.webhookName ?? opts.name, url: opts.webhookUrl };
    if (opts.allowedAddress?.length) body.sip_auth = { allowed_addresses: opts.allowedAddress };

    if (opts.origin === 'svc_provisioned')
      await confirm(ctx, `Provision a new phone number "${opts.name}" (billed)?`, { yes: opts.yes });
    const created = await createV2(await ctx.http(), body);
    const secret = created.webhook?.secret;
    if (ctx.out.json) ctx.out.printJson(created);
    else {
      const pn = created.phone_number;
      ctx.out.details([
        ['phone_number_id', pn.phone_number_id],
        ['phone_number', pn.phone_number],
        ['name', pn.name],
        ['origin', pn.origin],
        ['agent_id', pn.agent_id ?? null],
        ['created_at', pn.created_at],
        ['webhook_url', created.webhook?.url],
        ['webhook_secret', secret],
      ]);
    }
    if (secret)
      ctx.out.info(
        'note: the webhook signing secret is shown this once and cannot be read again; store it now (e.g. ' +
          'for `svc calls listen --secret`)',
      );
    return 0;
  },
});
