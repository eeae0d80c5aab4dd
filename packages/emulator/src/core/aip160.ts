// A small AIP-160 filter language: parse once, evaluate per record.
//   expression := sequence (AND sequence)*      sequence := factor factor*   (juxtaposition is AND)
//   factor     := term (OR term)*               term     := [NOT | -] simple
//   simple     := restriction | '(' expression ')'
// restriction:= field (= | != | > | >= | < | <= | :) value  |  value   (a bare value: fuzzy match on the default field)
// As in AIP-160, OR binds tighter than AND: `a AND b OR c` is `a AND (b OR c)`.

export type Op = '=' | '!=' | '>' | '>=' | '<' | '<=' | ':';
export type Node =
  | { type: 'and' | 'or'; items: Node[] }
  | { type: 'not'; item: Node }
  | { type: 'cmp'; field: string; op: Op; value: string; quoted: boolean; pos: number };

export class FilterError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(`invalid filter at position ${pos + 1}: ${message}`);
  }
}

interface Token {
  kind: 'word' | 'string' | 'op' | 'lparen' | 'rparen';
  text: string;
  pos: number;
}

const OPS = ['<=', '>=', '!=', '=', '<', '>', ':'];

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'lparen' : 'rparen', text: c, pos: i });
      i++;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, pos: i });
      i += op.length;
      continue;
    }
    if (c === '"' || c === "'") {
      const start = i;
      let text = '';
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\' && i + 1 < src.length) i++;
        text += src[i];
        i++;
      }
      if (i >= src.length) throw new FilterError('unterminated string', start);
      i++;
      tokens.push({ kind: 'string', text, pos: start });
      continue;
    }
    const start = i;
    while (i < src.length && !/[\s()"'<>=!:]/.test(src[i]!)) i++;
    if (i === start) throw new FilterError(`unexpected character ${JSON.stringify(c)}`, i);
    tokens.push({ kind: 'word', text: src.slice(start, i), pos: start });
  }
  return tokens;
}

export function parseFilter(src: string, defaultField = 'name'): Node | undefined {
  const tokens = tokenize(src);
  if (tokens.length === 0) return undefined;
  let p = 0;
  const peek = () => tokens[p];
  const isKw = (t: Token | undefined, kw: string) => t?.kind === 'word' && t.text === kw;
  const endOfSequence = (t: Token | undefined) => !t || t.kind === 'rparen' || isKw(t, 'AND') || isKw(t, 'OR');

  function expression(): Node {
    const items = [sequence()];
    while (isKw(peek(), 'AND')) {
      p++;
      if (endOfSequence(peek())) throw new FilterError('expected a condition after AND', peek()?.pos ?? src.length);
      items.push(sequence());
    }
    return items.length === 1 ? items[0]! : { type: 'and', items };
  }
  function sequence(): Node {
    const items = [factor()];
    while (!endOfSequence(peek())) items.push(factor());
    return items.length === 1 ? items[0]! : { type: 'and', items };
  }
  function factor(): Node {
    const items = [term()];
    while (isKw(peek(), 'OR')) {
      p++;
      items.push(term());
    }
    return items.length === 1 ? items[0]! : { type: 'or', items };
  }
  function term(): Node {
    const t = peek();
    if (isKw(t, 'NOT')) {
      p++;
      return { type: 'not', item: simple() };
    }
    if (t?.kind === 'word' && t.text.startsWith('-') && t.text.length > 1 && !/^-\d/.test(t.text)) {
      // `-name:"x"`: the minus is a negation glued to the field
      tokens[p] = { ...t, text: t.text.slice(1), pos: t.pos + 1 };
      return { type: 'not', item: simple() };
    }
    return simple();
  }
  function simple(): Node {
    const t = peek();
    if (!t) throw new FilterError('unexpected end of filter', src.length);
    if (t.kind === 'lparen') {
      p++;
      const inner = expression();
      if (peek()?.kind !== 'rparen') throw new FilterError('expected )', peek()?.pos ?? src.length);
      p++;
      return inner;
    }
    if (t.kind === 'rparen' || t.kind === 'op') throw new FilterError(`unexpected ${t.text}`, t.pos);
    if (isKw(t, 'AND') || isKw(t, 'OR')) throw new FilterError(`unexpected ${t.text}`, t.pos);
    p++;
    const next = peek();
    if (next?.kind === 'op') {
      if (t.kind !== 'word') throw new FilterError('a field name cannot be quoted', t.pos);
      p++;
      const v = peek();
      if (!v || (v.kind !== 'word' && v.kind !== 'string'))
        throw new FilterError(`expected a value after ${next.text}`, v?.pos ?? src.length);
      p++;
      return {
        type: 'cmp',
        field: t.text,
        op: next.text as Op,
        value: v.text,
        quoted: v.kind === 'string',
        pos: t.pos,
      };
    }
    return { type: 'cmp', field: defaultField, op: ':', value: t.text, quoted: t.kind === 'string', pos: t.pos };
  }

  const node = expression();
  if (p < tokens.length) throw new FilterError(`unexpected ${tokens[p]!.text}`, tokens[p]!.pos);
  return node;
}

