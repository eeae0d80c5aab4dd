import { defineCommand } from '../../cmdutil/command.js';
import { YES_OPTION, confirm } from '../../cmdutil/confirm.js';
import { UsageError } from '../../core/errors.js';
import { maxLength, pattern } from '../../core/validate.js';
import { buyNumber } from '../../endpoints/phone.js';
import { AREA_CODE, printNumber } from './shared.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const NAME_MAX = OPERATIONS.buyPhoneNumber.fields['body.name'].maxLength;
const DESCRIPTION_MAX = OPERATIONS.buyPhoneNumber.fields['body.description'].maxLength;

export default defineCommand({
  description: 'Buying a number is billed. Asks for confirmation on a terminal; in a script pass --yes.',
  options: [
    {
      flags: '--area-code <nnn>',
      description: 'three-digit US area code, e.g. 415',
      parse: pattern(AREA_CODE, 'a three-digit US area code (first digit 2-9), e.g. 415'),
    },
    {
      flags: '--name <name>',
      description: `name of the number (at most ${NAME_MAX} characters)`,
      parse: maxLength(NAME_MAX),
    },
    {
      flags: '--description <text>',
      description: `description (at most ${DESCRIPTION_MAX} characters)`,
      parse: maxLength(DESCRIPTION_MAX),
    },
    YES_OPTION,
  ],
  examples: [
    'svc phone buy --area-code 415 --name "front desk"',
    'svc phone buy --area-code 212 --name sales --yes --json',
  ],
  async run(ctx, _args, opts) {
    if (opts.areaCode === undefined)
      throw new UsageError('--area-code is required: a three-digit US area code, e.g. 415');
    if (opts.name === undefined || opts.name.trim() === '')
      throw new UsageError(`--name is required: a name for the number (at most ${NAME_MAX} characters)`);
    await confirm(ctx, `Buy a phone number in area code ${opts.areaCode} (billed)?`, { yes: opts.yes });
    const pn = await buyNumber(await ctx.http(), {
      area_code: opts.areaCode,
      name: opts.name,
      ...(opts.description !== undefined ? { description: opts.description } : {}),
    });
    if (ctx.out.json) ctx.out.printJson(pn);
    else printNumber(ctx.out, pn);
    return 0;
  },
});
