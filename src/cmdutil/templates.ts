// Templates (llm's): a system prompt, a model, a schema, flag values and a prompt with {{variables}}, saved by
// `svc templates save NAME` as NAME.yaml in the templates folder of the config folder (people may edit them: `svc
// templates edit`), applied by `-t NAME` on chat, responses and messages (and batch): what the command line gives
// wins over the template. Loading and applying live here so that every command that sends a prompt shares them.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../runtime/context.js';
import type { OptionSpec } from '../core/option-spec.js';
import { UsageError } from '../core/errors.js';
import { configDir } from '../core/paths.js';
import { didYouMean } from '../core/suggest.js';
import { joinWithStdin, markStdinRead } from './text-input.js';
import { makeDirs } from 'svc-formats/make-dirs';

/** A saved template: every key optional; `options` are other flags of the command, by long name. */
export interface Template {
  description?: string;
  model?: string;
  system?: string;
  /** the prompt: {{input}} stands for the text given on the command line and stdin (appended when absent) */
  prompt?: string;
  /** a JSON schema for the answer (--schema) */
  schema?: unknown;
  options?: Record<string, string | number | boolean | (string | number)[]>;
  /** values of {{variables}} when --var gives none */
  defaults?: Record<string, string>;
}

const KEYS = ['description', 'model', 'system', 'prompt', 'schema', 'options', 'defaults'];
export const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export const templatesDir = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'templates');
export const templateFile = (env: NodeJS.ProcessEnv, name: string): string => join(templatesDir(env), `${name}.yaml`);

/** The names of the saved templates, sorted. */
export function templateNames(env: NodeJS.ProcessEnv): string[] {
  try {
    return readdirSync(templatesDir(env))
      .filter((f) => f.endsWith('.yaml') && TEMPLATE_NAME.test(f.slice(0, -5)))
      .map((f) => f.slice(0, -5))
      .sort();
  } catch {
    return [];
  }
}

/** A template's text, or exit 2 naming the saved ones. */
export function templateText(env: NodeJS.ProcessEnv, name: string, flag = '-t'): string {
  if (!TEMPLATE_NAME.test(name)) throw new UsageError(`${flag}: "${name}" is not a template name`);
  try {
    return readFileSync(templateFile(env, name), 'utf8');
  } catch {
    const names = templateNames(env);
    throw new UsageError(
      `${flag}: no template ${name}${didYouMean(name, names)}; saved: ${names.join(', ') || '(none)'} ` +
        '(svc templates save NAME makes one)',
    );
  }
}

