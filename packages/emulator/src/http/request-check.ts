// Requests checked against the API document (spec/openapi.json) before a route's own rules: a JSON body against its
// operation's requestBody schema, query parameters against their parameter schemas, a WebSocket client event
// against the socket's `x-websocket.client` schema. What the document says is refused here with the status and
// wording the service uses (a missing top-level field: 422 text; a missing one below it, a value out of range or not
// among the allowed ones: 400 naming the field and what is allowed); what it cannot say (state, cross-field rules,
// limits per model) stays with the routes. A field the document does not describe is reported (a warning;
// `--strict`: 400).
import type { ErrorObject } from 'ajv';
import { loadApiDocument } from '../core/api-document.js';
import { DocumentSchemas, pointer } from '../core/contract.js';
import type { FormEntry } from './router.js';
import { DeserializeError, HttpError, InvalidFieldError } from '../core/errors.js';

type Json = Record<string, unknown>;

/** how many unknown fields one request reports (the rest are counted) */
const MAX_REPORTED = 8;

/** The keywords whose failure is answered here; others (types of strings, unions) stay with the routes. */
const RANGE = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
const ANSWERED = new Set([...RANGE, 'enum', 'const', 'maxLength', 'minLength', 'maxItems', 'minItems', 'type']);

/** `a.b[0].c` of an ajv instance path `/a/b/0/c` */
function fieldName(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

/** The types a schema names (`type` may be one or a list, with "null" for a nullable field). */
const typesOf = (schema: Json): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/** What a numeric schema allows, worded as the routes' range checks word it. */
function rangeWords(schema: Json): string {
  const integer = typesOf(schema).includes('integer') ? 'an integer ' : '';
  const parts: string[] = [];
  if (typeof schema.exclusiveMinimum === 'number') parts.push(`greater than ${schema.exclusiveMinimum}`);
  else if (typeof schema.minimum === 'number') parts.push(`at least ${schema.minimum}`);
  if (typeof schema.exclusiveMaximum === 'number') parts.push(`less than ${schema.exclusiveMaximum}`);
  else if (typeof schema.maximum === 'number') parts.push(`at most ${schema.maximum}`);
  return `${integer}${parts.join(' and ') || (integer ? '' : 'a number')}`.trim();
}

/** Text from a client made safe for a header and a log line: printable ASCII, bounded. */
const printable = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

/**
 * The allowed values of an enum or const; null named when `nullNamed` (in an event, where it is a value of its own;
 * a request body's null is "absent").
 */
function allowedWords(schema: Json, nullNamed: boolean): string {
  const values = (schema.enum as unknown[] | undefined) ?? [schema.const];
  const words = values.filter((v) => v !== null).join(', ');
  return nullNamed && values.includes(null) ? `${words} or null` : words;
}

/** The words of one error the service answers (undefined: the keyword, or a null number, is the route's). */
function refusal(e: ErrorObject, field: string, nullNamed: boolean): string | undefined {
  // a missing field below the top level (or in an event): 400 naming its path, as the routes answered it
  if (e.keyword === 'required') return `Invalid value for \`${field}\`: required`;
  if (!ANSWERED.has(e.keyword) || e.data === undefined) return undefined;
  const schema = (e.parentSchema ?? {}) as Json;
  const numeric = typesOf(schema).includes('integer') || typesOf(schema).includes('number');
  // null where a number is allowed was "absent" to the routes' range checks, and stays so
  if (e.data === null && (numeric || RANGE.has(e.keyword))) return undefined;
  const shown = JSON.stringify(e.data);
  if (RANGE.has(e.keyword) || (e.keyword === 'type' && numeric))
    return `Invalid value for \`${field}\`: ${shown}; must be ${rangeWords(schema)}`;
  if (e.keyword === 'type') {
    const wanted = typesOf(schema).filter((t) => t !== 'null') as string[];
    const words = wanted.map((t) => `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`).join(' or ');
    return `Invalid value for \`${field}\`: expected ${words}`;
  }
  if (e.keyword === 'enum' || e.keyword === 'const')
    return `Invalid value for \`${field}\`: ${shown}; must be one of ${allowedWords(schema, nullNamed)}`;
  const limit = (e.params as { limit: number }).limit;
  const text = e.keyword.endsWith('Length');
  const got = text ? [...String(e.data)].length : (e.data as unknown[]).length;
  const bound = e.keyword.startsWith('max') ? 'at most' : 'at least';
  const unit = text ? 'character' : 'item';
  return `Invalid value for \`${field}\`: ${bound} ${limit} ${unit}${limit === 1 ? '' : 's'} (got ${got})`;
}

const within = (e: ErrorObject, at: string) => e.instancePath === at || e.instancePath.startsWith(`${at}/`);

/**
 * The branch of a union (an anyOf/oneOf error) the value picks, as the prefix of its errors' schemaPath: the one
 * branch whose `type` fits the value, else the one whose discriminator (a `const`/`enum` of a field) does;
 * undefined when none or several do, or when a branch is a $ref (its errors' schemaPath restarts there).
 */
function pickedBranch(union: ErrorObject, errors: ErrorObject[]): string | undefined {
  const branches = (union.parentSchema as Json | undefined)?.[union.keyword];
  if (!Array.isArray(branches) || branches.some((b: Json) => typeof b?.$ref === 'string')) return undefined;
  const prefixes = branches.map((_, n) => `${union.schemaPath}/${n}/`);
  const failsOn = (prefix: string, test: (e: ErrorObject) => boolean) =>
    errors.some((e) => e.schemaPath.startsWith(prefix) && test(e));
  const byType = prefixes.filter(
    (at) =>
      !failsOn(
        at,
        (e) => e.keyword === 'type' && e.schemaPath === `${at}type` && e.instancePath === union.instancePath,
      ),
  );
  if (byType.length <= 1) return byType[0];
  const discriminated = byType.filter(
    (at) =>
      !failsOn(
        at,
        (e) =>
          (e.keyword === 'const' || e.keyword === 'enum') &&
          /^[^/]+$/.test(e.instancePath.slice(union.instancePath.length + 1)) &&
          e.schemaPath === `${at}properties/${e.instancePath.split('/').at(-1)}/${e.keyword}`,
      ),
  );
  return discriminated.length === 1 ? discriminated[0] : undefined;
}

/**
 * The errors the checker answers: none from an `if` (a condition not met is no fault), and under a union only
 * those of the branch the value picks (pickedBranch; with none, the union is the route's to judge).
 */
function answerable(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const picked = new Map(unions.map((u) => [u, pickedBranch(u, errors)]));
  return [
    ...errors.filter(
      (e) =>
        !/\/if\//.test(e.schemaPath) &&
        unions.every((u) => !within(e, u.instancePath) || e.schemaPath.startsWith(picked.get(u) ?? '\0')),
    ),
    ...unions.flatMap((u) => unfitting(u, errors) ?? []),
  ];
}

/** A union no branch of which takes the value's type (each has a `type`, each fails it): a type error of its own. */
function unfitting(union: ErrorObject, errors: ErrorObject[]): ErrorObject | undefined {
  const branches = (union.parentSchema as Json | undefined)?.[union.keyword];
  if (!Array.isArray(branches) || !branches.every((b: Json) => b?.type !== undefined)) return undefined;
  const failed = branches.every((_, n) =>
    errors.some((e) => e.keyword === 'type' && e.schemaPath === `${union.schemaPath}/${n}/type`),
  );
  const type = branches.flatMap((b: Json) => typesOf(b));
  return failed ? { ...union, keyword: 'type', parentSchema: { type } } : undefined;
}

export class RequestChecker {
  constructor(private readonly schemas: DocumentSchemas) {}

  private operation(method: string, path: string): { template: string; op: Json; item: Json } | undefined {
    const entry = this.schemas.find(path);
    const op = entry?.item[method.toLowerCase()] as Json | undefined;
    return entry && op ? { template: entry.template, op, item: entry.item } : undefined;
  }

  /**
   * Check a parsed JSON body of `method path`: throws the error the service answers; returns the fields the
   * document does not describe (empty when none, or when the document has no schema for this body).
   */
  body(method: string, path: string, value: unknown): string[] {
    const found = this.operation(method, path);
    const content = (found && this.schemas.resolve((found.op.requestBody as Json) ?? {}).content) as
      | Record<string, Json>
      | undefined;
    if (!found || !content?.['application/json']) return [];
    const ptr = `/paths/${pointer(found.template, method.toLowerCase())}/requestBody/content/application~1json/schema`;
    return this.check(ptr, value);
  }

  /**
   * Check a client event of the WebSocket at `path`: throws an InvalidFieldError (its message and field the error
   * event's) when the document refuses it, the conditions (`if`/`then`) on the event's type included; returns the
   * fields it does not describe. An event type the document does not list is left to the route, which answers it
   * with the API's own error naming the type.
   */
  wsEvent(path: string, value: unknown): string[] {
    const found = this.operation('get', path);
    const ws = found?.op['x-websocket'] as Json | undefined;
    if (!found || !ws?.client) return [];
    const ptr = `/paths/${pointer(found.template)}/get/x-websocket/client`;
    const types = this.eventTypes(ptr);
    if (types.size && !types.has((value as Json)?.type)) return [];
    return this.check(ptr, value, true);
  }

  /** the event types a client event schema (or its union's branches) names, read once per schema */
  private readonly typesAt = new Map<string, Set<unknown>>();
  private eventTypes(ptr: string): Set<unknown> {
    let types = this.typesAt.get(ptr);
    if (!types) {
      types = new Set(
        this.flatten([this.schemas.at(ptr)]).flatMap((s) => {
          const type = (s.properties as Record<string, Json> | undefined)?.type;
          return (type?.enum as unknown[] | undefined) ?? (type && 'const' in type ? [type.const] : []);
        }),
      );
      this.typesAt.set(ptr, types);
    }
    return types;
  }

  private check(ptr: string, value: unknown, event = false): string[] {
    const v = this.schemas.validator(ptr);
    if (!v(value)) this.refuse(v.errors ?? [], event ? 'event' : 'body');
    const unknown: string[] = [];
    this.walk(value, [this.schemas.at(ptr)], '', unknown);
    return unknown;
  }

  /**
   * Throw the first error the document's rules give (top-level missing fields first, as the service's parser; in a
   * WebSocket event a missing field is an error naming it, as below the top level; in a form, the part).
   */
  private refuse(errors: ErrorObject[], what: 'body' | 'event' | 'form' = 'body'): void {
    const direct = answerable(errors);
    const missing = direct.find((e) => e.keyword === 'required' && e.instancePath === '');
    const field = (missing?.params as { missingProperty: string } | undefined)?.missingProperty;
    if (missing && what === 'form') throw new InvalidFieldError(`Missing the \`${field}\` part`, field!);
    if (missing && what === 'body')
      throw new DeserializeError(
        `Failed to deserialize the JSON body into the target type: missing field \`${field}\` at line 1 column ` +
          `${JSON.stringify(missing.data).length}`,
      );
    for (const e of direct) {
      const named = fieldName(
        e.keyword === 'required'
          ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
          : e.instancePath,
      );
      const message = refusal(e, named, what === 'event');
      if (message) throw new InvalidFieldError(message, named);
    }
  }

  /** The schemas a node stands for: itself and the members of its unions and intersections, $refs followed. */
  private flatten(schemas: Json[], out: Json[] = [], depth = 0): Json[] {
    for (const raw of schemas) {
      const s = this.schemas.resolve(raw);
      if (!s || typeof s !== 'object' || out.includes(s) || depth > 16) continue;
      out.push(s);
      for (const k of ['allOf', 'anyOf', 'oneOf'])
        if (Array.isArray(s[k])) this.flatten(s[k] as Json[], out, depth + 1);
      // a conditional's fields count as described (the union of its branches: lenient, never a false warning)
      for (const k of ['then', 'else'])
        if (s[k] && typeof s[k] === 'object') this.flatten([s[k] as Json], out, depth + 1);
    }
    return out;
  }

  /** Collect the fields of `value` that none of `schemas` describes (an object without `properties` is open). */
  private walk(value: unknown, schemas: Json[], at: string, out: string[]): void {
    if (value === null || typeof value !== 'object' || out.length > MAX_REPORTED) return;
    const all = this.flatten(schemas);
    if (Array.isArray(value)) {
      const items = all.map((s) => s.items).filter((i): i is Json => !!i && typeof i === 'object');
      if (items.length) for (const [i, v] of value.entries()) this.walk(v, items, `${at}[${i}]`, out);
      return;
    }
    const described = all.filter((s) => s.properties);
    const open = all.some((s) => (s.additionalProperties && s.additionalProperties !== false) || s.patternProperties);
    if (!described.length) return;
    for (const [key, v] of Object.entries(value as Json)) {
      if (out.length > MAX_REPORTED) return;
      const name = at ? `${at}.${key}` : key;
      const subs = described.map((s) => (s.properties as Record<string, Json>)[key]).filter((p): p is Json => !!p);
      if (subs.length) this.walk(v, subs, name, out);
      else if (!open) out.push(name);
    }
  }

  /**
   * Check a multipart form of `method path` against its operation's `multipart/form-data` schema: its values (a
   * number's field read as one; a file part stands for a present value) by the schema's enums, ranges, lengths and
   * required parts, refused as a JSON body's are (a missing part: 400 naming it); returns the names of the parts the
   * schema does not describe.
   */
  form(method: string, path: string, parts: readonly FormEntry[]): string[] {
    const found = this.operation(method, path);
    const content = (found && this.schemas.resolve((found.op.requestBody as Json) ?? {}).content) as
      | Record<string, Json>
      | undefined;
    const schema = content?.['multipart/form-data']?.schema as Json | undefined;
    if (!found || !schema) return [];
    const described = this.flatten([schema]);
    if (!described.some((s) => s.properties)) return [];
    const propertyOf = (name: string) =>
      described.map((s) => (s.properties as Record<string, Json> | undefined)?.[name]).find((p) => p !== undefined);
    const values: Json = {};
    for (const part of parts) {
      if (Object.hasOwn(values, part.name)) continue; // the first of a repeated name, as the routes read it
      const property = propertyOf(part.name);
      values[part.name] = part.kind === 'file' ? '' : formValue(part.value, property && this.schemas.resolve(property));
    }
    const operation = pointer(found.template, method.toLowerCase());
    const ptr = `/paths/${operation}/requestBody/content/multipart~1form-data/schema`;
    const v = this.schemas.validator(ptr);
    if (!v(values)) this.refuse(v.errors ?? [], 'form');
    return Object.keys(values).filter((n) => !propertyOf(n));
  }

  /**
   * Check the query of `method path` (of a WebSocket's opening with `method` GET) against its documented query
   * parameters: a number out of range or a value not among the allowed ones is a 400 (a WebSocket route sends its
   * message as an error event); returns the parameters the document does not describe.
   */
  query(method: string, path: string, params: URLSearchParams): string[] {
    const found = this.operation(method, path);
    if (!found) return [];
    const documented = new Map<string, Json>();
    for (const p of [...((found.item.parameters as Json[]) ?? []), ...((found.op.parameters as Json[]) ?? [])]) {
      const param = this.schemas.resolve(p);
      if (param.in === 'query') documented.set(String(param.name), this.schemas.resolve((param.schema as Json) ?? {}));
    }
    const unknown: string[] = [];
    for (const name of new Set(params.keys())) {
      const schema = documented.get(name);
      if (schema) checkQueryValue(name, params.get(name)!, schema);
      else unknown.push(name);
    }
    return unknown;
  }
}

/** A form field's text as its schema reads it: a number's field as a number when it is one (else to be refused). */
function formValue(text: string, schema: Json | undefined): unknown {
  const types = schema ? typesOf(schema) : [];
  if (!types.includes('integer') && !types.includes('number')) return text;
  return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
}

/** One query parameter's value against its schema (numbers by range, enums and consts by value; others: the route). */
function checkQueryValue(name: string, raw: string, schema: Json): void {
  const refuse = (allowed: string) =>
    new HttpError(400, `Invalid value for \`${name}\`: ${JSON.stringify(raw)}; must be ${allowed}`);
  const types = typesOf(schema);
  if (types.includes('integer') || types.includes('number')) {
    const integer = types.includes('integer');
    const n = (integer ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/).test(raw) ? Number(raw) : Number.NaN;
    const min = schema.minimum as number | undefined;
    const max = schema.maximum as number | undefined;
    if (
      !Number.isFinite(n) ||
      (integer && !Number.isInteger(n)) ||
      (min !== undefined && n < min) ||
      (max !== undefined && n > max)
    )
      // an integer's range as the list routes word it; a number's as the JSON bodies' ranges
      throw refuse(
        integer && min !== undefined && max !== undefined ? `an integer from ${min} to ${max}` : rangeWords(schema),
      );
  } else if (Array.isArray(schema.enum) || 'const' in schema) {
    const allowed = ((schema.enum as unknown[] | undefined) ?? [schema.const]).filter((v) => v !== null);
    // a number's enum (sample rates) compares by value: "16000" is 16000
    if (!allowed.some((v) => (typeof v === 'number' ? Number(raw) === v : v === raw)))
      throw refuse(`one of ${allowed.join(', ')}`);
  }
}

let shared: Promise<RequestChecker> | undefined;
let ready: RequestChecker | undefined;

/**
 * The process's checker, made on first use (~20 ms: the document read and added to ajv; each validator is compiled
 * when a request first needs it).
 */
export function requestChecker(): Promise<RequestChecker> {
  shared ??= loadApiDocument().then((doc) => {
    ready = new RequestChecker(new DocumentSchemas(doc, false, true));
    return ready;
  });
  return shared;
}

/** The checker once made (the server makes it before it listens), for WebSocket events handled synchronously. */
export const requestCheckerNow = (): RequestChecker | undefined => ready;

/** What the emulator does with fields the document does not describe. */
export interface UnknownFieldPolicy {
  /** `--strict`: 400 naming the first; otherwise a warning header and a note in the request log */
  strict: boolean;
  /** where the warning goes (header and log) */
  warn(text: string): void;
}

/** Report or refuse the unknown fields one check found (`what`: "field", "query parameter", …). */
export function handleUnknown(unknown: string[], what: string, policy: UnknownFieldPolicy): void {
  if (!unknown.length) return;
  const names = unknown.slice(0, MAX_REPORTED).map(printable);
  if (policy.strict)
    throw new HttpError(
      400,
      `Unknown ${what} \`${names[0]}\`: the API document does not describe it (the emulator runs with --strict)`,
    );
  policy.warn(`unknown ${what}${names.length > 1 ? 's' : ''} ignored: ${names.join(', ')}`);
}
