import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import { defineCommand } from '../../cmdutil/command.js';
import { readJsonFile } from '../../cmdutil/tool-file.js';
import { UsageError } from '../../core/errors.js';
import { keyValue } from '../../core/validate.js';
import { forceFlags, modelFlag, sampling } from '../../cmdutil/flag-sets.js';
import { saveTemplate, type Template } from '../../cmdutil/templates.js';

type Opts = OptionValues<typeof OPTIONS>;

/** -o NAME=VALUE: a flag of the command that will use the template, by its long name without dashes. */
function optionValues(opts: Opts): Template['options'] {
  const out: NonNullable<Template['options']> = {};
  if (opts.temperature !== undefined) out.temperature = opts.temperature;
  if (opts.topP !== undefined) out['top-p'] = opts.topP;
  for (const [name, value] of Object.entries(opts.option ?? {})) {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new UsageError(`-o: "${name}" is not a flag name (e.g. max-tokens)`);
    out[name] = value === 'true' ? true : value === 'false' ? false : value;
  }
  return Object.keys(out).length ? out : undefined;
}

const OPTIONS = [
  modelFlag('the model'),
  { flags: '-s, --system <text>', description: 'the system prompt (chat, messages; instructions of responses)' },
  { flags: '--schema <file>', description: 'a JSON schema the answer must follow (saved in the template)' },
  ...sampling(['temperature', 'topP']),
  { flags: '-o, --option <name=value>', description: 'another flag of the command (repeatable)', parse: keyValue() },
  { flags: '--var <name=value>', description: 'a default value of {{name}} (repeatable)', parse: keyValue() },
  { flags: '--description <text>', description: 'what the template is for (svc templates list shows it)' },
  ...forceFlags('a template of that name'),
] as const satisfies readonly OptionSpec[];

export default defineCommand({
  description:
    'Saves NAME.yaml in the templates folder of the config folder (svc config path): a file to read and edit. ' +
    'PROMPT may hold {{input}} (the text given with -t: arguments and stdin; appended when absent) and ' +
    '{{variables}} filled by --var NAME=VALUE when the template is used (--var here saves default values). ' +
    'Options are flags of the command that will use it: --temperature, --top-p, or -o NAME=VALUE for any other ' +
    '(checked by that command when used). On the command line, each flag given wins over the template.',
  args: [
    { name: 'name', description: 'template name (letters, digits, _ . -)', required: true },
    { name: 'prompt', description: 'the prompt, with {{input}} and {{variables}}', variadic: true },
  ],
  options: OPTIONS,
  examples: [
    "svc templates save summarize -s 'You summarize in {{lang}}.' --var lang=English 'Summarize:\\n\\n{{input}}'",
    'svc templates save person --schema person.schema.json -m svc-4-mini -o max-completion-tokens=500',
    'svc chat -t summarize --var lang=French < report.txt',
  ],
  async run(ctx, [name, words], opts) {
    const prompt = ((words as string[] | undefined) ?? []).join(' ').replace(/\\n/g, '\n');
    await saveTemplate(
      ctx,
      name,
      {
        description: opts.description,
        model: opts.model,
        system: opts.system,
        prompt: prompt || undefined,
        schema: opts.schema === undefined ? undefined : readJsonFile('--schema', opts.schema),
        options: optionValues(opts),
        defaults: opts.var,
      },
      { force: opts.force },
    );
    return 0;
  },
});
