// Routing and the request/response helpers every route module uses. Errors follow wire-details.md:
// JSON `{code, error}` bodies, 422 as plain text, `x-request-id` on every reply.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { KeyRecord } from '../state/auth.js';
import type { Backend } from '../state/backend.js';
import { DeserializeError, invalid } from '../core/errors.js';

/** A multipart form's part as the request check reads it (formdata.ts's FormPart fits it; a file's bytes unread). */
export type FormEntry = { kind: 'field'; name: string; value: string } | { kind: 'file'; name: string };

export interface EmuRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: IncomingMessage;
  requestId: string;
  /** the caller's key (undefined on routes with auth: false) */
  key?: KeyRecord;
  /** read the body as bytes (at most `limit` bytes, 413 beyond) */
  body(limit?: number): Promise<Buffer>;
  /**
   * read and parse a JSON body: 415 without a JSON content type, 413 beyond 32 MiB, 422 (plain text) when it does
   * not parse, nests deeper than 128, or is not an object (an array too with `array: true`)
   */
  json<T = Record<string, unknown>>(opts?: { array?: boolean }): Promise<T>;
  /**
   * a multipart form's parts checked against the document's form schema: a value it refuses is a 400 naming the
   * field; a part it does not describe is a warning (400 under --strict)
   */
  checkForm(parts: readonly FormEntry[]): void;
  /**
   * a client event of this WebSocket (one whose route reads its socket itself: STT, TTS) checked against the
   * document: the message of the error event that refuses it, or undefined; a field the document does not describe
   * is a warning in the request log (refused under --strict)
   */
  checkEvent(event: unknown): string | undefined;
}

export interface EmuResponse {
  raw: ServerResponse;
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  text(status: number, body: string, contentType?: string): void;
  empty(status: number): void;
  error(status: number, message: string, headers?: Record<string, string>): void;
  /** start a server-sent event stream */
  sse(): SseWriter;
}

export interface SseWriter {
  /** write one event; returns false once the client has gone */
  send(data: unknown, event?: string): Promise<boolean>;
  done(): void;
  /** cut the connection without ending the stream properly (fault injection) */
  drop(): void;
  readonly closed: boolean;
}

export type Handler = (req: EmuRequest, res: EmuResponse, core: Backend) => Promise<void> | void;
export type WsHandler = (ws: WebSocket, req: EmuRequest, core: Backend) => Promise<void> | void;

export interface RouteOptions {
  /** false: no API key needed (public links, webhooks) */
  auth?: boolean;
  /** ACL endpoint name (`api-key:endpoint:<name>`); defaults to the first segment after the version */
  endpoint?: string;
  /** key must have agent access (agents and phone numbers) */
  agentAccess?: boolean;
}

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
  opts: RouteOptions;
}

interface WsRoute {
  pattern: RegExp;
  keys: string[];
  handler: WsHandler;
  opts: RouteOptions;
}

