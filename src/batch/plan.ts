// What a batch will send: the input checked whole before anything is sent (every malformed line named), the
// input's fingerprint (a resume of another input is refused), and each row's request body.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { firstInvalidByte } from '../core/input-file.js';
import { isProblem, readRows, type InputKind, type Row, type RowProblem } from './input.js';
import type { BodyFlags, Operation } from './operations.js';
import { placeholders, renderBody, renderText, type Template } from './template.js';

export interface BatchSpec {
  op: Operation;
  /** the input as the user named it (for messages) */
  label: string;
  /** the file or folder read (stdin: the copy of it) */
  path: string;
  kind: InputKind;
  /** the kind was told from the first lines (stdin, an unknown extension), not from the name or --input-format */
  toldFromContent?: boolean;
  template?: Template;
  /** values of the template's variables that no column gives (a saved template's defaults, then --var) */
  vars?: Record<string, string>;
  /** the template's part of the run's identity in the journal (a hash); undefined without a template */
  identity?: string;
  /** how the template was given, for messages: `-t NAME` or `--template` */
  templateLabel?: string;
  flags: BodyFlags;
  model: string;
}

/** Problems listed in full before the rest are only counted */
const MAX_LISTED = 200;

/** The variables a row's text needs (the template's placeholders --var leaves open, else the operation's column). */
function neededVars(spec: BatchSpec): string[] {
  if (!spec.template) return [textKey(spec)];
  return placeholders(spec.template).filter((v) => !Object.hasOwn(spec.vars ?? {}, v));
}

/** how to give a variable no column has */
const varHint = (spec: BatchSpec, names: string[]) =>
  spec.template ? ` (or give ${names.map((n) => `--var ${n}=…`).join(' ')})` : '';

/** the variable a row's text is, without a template: a text file's line, else the operation's column */
const textKey = (spec: BatchSpec) => (spec.kind === 'lines' ? 'text' : spec.op.textVar);

/** The problems of one row (a JSON line's own body without a field its operation needs, a missing variable). */
function rowProblems(spec: BatchSpec, row: Row, columns: string[] | undefined): string[] {
  if (row.body) {
    const missing = spec.op.required.filter((f) => row.body![f] === undefined);
    if (spec.op.name === 'stt' && row.body.file === undefined && row.body.url === undefined)
      missing.push('file or url');
    if (missing.length) return [`the request body has no ${missing.join(', ')} (or give --template)`];
    return spec.op.name === 'stt' && row.body.url === undefined ? audioProblems(String(row.body.file)) : [];
  }
  if (spec.kind === 'folder') return folderProblems(spec, row);
  // a CSV's columns are checked once, against its header
  const missing = columns ? [] : neededVars(spec).filter((v) => row.vars?.[v] === undefined);
  if (missing.length)
    return [`no field ${missing.map((m) => JSON.stringify(m)).join(', ')} for the template${varHint(spec, missing)}`];
  return spec.op.name === 'stt' && !spec.template ? audioProblems(String(row.vars?.[textKey(spec)] ?? '')) : [];
}

