// `svc batch chat|responses|messages INPUT -t NAME`: a saved template (cmdutil/templates.ts) for every row. Its
// model, system prompt, schema and options count as flags (the command line wins, as in chat); its prompt is the row
// template (`{{input}}` the row's text); its defaults, then --var, fill the variables no column gives. Loaded only
// when -t is given.
import { UsageError } from '../core/errors.js';
import type { OptionSpec } from '../core/option-spec.js';
import type { Context } from '../runtime/context.js';
import { applyOption, parseTemplate, stringValues, templateFile, templateText } from '../cmdutil/templates.js';
import type { Template as Saved } from '../cmdutil/templates.js';
import type { InputKind } from './input.js';
import type { BodyFlags, Operation } from './operations.js';
import type { Template } from './template.js';

/** Options of chat's and responses' templates under batch's name for them */
const SAME_AS: Record<string, string> = {
  'max-completion-tokens': 'max-tokens',
  'max-output-tokens': 'max-tokens',
};

export interface SavedTemplateUse {
  template: Template;
  /** the template's defaults, then --var */
  vars: Record<string, string>;
  /** the template's schema when --schema was not given */
  schema?: Record<string, unknown>;
  /** what the template file holds, for the journal's identity */
  saved: Saved;
}

/**
 * Put template `name`'s settings into `opts` where the command line left them unset (each option checked by its
 * flag's parser), and return the row template. A setting the operation does not take is exit 2 (run.ts has
 * checked the operation is one whose rows are prompts).
 */
export async function useSavedTemplate(
  ctx: Context,
  name: string,
  op: Operation,
  kind: InputKind,
  opts: Record<string, unknown>,
  bodyFlags: readonly (OptionSpec & { key: keyof BodyFlags })[],
): Promise<SavedTemplateUse> {
  const text = templateText(ctx.env, name);
  const saved = await parseTemplate(text, templateFile(ctx.env, name));
  const what = `batch ${op.name}`;
  const specOf = (given: string) =>
    bodyFlags.find((f) => /--([\w-]+)/.exec(f.flags)?.[1] === (SAME_AS[given] ?? given));
  for (const given of Object.keys(saved.options ?? {})) {
    const spec = specOf(given);
    if (!spec || !op.flags.includes(spec.key))
      throw new UsageError(`-t ${name}: option "${given}" is not a flag of ${what}`);
  }
  // as chat -t: a template reading a file outside this folder (its --schema) is used only once a person said yes
  const { checkTemplateTrust } = await import('../cmdutil/template-trust.js');
  await checkTemplateTrust(ctx, name, text, saved, bodyFlags, opts.yes as boolean | undefined);
  opts.model ??= saved.model;
  let schema: Record<string, unknown> | undefined;
  if (saved.schema !== undefined) {
    if (!op.flags.includes('schema')) throw new UsageError(`-t ${name}: ${what} takes no --schema`);
    if (typeof saved.schema !== 'object' || saved.schema === null || Array.isArray(saved.schema))
      throw new UsageError(`-t ${name}: its schema is not a JSON object (a JSON schema)`);
    if (opts.schema === undefined) schema = saved.schema as Record<string, unknown>;
  }
  for (const [given, value] of Object.entries(saved.options ?? {}))
    applyOption(
      opts,
      { command: what, options: bodyFlags, stdinIsPrompt: false },
      name,
      SAME_AS[given] ?? given,
      value,
    );
  const vars = { ...stringValues(saved.defaults), ...((opts.var as Record<string, string> | undefined) ?? {}) };
  const input = `{{${kind === 'lines' || kind === 'folder' ? 'text' : op.textVar}}}`;
  const withInput = (text: string) => text.replace(/\{\{\s*input\s*\}\}/g, input);
  let prompt = saved.prompt ?? '{{input}}';
  // as chat appends the command line's words to a prompt without {{input}}: a prompt with no variable at all
  if (!/\{\{\s*[A-Za-z_][\w-]*\s*\}\}/.test(prompt)) prompt = prompt.trim() ? `${prompt}\n\n{{input}}` : '{{input}}';
  const system = opts.system === undefined && saved.system !== undefined ? withInput(saved.system) : undefined;
  return { template: { kind: 'text', text: withInput(prompt), system }, vars, schema, saved };
}