function compile(path: string): { pattern: RegExp; keys: string[] } {
  const keys: string[] = [];
  const src = path
    .replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`))
    .replace(/:([a-zA-Z_]+)/g, (_m, k: string) => {
      keys.push(k);
      return '([^/]+)';
    });
  return { pattern: new RegExp(`^${src}$`), keys };
}

export class Router {
  readonly routes: Route[] = [];
  readonly wsRoutes: WsRoute[] = [];

  add(method: string, path: string, handler: Handler, opts: RouteOptions = {}): this {
    this.routes.push({ method: method.toUpperCase(), ...compile(path), handler, opts });
    return this;
  }
  get(path: string, handler: Handler, opts?: RouteOptions) {
    return this.add('GET', path, handler, opts);
  }
  post(path: string, handler: Handler, opts?: RouteOptions) {
    return this.add('POST', path, handler, opts);
  }
  patch(path: string, handler: Handler, opts?: RouteOptions) {
    return this.add('PATCH', path, handler, opts);
  }
  delete(path: string, handler: Handler, opts?: RouteOptions) {
    return this.add('DELETE', path, handler, opts);
  }
  /** a WebSocket endpoint (GET with Upgrade) */
  ws(path: string, handler: WsHandler, opts: RouteOptions = {}): this {
    this.wsRoutes.push({ ...compile(path), handler, opts });
    return this;
  }

  match(method: string, path: string): { route?: Route; params: Record<string, string>; otherMethods: string[] } {
    const otherMethods: string[] = [];
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      if (r.method !== method) {
        otherMethods.push(r.method);
        continue;
      }
      return { route: r, params: paramsOf(r.keys, m), otherMethods };
    }
    return { params: {}, otherMethods };
  }

  matchWs(path: string): { route?: WsRoute; params: Record<string, string> } {
    for (const r of this.wsRoutes) {
      const m = r.pattern.exec(path);
      if (m) return { route: r, params: paramsOf(r.keys, m) };
    }
    return { params: {} };
  }
}

function paramsOf(keys: string[], m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  keys.forEach((k, i) => {
    params[k] = decodeURIComponent(m[i + 1]!);
  });
  return params;
}

/** The emulator's bounds on a JSON body (the spec gives none): its size (413 above) and nesting (422 above). */
export const MAX_JSON_BODY = 32 * 1024 * 1024;
export const MAX_JSON_DEPTH = 128;

/** Where nesting first goes beyond `max` ([line, column], 1-based), scanning outside strings; undefined if never. */
function tooDeep(buf: Buffer, max: number): [number, number] | undefined {
  let depth = 0;
  let inString = false;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return [line, i - lineStart + 1];
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return undefined;
}

const DESERIALIZE = 'Failed to deserialize the JSON body into the target type';

/** Parse a JSON request body the way the service's deserializer refuses it: 422 text for nesting, syntax, type. */
export function parseJsonBody(buf: Buffer, allowArray: boolean): unknown {
  const deep = tooDeep(buf, MAX_JSON_DEPTH);
  if (deep) throw new DeserializeError(`${DESERIALIZE}: recursion limit exceeded at line ${deep[0]} column ${deep[1]}`);
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw new DeserializeError(`Failed to parse the request body as JSON: ${(err as Error).message}`);
  }
  const isObject = typeof value === 'object' && value !== null && (allowArray || !Array.isArray(value));
  if (!isObject) {
    const kind =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'sequence'
          : typeof value === 'string'
            ? `string ${JSON.stringify(value).slice(0, 40)}`
            : `${typeof value} \`${String(value)}\``;
    throw new DeserializeError(
      `${DESERIALIZE}: invalid type: ${kind}, expected a JSON object at line 1 column ${buf.length}`,
    );
  }
  return value;
}

/** A range the document cannot state, one that depends on the model (400 when violated). */
export function checkRange(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  opts: { integer?: boolean; minExclusive?: boolean } = {},
): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (
    typeof v !== 'number' ||
    !Number.isFinite(v) ||
    (opts.integer && !Number.isInteger(v)) ||
    (opts.minExclusive ? v <= min : v < min) ||
    v > max
  ) {
    invalid(
      `Invalid value for \`${field}\`: ${JSON.stringify(v)}; must be ` +
        `${opts.integer ? 'an integer ' : ''}${opts.minExclusive ? `greater than ${min}` : `at least ${min}`} ` +
        `and at most ${max}`,
    );
  }
}

/** A number of the query, its range already checked against the API document (request-check.ts); absent: `fallback`. */
export function queryNumber(req: EmuRequest, name: string, fallback: number): number {
  const raw = req.query.get(name);
  return raw === null ? fallback : Number(raw);
}

/**
 * One page of a list paged by `pagination_token` (the id of the last item of the page before; 400 when no item has
 * it), and the token of the next page when there is more.
 */
export function tokenPage<T>(
  all: T[],
  token: string | null,
  limit: number,
  idOf: (item: T) => string,
): { page: T[]; next?: string } {
  let start = 0;
  if (token) {
    const i = all.findIndex((item) => idOf(item) === token);
    if (i === -1) invalid(`Invalid value for \`pagination_token\`: ${token}`);
    start = i + 1;
  }
  const page = all.slice(start, start + limit);
  return start + limit < all.length ? { page, next: idOf(page[page.length - 1]!) } : { page };
}