/** The template in a file's text, checked (a key it does not know, a value of the wrong kind: exit 2 naming it). */
export async function parseTemplate(text: string, where: string): Promise<Template> {
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(text) ?? {};
  } catch (err) {
    throw new UsageError(`${where}: not YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const bad = (what: string) => new UsageError(`${where}: ${what}`);
  if (typeof data !== 'object' || Array.isArray(data)) throw bad('not a mapping of keys to values');
  const t = data as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!KEYS.includes(k)) throw bad(`unknown key "${k}" (keys: ${KEYS.join(', ')})`);
  for (const k of ['description', 'model', 'system', 'prompt'])
    if (t[k] !== undefined && typeof t[k] !== 'string') throw bad(`${k} is not text`);
  for (const k of ['options', 'defaults'])
    if (t[k] !== undefined && (typeof t[k] !== 'object' || t[k] === null || Array.isArray(t[k])))
      throw bad(`${k} is not a mapping`);
  for (const [k, v] of Object.entries((t.defaults as object) ?? {}))
    if (typeof v !== 'string' && typeof v !== 'number') throw bad(`defaults.${k} is not text`);
  return t as Template;
}

export async function loadTemplate(env: NodeJS.ProcessEnv, name: string): Promise<Template> {
  return parseTemplate(templateText(env, name), templateFile(env, name));
}

export async function templateYaml(t: Template): Promise<string> {
  const { stringify } = await import('yaml');
  const clean = Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined));
  return stringify(clean, { lineWidth: 0, blockQuote: 'literal' });
}

/**
 * Save template `name` (`svc templates save`, `svc chat --save`): exit 2 for a bad name, one that exists (unless
 * `force`), or nothing to save. Returns the file's text.
 */
export async function saveTemplate(
  ctx: Context,
  name: string,
  template: Template,
  opts: { force?: boolean; flag?: string } = {},
): Promise<string> {
  const flag = opts.flag ?? 'NAME';
  if (!TEMPLATE_NAME.test(name))
    throw new UsageError(`${flag}: "${name}" is not a template name (letters, digits, _ . -)`);
  if (templateNames(ctx.env).includes(name) && !opts.force) {
    const replace = flag === 'NAME' ? '--force replaces it' : `svc templates delete ${name} makes room`;
    throw new UsageError(`${flag}: template ${name} exists; ${replace} (or svc templates edit ${name})`);
  }
  if (Object.values(template).every((v) => v === undefined)) {
    throw new UsageError('nothing to save: give a PROMPT, -s, -m, --schema or options');
  }
  const { writeFileAtomic } = await import('../core/atomic-file.js');
  makeDirs(templatesDir(ctx.env), 0o700);
  const file = templateFile(ctx.env, name);
  const text = await templateYaml(template);
  await writeFileAtomic(file, text);
  ctx.out.info(`saved template ${name}: ${file}`);
  if (ctx.out.json) ctx.out.printJson({ name, file, ...template });
  return text;
}

export function deleteTemplate(env: NodeJS.ProcessEnv, name: string): void {
  rmSync(templateFile(env, name));
}

/** Each {{name}} of `text` replaced by its value; a name without one is exit 2 naming it and how to give it. */
export function fillVariables(text: string, vars: Record<string, string>, template: string): string {
  const missing = new Set<string>();
  const out = text.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (whole, name: string) => {
    if (Object.hasOwn(vars, name)) return vars[name]!;
    missing.add(name);
    return whole;
  });
  if (missing.size) {
    const names = [...missing];
    throw new UsageError(
      `-t ${template}: no value for ${names.map((n) => `{{${n}}}`).join(', ')}; give ` +
        `${names.map((n) => `--var ${n}=…`).join(' ')}`,
    );
  }
  return out;
}

/** The variables of a template's text. */
export function variablesOf(t: Template): string[] {
  const names = new Set<string>();
  for (const text of [t.system, t.prompt])
    for (const m of (text ?? '').matchAll(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g)) names.add(m[1]!);
  names.delete('input');
  return [...names];
}

/** The long name of a spec's flag: '-m, --model <id>' → 'model'. */
const longName = (flags: string) => /--([\w-]+)/.exec(flags)?.[1] ?? '';
const camel = (name: string) => name.replace(/^no-/, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** How a command takes a template: its flags, and the names of its system prompt flag and of --schema's value. */
export interface TemplateTarget {
  command: string;
  options: readonly OptionSpec[];
  /** the key of the system prompt among the command's values (chat: system, responses: instructions) */
  systemKey?: string;
  /** the key the schema (parsed) goes to (undefined: the command takes no schema) */
  schemaKey?: string;
  /** whether stdin is prompt text for this run (not `--input -`) */
  stdinIsPrompt: boolean;
}

/**
 * `-t NAME`: fill what the command line left unset from the template (each option checked by its flag's own
 * parser, so a bad value is exit 2 as on the command line), and return the prompt: the template's with {{input}} (or
 * appended) the text of the arguments and stdin, the variables filled. Undefined without -t.
 */
export async function applyTemplate(
  ctx: Context,
  opts: Record<string, unknown>,
  words: string[],
  target: TemplateTarget,
): Promise<string[] | undefined> {
  const name = opts.template as string | undefined;
  if (name === undefined) return undefined;
  const text = templateText(ctx.env, name);
  const t = await parseTemplate(text, templateFile(ctx.env, name));
  const { checkTemplateTrust } = await import('./template-trust.js');
  await checkTemplateTrust(ctx, name, text, t, target.options, opts.yes as boolean | undefined);
  const vars = { ...stringValues(t.defaults), ...((opts.var as Record<string, string> | undefined) ?? {}) };
  const fill = (text: string) => fillVariables(text, vars, name);
  opts.model ??= t.model;
  if (t.system !== undefined) {
    if (!target.systemKey) throw new UsageError(`-t ${name}: ${target.command} takes no system prompt`);
    opts[target.systemKey] ??= fill(t.system);
  }
  if (t.schema !== undefined) {
    if (!target.schemaKey) throw new UsageError(`-t ${name}: ${target.command} takes no --schema`);
    if (opts.schema === undefined) opts[target.schemaKey] ??= t.schema;
  }
  for (const [flag, value] of Object.entries(t.options ?? {})) applyOption(opts, target, name, flag, value);
  // `-a -`: stdin is an attachment, not the prompt's {{input}}
  const attachesStdin = (opts.attach as string[] | undefined)?.includes('-');
  const input = await joinWithStdin(ctx, words, target.stdinIsPrompt && !attachesStdin);
  if (!attachesStdin) markStdinRead(ctx);
  if (t.prompt === undefined) return input ? [input] : [];
  const prompt = t.prompt.includes('{{input}}')
    ? fill(t.prompt.replaceAll('{{input}}', '\u0000input\u0000')).replaceAll('\u0000input\u0000', input)
    : [fill(t.prompt), input].filter(Boolean).join('\n\n');
  return [prompt];
}

export function stringValues(values: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, String(v)]));
}

/** One `options` entry of template `template` put into `opts` unless the command line gave it. */
export function applyOption(
  opts: Record<string, unknown>,
  target: TemplateTarget,
  template: string,
  flag: string,
  value: unknown,
): void {
  const spec = target.options.find((o) => longName(o.flags) === flag);
  // a template cannot say yes for the person using it
  if (!spec || ['template', 'var', 'yes'].includes(flag)) {
    throw new UsageError(`-t ${template}: option "${flag}" is not a flag of ${target.command}`);
  }
  const key = camel(flag);
  // a --no-X flag's value is true unless it was typed (commander's default): the template may set it
  const unset = opts[key] === undefined || opts[key] === spec.default || (flag.startsWith('no-') && opts[key] === true);
  if (!unset) return;
  const takesValue = spec.flags.includes('<');
  if (!takesValue) {
    if (typeof value !== 'boolean') throw new UsageError(`-t ${template}: option ${flag} is true or false`);
    opts[key] = flag.startsWith('no-') ? !value : value;
    return;
  }
  let parsed: unknown;
  for (const raw of Array.isArray(value) ? value : [value]) {
    parsed = spec.parse ? spec.parse(String(raw), `--${flag} (template ${template})`, parsed) : String(raw);
  }
  opts[key] = parsed;
}