/** How one field compares: its value on a record and its matching rule. */
export interface FieldSpec<R> {
  kind: 'fuzzy' | 'partial' | 'exact' | 'int' | 'time';
  get(record: R): string | number | null | undefined;
}

/** Check every comparison against the known fields (so a bad filter is a 400 even on an empty list). */
export function compileFilter<R>(
  src: string | undefined | null,
  fields: Record<string, FieldSpec<R>>,
  defaultField = 'name',
): (r: R) => boolean {
  if (!src?.trim()) return () => true;
  const node = parseFilter(src, defaultField);
  if (!node) return () => true;
  validate(node, fields);
  return (r) => evaluate(node, r, fields);
}

function validate<R>(node: Node, fields: Record<string, FieldSpec<R>>): void {
  if (node.type !== 'cmp') {
    for (const n of node.type === 'not' ? [node.item] : node.items) validate(n, fields);
    return;
  }
  const spec = fields[node.field];
  if (!spec)
    throw new FilterError(
      `unknown field ${node.field}; filterable fields: ${Object.keys(fields).join(', ')}`,
      node.pos,
    );
  if (spec.kind === 'int' && !/^-?\d+$/.test(node.value))
    throw new FilterError(`${node.field} compares with a whole number, not ${JSON.stringify(node.value)}`, node.pos);
  if (spec.kind === 'time' && parseTime(node.value) === undefined)
    throw new FilterError(
      `${node.field} compares with an RFC 3339 timestamp, not ${JSON.stringify(node.value)}`,
      node.pos,
    );
}

export function parseTime(v: string): number | undefined {
  if (/^\d+$/.test(v)) return Number(v);
  if (!/^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?)?$/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.floor(t / 1000);
}

function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );
}

function compare(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a comparison result (negative, 0, positive) satisfies the operator. */
export function ordered(op: Op, c: number): boolean {
  switch (op) {
    case '=':
    case ':':
      return c === 0;
    case '!=':
      return c !== 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
  }
}

function evaluate<R>(node: Node, r: R, fields: Record<string, FieldSpec<R>>): boolean {
  if (node.type === 'not') return !evaluate(node.item, r, fields);
  if (node.type !== 'cmp')
    return node.type === 'and'
      ? node.items.every((n) => evaluate(n, r, fields))
      : node.items.some((n) => evaluate(n, r, fields));
  const spec = fields[node.field]!;
  const actual = spec.get(r);
  if (actual === undefined || actual === null)
    return node.op === '!='
      ? node.value !== 'null'
      : (node.op === '=' || node.op === ':') && node.value === 'null' && !node.quoted;
  const v = node.value;
  switch (spec.kind) {
    case 'int':
      return ordered(node.op, compare(Number(actual), Number(v)));
    case 'time':
      return ordered(node.op, compare(Number(actual), parseTime(v)!));
    case 'fuzzy': {
      const s = String(actual);
      if (node.op === ':') return s.toLowerCase().includes(v.toLowerCase());
      if (node.op === '=') return wildcard(v).test(s);
      if (node.op === '!=') return !wildcard(v).test(s);
      return ordered(node.op, compare(s.toLowerCase(), v.toLowerCase()));
    }
    case 'partial': {
      const s = String(actual).toLowerCase();
      if (node.op === ':' || node.op === '=') return s.includes(v.toLowerCase());
      if (node.op === '!=') return !s.includes(v.toLowerCase());
      return ordered(node.op, compare(s, v.toLowerCase()));
    }
    case 'exact': {
      const s = String(actual);
      if (node.op === ':' || node.op === '=') return s === v;
      if (node.op === '!=') return s !== v;
      return ordered(node.op, compare(s, v));
    }
  }
}
