// The rows of a batch: JSON Lines (a request body per line, or the fields a template needs), CSV or TSV (a header
// row, then one row per record: the columns are the template's variables), plain text (.txt: a row per line) or a
// folder (one row per file). Read as
// a stream, twice: once to check every row before anything is sent, once to send them (memory does not grow with
// the number of rows). Rows are numbered from 1 in input order; `line` is where the row starts in the file.
import { closeSync, createReadStream, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';

export type InputKind = 'jsonl' | 'csv' | 'tsv' | 'lines' | 'folder';

export interface Row {
  /** 1, 2, … in input order */
  n: number;
  /** the line of the input the row starts on (folders: 0) */
  line: number;
  /** the row's own id: `custom_id` of a JSON line, the `id` column of a CSV, the file's name in a folder */
  id?: string;
  /** template variables (CSV columns, a JSON line's fields with a template, a folder file's name) */
  vars?: Record<string, unknown>;
  /** the request body of a JSON line (no template) */
  body?: Record<string, unknown>;
  /** a folder's file */
  file?: string;
}

/** What is wrong with one line of the input (exit 2, nothing sent). */
export interface RowProblem {
  line: number;
  message: string;
}

/** What --input-format takes: the kinds of a file (text: a row per line) */
export const INPUT_FORMATS = ['jsonl', 'csv', 'tsv', 'text'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
export const kindOfFormat = (f: InputFormat): InputKind => (f === 'text' ? 'lines' : f);

/** The kind a name says: a folder, or a file's extension; undefined when it says none (stdin, `rows.dat`). */
export function namedKind(path: string, stat: { isDirectory(): boolean }): InputKind | undefined {
  if (stat.isDirectory()) return 'folder';
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.tsv' || ext === '.tab') return 'tsv';
  if (ext === '.txt') return 'lines';
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return 'jsonl';
  return undefined;
}

/** a header's column name: a word or a few (a sentence's "how are you?" is none) */
const COLUMN_NAME = /^[\p{L}_][\p{L}\p{N}_ .-]{0,63}$/u;

/**
 * The kind of a file told from its first lines (stdin, a name without a known extension): a JSON object is JSON
 * Lines; a line of column names split by tabs or commas, and a second line with as many fields, TSV or CSV; else
 * lines of text.
 */
export function contentKind(path: string): InputKind {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(64 * 1024);
  const n = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  const [first = '', second] = buf
    .subarray(0, n)
    .toString('utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  if (first.trimStart().startsWith('{')) return 'jsonl';
  for (const [sep, kind] of [['\t', 'tsv'] as const, [',', 'csv'] as const]) {
    if (!first.includes(sep)) continue;
    const names = first.split(sep).map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
    if (!names.every((name) => COLUMN_NAME.test(name))) continue;
    // a quoted field may hold the separator: its count is the parser's to check
    if (second !== undefined && !second.includes('"') && second.split(sep).length !== names.length) continue;
    return kind;
  }
  return 'lines';
}

/** The lines of a file with their numbers, read as a stream (a final line without a newline included). */
async function* lines(path: string): AsyncGenerator<{ line: number; text: string }> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let line = 0;
  for await (const text of rl) yield { line: ++line, text };
}

/** JSON Lines: blank lines are skipped; a line that is not a JSON object is a problem of that line. */
export async function* jsonlRows(path: string, template: boolean): AsyncGenerator<Row | RowProblem> {
  let n = 0;
  for await (const { line, text } of lines(path)) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { line, message: `not valid JSON (${(err as Error).message.replace(/^.*?: /, '')})` };
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      yield { line, message: 'not a JSON object (each line is one request body, or one row of fields)' };
      continue;
    }
    const o = { ...(value as Record<string, unknown>) };
    const id = typeof o.custom_id === 'string' || typeof o.custom_id === 'number' ? String(o.custom_id) : undefined;
    delete o.custom_id;
    yield template ? { n: ++n, line, id, vars: o } : { n: ++n, line, id, body: o };
  }
}

/**
 * CSV (RFC 4180: quoted fields may hold commas, quotes doubled, newlines) or TSV (tab-separated, no quoting). The
 * first record is the header; every later record must have as many fields.
 */
export async function* delimitedRows(path: string, tab: boolean): AsyncGenerator<Row | RowProblem | string[]> {
  let header: string[] | undefined;
  let n = 0;
  for await (const rec of records(path, tab)) {
    if ('message' in rec) {
      yield rec;
      continue;
    }
    if (rec.fields.length === 1 && rec.fields[0] === '') continue; // a blank line
    if (!header) {
      header = rec.fields.map((f) => f.trim());
      const seen = new Set<string>();
      for (const h of header) {
        if (h === '') yield { line: rec.line, message: 'the header has an empty column name' };
        else if (seen.has(h)) yield { line: rec.line, message: `the header names column ${JSON.stringify(h)} twice` };
        seen.add(h);
      }
      yield header;
      continue;
    }
    if (rec.fields.length !== header.length) {
      yield { line: rec.line, message: `${rec.fields.length} fields where the header has ${header.length}` };
      continue;
    }
    const vars: Record<string, unknown> = {};
    for (const [i, h] of header.entries()) vars[h] = rec.fields[i];
    const id = typeof vars.id === 'string' && vars.id !== '' ? vars.id : undefined;
    yield { n: ++n, line: rec.line, id, vars };
  }
}

/** The records of a CSV/TSV file with the line each starts on. */
async function* records(path: string, tab: boolean): AsyncGenerator<{ line: number; fields: string[] } | RowProblem> {
  if (tab) {
    for await (const { line, text } of lines(path)) yield { line, fields: text.split('\t') };
    return;
  }
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let start = 1;
  let bad: string | undefined;
  let pendingCr = false;
  const end = () => {
    fields.push(field);
    const out = bad ? { line: start, message: bad } : { line: start, fields };
    fields = [];
    field = '';
    afterQuote = false;
    bad = undefined;
    return out;
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) {
    for (const ch of chunk as string) {
      if (pendingCr) {
        pendingCr = false;
        if (ch === '\n') continue;
      }
      if (quoted) {
        if (ch === '"') {
          quoted = false;
          afterQuote = true;
        } else {
          if (ch === '\n') line++;
          field += ch;
        }
        continue;
      }
      if (ch === '"') {
        if (afterQuote) {
          field += '"';
          quoted = true;
          afterQuote = false;
        } else if (field === '') quoted = true;
        else bad ??= 'a quote inside an unquoted field (quote the whole field and double the quote)';
      } else if (ch === ',') {
        fields.push(field);
        field = '';
        afterQuote = false;
      } else if (ch === '\n' || ch === '\r') {
        pendingCr = ch === '\r';
        yield end();
        start = ++line;
      } else {
        if (afterQuote) bad ??= 'text after a closing quote';
        field += ch;
      }
    }
  }
  if (quoted) yield { line: start, message: 'a quoted field is never closed' };
  else if (field !== '' || fields.length) yield end();
}

/** A folder: one row per file (sorted by name; hidden files and sub-folders left out). */
export function* folderRows(dir: string): Generator<Row> {
  const names = readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .sort();
  let n = 0;
  for (const name of names) {
    const file = resolve(join(dir, name));
    if (!statSync(file).isFile()) continue;
    const stem = basename(name, extname(name));
    yield { n: ++n, line: 0, id: stem, file, vars: { file, name, stem } };
  }
}

/** Plain text: every line that is not blank is a row, its text {{text}}. */
export async function* textRows(path: string): AsyncGenerator<Row> {
  let n = 0;
  for await (const { line, text } of lines(path)) if (text.trim() !== '') yield { n: ++n, line, vars: { text } };
}

/** Every row (and every problem) of an input, whatever its kind. */
export async function* readRows(
  path: string,
  kind: InputKind,
  template: boolean,
  onHeader?: (columns: string[]) => void,
): AsyncGenerator<Row | RowProblem> {
  if (kind === 'folder') return yield* folderRows(path);
  if (kind === 'jsonl') return yield* jsonlRows(path, template);
  if (kind === 'lines') return yield* textRows(path);
  for await (const r of delimitedRows(path, kind === 'tsv')) {
    if (Array.isArray(r)) onHeader?.(r);
    else yield r;
  }
}

export const isProblem = (r: Row | RowProblem): r is RowProblem => 'message' in r;
