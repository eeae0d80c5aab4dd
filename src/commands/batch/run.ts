import { existsSync, statSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { FLAG_GROUPS, SAMPLING, TEMPLATE_YES, forceFlags, modelFlag, resolveModel } from '../../cmdutil/flag-sets.js';
import { readJsonFile } from '../../cmdutil/tool-file.js';
import { UsageError } from '../../core/errors.js';
import { readInputText } from '../../core/input-file.js';
import { outputPath } from '../../core/atomic-file.js';
import { integer, keyValue, number, oneOf, repeatable, require } from '../../core/validate.js';
import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import {
  OPERATIONS,
  OPERATION,
  usesLanguageModel,
  type BodyFlags,
  type Operation,
  type OperationName,
} from '../../batch/operations.js';
import {
  INPUT_FORMATS,
  contentKind,
  kindOfFormat,
  namedKind,
  type InputFormat,
  type InputKind,
} from '../../batch/input.js';
import type { BatchOptions } from '../../batch/batch.js';
import { makeDirs } from 'svc-formats/make-dirs';
import { CODECS } from 'svc-formats/audio-format';
import { SCHEMAS } from 'svc-formats/api-facts';

type Opts = OptionValues<[...typeof BATCH_FLAGS, ...typeof BODY_FLAGS]>;

const B = 'Batch';
const BATCH_FLAGS = [
  {
    flags: '--template <text|@file>',
    description: 'prompt text with {{column}} placeholders, or a request-body template (a JSON object); @FILE reads it',
    group: B,
    // its value is text, not a saved template's name (that is -t)
    complete: false,
  },
  {
    flags: '-t, --saved-template <name>',
    description:
      'a saved template (svc templates list) for every row of chat, responses, messages: its prompt is the row ' +
      'template, its system prompt, model, schema and options apply as flags (the command line wins)',
    group: B,
    complete: 'templates',
  },
  {
    flags: '--var <name=value>',
    description: "a value for {{name}} of the template that no column gives (repeatable; a row's column wins)",
    parse: keyValue(),
    group: B,
  },
  { ...TEMPLATE_YES, group: B },
  {
    flags: '-o, --output <file>',
    description: 'the output JSON Lines (default: stdout); an existing file only with --resume (its own) or --force',
    parse: outputPath(),
    decidesExisting: true,
    group: B,
  },
  {
    flags: '--output-dir <dir>',
    description: 'where images and audio are saved, named from the row (made when missing)',
    group: B,
  },
  {
    flags: '--input-format <format>',
    description: 'how INPUT is read: jsonl, csv, tsv or text (default: from its name, else from its first lines)',
    parse: oneOf(INPUT_FORMATS),
    choices: INPUT_FORMATS,
    group: B,
  },
  ...forceFlags('an existing -o file or files already in --output-dir'),
  {
    flags: '--journal <file>',
    description:
      "the journal (default: beside the output, else the input; stdin's, or one in a folder svc cannot write: " +
      "in svc's state folder)",
    parse: outputPath(),
    decidesExisting: true,
    group: B,
  },
  { flags: '--resume', description: 'continue the journal: rows done are not sent again', group: B },
  {
    flags: '--order <order>',
    description: 'input (rows in input order, each as soon as those before it are out) or done',
    parse: oneOf(['input', 'done'] as const),
    choices: ['input', 'done'],
    default: 'input',
    group: B,
  },
  {
    flags: '-P, --concurrency <n>',
    description: 'rows in flight at most (1-256); fewer while the server says to slow down',
    parse: integer({ min: 1, max: 256 }),
    default: 8,
    group: B,
  },
  {
    flags: '--max-failures <n>',
    description: 'stop sending after this many rows failed (default: never)',
    parse: integer({ min: 1 }),
    group: B,
  },
  {
    flags: '--budget <usd>',
    description:
      "the batch's spend never passes this many dollars: each row's worst case (its input and --max-tokens at the " +
      "model's price) is reserved before it goes; a row that cannot fit is not started (exit 8)",
    parse: number({ min: 0, minExclusive: true }),
    group: B,
  },
  { flags: '--dry-run', description: 'print the rows, an estimate of tokens and of dollars; send nothing', group: B },
  {
    flags: '--deferred',
    description:
      'chat: each row run deferred by the API, its request id journaled once taken; a --resume after a crash fetches ' +
      'the answers of the rows in flight instead of paying for them again (slower: each answer is polled for)',
    group: B,
  },
] as const satisfies readonly OptionSpec[];

const M = FLAG_GROUPS.model;
const BODY_FLAGS = [
  { ...modelFlag("model (default: the profile's model; svc-embed-1 for embed, svc-image-1 for images)"), key: 'model' },
  { flags: '--system <text>', description: 'system prompt (chat, responses, messages)', group: M, key: 'system' },
  { ...SAMPLING.temperature, flags: '--temperature <n>', key: 'temperature' },
  { ...SAMPLING.topP, key: 'topP' },
  { ...SAMPLING.seed, key: 'seed' },
  {
    flags: '--max-tokens <n>',
    description: 'most tokens of each answer (1 to 2147483647)',
    parse: integer({ min: 1, int32: true }),
    group: FLAG_GROUPS.sampling,
    key: 'maxTokens',
  },
  {
    flags: '--schema <file>',
    description: 'answer as JSON valid against this JSON schema (chat, responses)',
    group: FLAG_GROUPS.output,
    key: 'schema',
  },
  {
    flags: '--dimensions <n>',
    description: 'size of the vectors (embed)',
    parse: integer({ min: 1, int32: true }),
    key: 'dimensions',
  },
  { flags: '--voice <id>', description: 'voice (tts)', group: FLAG_GROUPS.audio, key: 'voice' },
  { flags: '--language <code>', description: 'language (tts: default en; stt)', key: 'language' },
  {
    flags: '--codec <codec>',
    description: `audio format of tts: ${CODECS.join(', ')} (default ${SCHEMAS.Codec.$.default})`,
    parse: oneOf(CODECS),
    choices: CODECS,
    key: 'codec',
  },
  {
    flags: '--collection <id>',
    description: 'collection to search (documents; repeatable)',
    parse: repeatable(),
    key: 'collection',
  },
  {
    flags: '--limit <n>',
    description: 'matches per query (documents, 1-100)',
    parse: integer({ min: 1, max: 100 }),
    key: 'limit',
  },
  { flags: '--aspect-ratio <ratio>', description: 'aspect ratio of images (e.g. 1:1, 16:9)', key: 'aspectRatio' },
] as const satisfies readonly (OptionSpec & { key: keyof BodyFlags })[];

export default defineCommand({
  description:
    'OPERATION is one of chat, responses, messages, embed, tokenize, images, tts, stt, documents. INPUT is JSON ' +
    'Lines (a request body per line, or the fields --template needs), CSV or TSV (a header row; the columns are ' +
    "the template's variables; without --template the column prompt, text, query or file), plain text (.txt: " +
    'a row per line, {{text}}), a folder (one row ' +
    'per file: {{file}}, {{name}}, {{stem}}, {{text}}), or - for stdin. -t NAME (chat, responses, messages) ' +
    'uses a saved template instead: its prompt is the row template, its settings apply as flags. ' +
    'Every row is checked before anything is ' +
    'sent. A journal records each row as it is sent, done or failed: --resume after a crash or Ctrl-C sends only ' +
    'the rows not known done, and writes the output anew with each row once. Prints one JSON line per row ' +
    '({row, id, status, text, reply, usage, cost_usd}); a summary on stderr (--json: as JSON). Exit 0 all done, ' +
    '1 some failed (their bodies in FILE.failed.jsonl), 2 bad input, 8 stopped at the budget, 130 Ctrl-C. ' +
    'docs/batch.md has recipes.',
  args: [
    {
      name: 'operation',
      description: `what each row is sent to: ${OPERATIONS.join(', ')}`,
      required: true,
      choices: OPERATIONS,
    },
    { name: 'input', description: 'a .jsonl, .csv, .tsv or .txt file, a folder, or - for stdin', required: true },
  ],
  options: [...BATCH_FLAGS, ...BODY_FLAGS.map(({ key: _k, ...o }) => o)],
  examples: [
    'svc batch chat questions.csv --template "Answer briefly: {{question}}" -o answers.jsonl',
    "svc batch chat rows.csv --template @prompt.txt --jq '[.id, .text] | @csv' > answers.csv",
    'svc batch chat tickets.csv -t reply --var shop=Acme -o replies.jsonl',
    'svc batch embed docs/ -o vectors.jsonl',
    'svc batch tts lines.csv --output-dir mp3/ --voice ara',
    'svc batch chat requests.jsonl -o out.jsonl --resume --budget 5',
  ],
  async run(ctx, [operation, input], opts) {
    const name = oneOf(OPERATIONS)(String(operation), 'OPERATION', undefined);
    const op = OPERATION[name];
    if (opts.savedTemplate !== undefined) checkSavedTemplate(name, opts.savedTemplate, opts);
    for (const f of BODY_FLAGS) {
      const given = (opts as unknown as Record<string, unknown>)[f.key] !== undefined;
      const long = /--[a-z-]+/.exec(f.flags)![0];
      require(!given || op.flags.includes(f.key), long, 'given', `only with ${operationsTaking(f.key)}`);
    }
    if (op.binary) require(!!opts.outputDir, '--output-dir', 'missing', `a folder: ${name} saves files into it`);
    else require(!opts.outputDir, '--output-dir', opts.outputDir, 'only with images and tts (their files)');
    require(!opts.deferred || name === 'chat', '--deferred', 'given', 'only with chat (the API runs chat deferred)');
    const templated = opts.template !== undefined || opts.savedTemplate !== undefined;
    const varNames = Object.keys(opts.var ?? {}).join(', ');
    require(opts.var === undefined || templated, '--var', varNames, 'only with -t NAME or --template');
    const read = await inputOf(ctx, String(input), opts.inputFormat);
    try {
      return await runOn(ctx, name, read, opts);
    } finally {
      read.remove?.();
    }
  },
});

/** The run on its input, once the flags are checked and the input is read (stdin's copy removed after it). */
async function runOn(ctx: Ctx, name: OperationName, read: Awaited<ReturnType<typeof inputOf>>, opts: Opts) {
  const op = OPERATION[name];
  const { path, kind, label, toldFromContent } = read;
  if (label !== '-') {
    refuseInputAsOutput('-o', opts.output, path);
    refuseInputAsOutput('--journal', opts.journal, path);
  }
  const rows = await rowTemplate(ctx, op, kind, opts);
  const ownBodies = kind === 'jsonl' && rows.template === undefined;
  require(name !== 'documents' || !!opts.collection || ownBodies, '--collection', 'missing', 'a collection to search');
  const flags: BodyFlags = { ...opts, schema: rows.schema ?? schemaOf(opts.schema) } as BodyFlags;
  const model = opts.model ?? op.defaultModel ?? (usesLanguageModel(op) ? resolveModel(ctx, undefined) : '');
  if (opts.outputDir && !opts.dryRun) makeFolder(opts.outputDir);
  const { runBatch } = await import('../../batch/batch.js');
  const o: BatchOptions = { ...opts, force: !!opts.force };
  return runBatch(ctx, { op, label, path, kind, toldFromContent, flags, model, ...rows }, o);
}

const operationsTaking = (key: keyof BodyFlags) =>
  OPERATIONS.filter((o) => OPERATION[o].flags.includes(key)).join(', ');

function schemaOf(path: string | undefined): Record<string, unknown> | undefined {
  if (path === undefined) return undefined;
  const data = readJsonFile('--schema', path);
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new UsageError(`--schema: ${path} is not a JSON object (a JSON schema)`);
  return data as Record<string, unknown>;
}

/** The operations whose rows are prompts, which -t NAME serves */
const TEMPLATE_OPERATIONS: readonly OperationName[] = ['chat', 'responses', 'messages'];

function checkSavedTemplate(op: OperationName, name: string, opts: Opts): void {
  if (!TEMPLATE_OPERATIONS.includes(op))
    throw new UsageError(
      `-t ${name}: batch ${op} takes no saved template (its rows are not prompts; -t is for ` +
        `${TEMPLATE_OPERATIONS.join(', ')}); use --template for ${op}'s rows`,
    );
  if (opts.template !== undefined)
    throw new UsageError(`-t ${name} and --template: give one of them (the template's prompt is the row template)`);
}

type Ctx = Parameters<Parameters<typeof defineCommand>[0]['run']>[0];

/** The row template (-t NAME's prompt, else --template), the values --var gives, and the template's identity. */
async function rowTemplate(ctx: Ctx, op: Operation, kind: InputKind, opts: Opts) {
  const { createHash } = await import('node:crypto');
  const hash = (what: unknown) => createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 32);
  if (opts.savedTemplate !== undefined) {
    const { useSavedTemplate } = await import('../../batch/saved-template.js');
    const o = opts as unknown as Record<string, unknown>;
    const use = await useSavedTemplate(ctx, opts.savedTemplate, op, kind, o, BODY_FLAGS);
    return {
      template: use.template,
      vars: use.vars,
      schema: use.schema,
      // its description is not part of what is sent
      identity: hash({ saved: opts.savedTemplate, file: { ...use.saved, description: undefined }, vars: use.vars }),
      templateLabel: `-t ${opts.savedTemplate}`,
    };
  }
  if (opts.template === undefined) return {};
  await refuseTemplateName(ctx, opts.template);
  const template = await readTemplate(opts.template);
  const vars = opts.var ?? {};
  return { template, vars, identity: hash({ template, vars }), templateLabel: '--template' };
}