/** stt: a row's audio is a file that exists, or an http(s) URL */
function audioProblems(source: string): string[] {
  if (/^https?:\/\//.test(source) || (source && existsSync(source) && statSync(source).isFile())) return [];
  return [`the audio ${JSON.stringify(source)} is not a file (nor an http(s) URL)`];
}

function folderProblems(spec: BatchSpec, row: Row): string[] {
  const needs = neededVars(spec);
  const unknown = needs.filter((v) => !['file', 'name', 'stem', 'text'].includes(v));
  if (unknown.length)
    return [`a folder's rows have file, name, stem and text; not ${unknown.join(', ')}${varHint(spec, unknown)}`];
  if (needs.includes('text') && spec.op.name !== 'stt') {
    const bad = firstInvalidByte(readFileSync(row.file!));
    if (bad >= 0) return [`${row.file}: not UTF-8 text (byte ${bad}); {{text}} needs text files`];
  }
  return [];
}

const ROW_TEXT = 'the text of a row without --template';

/** how a CSV or TSV told from its first line can be read otherwise */
const toldHint = (spec: BatchSpec) =>
  spec.toldFromContent
    ? `; read as ${spec.kind.toUpperCase()} from its first line: --input-format text reads a row per line`
    : '';

/** Read the whole input once: its rows counted, every problem named by line (exit 2 when there is any). */
export async function checkInput(spec: BatchSpec): Promise<{ rows: number; fingerprint: string }> {
  const problems: RowProblem[] = [];
  let columns: string[] | undefined;
  let rows = 0;
  for await (const r of readRows(spec.path, spec.kind, !!spec.template || spec.kind !== 'jsonl', (h) => {
    columns = h;
    const missing = neededVars(spec).filter((v) => !h.includes(v));
    if (missing.length)
      problems.push({
        line: 1,
        message:
          `no column ${missing.map((m) => JSON.stringify(m)).join(', ')} ` +
          `(${spec.template ? `the template uses ${missing.length > 1 ? 'them' : 'it'}` : ROW_TEXT}); ` +
          `the columns are ${h.join(', ')}${varHint(spec, missing)}${toldHint(spec)}`,
      });
  })) {
    if (isProblem(r)) problems.push(r);
    else {
      rows++;
      for (const message of rowProblems(spec, r, columns)) problems.push({ line: r.line, message });
    }
  }
  if (problems.length) throw new UsageError(describeProblems(spec, problems));
  if (rows === 0)
    throw new UsageError(`${spec.label}: no rows to send (${spec.kind === 'folder' ? 'an empty folder' : 'empty'})`);
  return { rows, fingerprint: await fingerprint(spec) };
}

function describeProblems(spec: BatchSpec, problems: RowProblem[]): string {
  const where = (p: RowProblem) => (spec.kind === 'folder' || p.line === 0 ? spec.label : `${spec.label}:${p.line}`);
  const listed = problems.slice(0, MAX_LISTED).map((p) => `  ${where(p)}: ${p.message}`);
  const more = problems.length > MAX_LISTED ? [`  … and ${problems.length - MAX_LISTED} more`] : [];
  const n = problems.length;
  return [`${spec.label}: ${n} malformed ${n === 1 ? 'row' : 'rows'}; nothing was sent:`, ...listed, ...more].join(
    '\n',
  );
}

/** sha-256 of the input's bytes; of a folder, its file names, sizes and times */
async function fingerprint(spec: BatchSpec): Promise<string> {
  const hash = createHash('sha256');
  if (spec.kind === 'folder') {
    for await (const r of readRows(spec.path, 'folder', true)) {
      if (isProblem(r)) continue;
      const st = statSync(r.file!);
      hash.update(`${r.file}\0${st.size}\0${st.mtimeMs}\n`);
    }
  } else for await (const chunk of createReadStream(spec.path)) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 32);
}

/** The rows to send: every row of the input for which `skip` says no. */
export async function* rowsToSend(spec: BatchSpec, skip: (n: number) => boolean): AsyncGenerator<Row> {
  for await (const r of readRows(spec.path, spec.kind, !!spec.template || spec.kind !== 'jsonl')) {
    if (!isProblem(r) && !skip(r.n)) yield r;
  }
}

/** The request body of a row. */
export async function rowBody(spec: BatchSpec, row: Row): Promise<Record<string, unknown>> {
  const { op, flags, model, template } = spec;
  if (row.body) return { ...op.defaults(flags, model), ...row.body };
  // a row's own columns win over --var
  const vars: Record<string, unknown> = { ...spec.vars, ...row.vars };
  if (row.file && op.name !== 'stt' && neededVars(spec).includes('text')) {
    const { readFile } = await import('node:fs/promises');
    vars.text = (await readFile(row.file)).toString('utf8');
  }
  if (template?.kind === 'body') return { ...op.defaults(flags, model), ...renderBody(template.body, vars) };
  const text = template ? renderText(template.text, vars) : String(vars[textKey(spec)] ?? '');
  const system = template?.system === undefined ? flags.system : renderText(template.system, vars);
  return op.fromText(text, { ...flags, system }, model);
}
