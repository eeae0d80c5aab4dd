import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { maxLength } from '../../core/validate.js';
import { updateNumber } from '../../endpoints/phone.js';
import { printNumber } from './shared.js';
import { OPERATIONS } from 'svc-formats/api-facts';

const NAME_MAX = OPERATIONS.updatePhoneNumber.fields['body.name'].maxLength;
const DESCRIPTION_MAX = OPERATIONS.updatePhoneNumber.fields['body.description'].maxLength;

export default defineCommand({
  description: 'Only the fields given are written (the field mask is exactly those fields).',
  args: [{ name: 'id', description: 'phone number id', required: true }],
  options: [
    { flags: '--name <name>', description: `new name (at most ${NAME_MAX} characters)`, parse: maxLength(NAME_MAX) },
    {
      flags: '--description <text>',
      description: `new description (at most ${DESCRIPTION_MAX} characters)`,
      parse: maxLength(DESCRIPTION_MAX),
    },
    { flags: '--clear-description', description: 'remove the description' },
  ],
  examples: ['svc phone update pn_123 --name "front desk"', 'svc phone update pn_123 --description "main line"'],
  async run(ctx, [id], opts) {
    if (opts.name !== undefined && opts.name.trim() === '')
      throw new UsageError(`--name: "" is not allowed: a non-empty name (at most ${NAME_MAX} characters)`);
    if (opts.description !== undefined && opts.clearDescription)
      throw new UsageError('--description and --clear-description: give one or the other');
    const body: { name?: string; description?: string; field_mask: { paths: string[] } } = {
      field_mask: { paths: [] },
    };
    if (opts.name !== undefined) {
      body.name = opts.name;
      body.field_mask.paths.push('name');
    }
    if (opts.description !== undefined) {
      body.description = opts.description;
      body.field_mask.paths.push('description');
    }
    if (opts.clearDescription) body.field_mask.paths.push('description');
    if (body.field_mask.paths.length === 0)
      throw new UsageError('nothing to update: give --name, --description or --clear-description');
    const pn = await updateNumber(await ctx.http(), id, body);
    if (ctx.out.json) ctx.out.printJson(pn);
    else printNumber(ctx.out, pn);
    return 0;
  },
});