/** `--template summarize` where `-t summarize` was meant would send the word as every row's prompt */
async function refuseTemplateName(ctx: Ctx, text: string): Promise<void> {
  const { TEMPLATE_NAME, templateNames } = await import('../../cmdutil/templates.js');
  if (TEMPLATE_NAME.test(text) && templateNames(ctx.env).includes(text))
    throw new UsageError(
      `--template: "${text}" is the name of a saved template, not a row template with {{column}} placeholders; ` +
        `give -t ${text} to use it`,
    );
}

async function readTemplate(raw: string) {
  const { parseTemplate, TemplateError } = await import('../../batch/template.js');
  const text = raw.startsWith('@') ? readInputText('--template', raw.slice(1)) : raw;
  try {
    return parseTemplate(text);
  } catch (err) {
    if (err instanceof TemplateError) throw new UsageError(err.message);
    throw err;
  }
}

function makeFolder(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`--output-dir: ${dir} is not a folder`);
  makeDirs(dir);
}

/** -o or --journal naming the input (a link to it included) would replace the rows being read: refused. */
function refuseInputAsOutput(flag: string, target: string | undefined, input: string): void {
  if (target === undefined || target === '-' || !existsSync(target)) return;
  const a = statSync(target);
  const b = statSync(input);
  if (a.dev === b.dev && a.ino === b.ino)
    throw new UsageError(
      `${flag}: ${target} is the input (INPUT ${input}); writing there would replace the rows: name another file`,
    );
}

/** INPUT: a file or folder, or stdin copied into a private file (read twice); its format said, or told. */
async function inputOf(ctx: Ctx, input: string, format: InputFormat | undefined) {
  const said = format === undefined ? undefined : kindOfFormat(format);
  let path = input;
  let named: InputKind | undefined;
  let remove: (() => void) | undefined;
  if (input === '-') {
    if (ctx.streams.stdin.isTTY) throw new UsageError('INPUT -: stdin is a terminal; pipe the rows in');
    const { spoolStdin } = await import('../../batch/stdin.js');
    ({ path, remove } = await spoolStdin(ctx));
  } else {
    if (!existsSync(input)) throw new UsageError(`INPUT: ${input}: no such file or folder`);
    named = namedKind(input, statSync(input));
    if (said && named === 'folder')
      throw new UsageError(`--input-format: ${input} is a folder (a row per file; no format to say)`);
  }
  let kind: InputKind;
  try {
    kind = said ?? named ?? contentKind(path);
  } catch (err) {
    remove?.();
    throw err;
  }
  // told from the content: a message about its columns says how it was read
  return { path, kind, label: input, toldFromContent: !said && !named, remove };
}
