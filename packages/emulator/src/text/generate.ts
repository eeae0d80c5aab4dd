// Deterministic, honest generated content: text seeded from the prompt, values valid against a JSON schema.
import { createHash } from 'node:crypto';

/** A small seeded PRNG (mulberry32). */
export function rng(seed: string | number): () => number {
  let a = typeof seed === 'number' ? seed >>> 0 : createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a local emulator answers every request with text that is derived from the prompt so that tests can rely on it ' +
  'while people can still read it streams arrive token by token and the same question gives the same answer ' +
  'models tools schemas files voices agents and calls all behave as the service documents them ' +
  'quiet terminals bright signals careful engineers small steps clear errors honest output'
).split(' ');

export function pick<T>(list: readonly T[], r: () => number): T {
  return list[Math.floor(r() * list.length)]!;
}

/** The emulator's answer to a prompt: a short, readable, deterministic paragraph. */
/**
 * The text of a fenced block marked `markdown` in the prompt (```markdown … ``` or ~~~markdown … ~~~, closed by a
 * fence of the same character at least as long), so that a client's Markdown rendering can be tested with a known
 * answer; undefined when the prompt has none.
 */
export function markdownInPrompt(prompt: string): string | undefined {
  const open = /^ {0,3}(`{3,}|~{3,})[ \t]*markdown[ \t]*\n/im.exec(prompt);
  if (!open) return undefined;
  const rest = prompt.slice(open.index + open[0].length);
  const fence = open[1]!;
  const close = new RegExp(`^ {0,3}\\${fence[0]}{${fence.length},}[ \t]*$`, 'm').exec(rest);
  return close ? rest.slice(0, close.index) : rest;
}

export function answerText(prompt: string, seed: number | string = 0, sentences?: number): string {
  const r = rng(`${seed}:${prompt}`);
  const topic = prompt.replace(/\s+/g, ' ').trim().slice(0, 80);
  const count = sentences ?? 2 + Math.floor(r() * 2);
  const parts: string[] = [topic ? `This is the emulator's answer to "${topic}".` : "This is the emulator's answer."];
  for (let i = 0; i < count; i++) {
    const n = 6 + Math.floor(r() * 8);
    const words: string[] = [];
    for (let j = 0; j < n; j++) words.push(pick(WORDS, r));
    const s = words.join(' ');
    parts.push(`${s[0]!.toUpperCase() + s.slice(1)}.`);
  }
  return parts.join(' ');
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  pattern?: string;
  additionalProperties?: boolean | Schema;
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
};

/** A value valid against the (common subset of) JSON Schema given: types, enums, ranges, lengths, required. */
export function valueForSchema(
  schema: Schema | undefined,
  seed: string,
  root: Schema | undefined = schema,
  depth = 0,
): unknown {
  const r = rng(seed);
  if (!schema || depth > 8) return null;
  if (schema.$ref && root) {
    const name = schema.$ref.replace(/^#\/(\$defs|definitions)\//, '');
    return valueForSchema(root.$defs?.[name] ?? root.definitions?.[name], seed, root, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[Math.floor(r() * schema.enum.length)];
  if (schema.anyOf?.length) return valueForSchema(schema.anyOf[0], seed, root, depth + 1);
  if (schema.oneOf?.length) return valueForSchema(schema.oneOf[0], seed, root, depth + 1);
  if (schema.allOf?.length) return valueForSchema(Object.assign({}, ...schema.allOf), seed, root, depth + 1);
  const type = Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== 'null') ?? 'null')
    : (schema.type ?? (schema.properties ? 'object' : 'string'));
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries(schema.properties ?? {}))
        out[k] = valueForSchema(sub, `${seed}.${k}`, root, depth + 1);
      return out;
    }
    case 'array': {
      const min = schema.minItems ?? 1;
      const max = Math.max(min, Math.min(schema.maxItems ?? 3, min + 2));
      const n = min + Math.floor(r() * (max - min + 1));
      return Array.from({ length: n }, (_, i) => valueForSchema(schema.items, `${seed}[${i}]`, root, depth + 1));
    }
    case 'integer':
    case 'number': {
      let lo =
        schema.minimum ??
        (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (type === 'integer' ? 1 : 0.001) : 0);
      let hi =
        schema.maximum ??
        (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (type === 'integer' ? 1 : 0.001) : lo + 100);
      if (hi < lo) [lo, hi] = [hi, lo];
      if (type === 'integer') return Math.ceil(lo) + Math.floor(r() * (Math.floor(hi) - Math.ceil(lo) + 1));
      return Math.round((lo + r() * (hi - lo)) * 100) / 100;
    }
    case 'boolean':
      return r() < 0.5;
    case 'null':
      return null;
    default: {
      if (schema.format === 'date') return '2025-01-01';
      if (schema.format === 'date-time') return '2025-01-01T00:00:00Z';
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/';
      const min = schema.minLength ?? 1;
      const max = schema.maxLength ?? 40;
      let s = pick(WORDS, r);
      while (s.length < min) s += ` ${pick(WORDS, r)}`;
      return s.slice(0, Math.max(min, Math.min(max, s.length)));
    }
  }
}
