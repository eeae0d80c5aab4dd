// The API document (spec/openapi.json) as a contract: every reply the emulator gives (status, content type, body;
// each SSE frame; each WebSocket server event; each webhook it sends) is checked against it with ajv. The test
// fixture (testing.ts) checks every reply of every test this way, so a reply the document does not allow fails the
// test that provoked it. Paths outside the API (the admin API, public file links, /openapi.json) are not checked.
import type { KeywordDefinition, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadApiDocument } from './api-document.js';

/** A reply as the server's `onReply` hook reports it. */
export type ReplyRecord =
  | {
      kind: 'http';
      method: string;
      path: string;
      status: number;
      contentType?: string;
      /** undefined when larger than the recorder keeps */
      body?: Buffer;
      /** answered by an injected fault, not by the API's rules */
      faulted?: boolean;
    }
  | { kind: 'ws-open'; path: string; status: number; faulted?: boolean }
  | { kind: 'ws-event'; path: string; data: string }
  | { kind: 'webhook'; event: unknown };

type Json = Record<string, unknown>;

const NOT_API = /^\/(_emulator\/|public\/|openapi\.json$)/;
const METHODS = ['get', 'post', 'patch', 'delete', 'put'];

export const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

export interface PathEntry {
  template: string;
  pattern: RegExp;
  item: Json;
}

/** The document's operations and schemas, compiled with ajv on first use of each (start-up stays cheap). */
/**
 * Schema keywords of the document's own (annotations ajv does not check): an audio part's longest length in seconds,
 * which the emulator and the client read from svc-formats/api-facts and measure themselves.
 */
const DOCUMENT_KEYWORDS: KeywordDefinition[] = [{ keyword: 'x-max-duration-seconds', schemaType: 'number' }];

export class DocumentSchemas {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  readonly paths: PathEntry[];

  /**
   * @param validateDocument the document's schemas checked against JSON Schema's meta-schema as they are added
   *   (~40-200 ms)
   * @param allErrors every error of a value, not the first only (the request checker picks the one to answer with)
   */
  constructor(
    readonly doc: Json,
    validateDocument = true,
    allErrors = false,
  ) {
    this.ajv = new Ajv2020({
      // an unknown keyword in a schema is an error (a typo, or a keyword of ours not registered below); the
      // document's other liberties are intended: keywords of a type without the type, union types, tuples,
      // required fields an allOf arm names, overlapping patternProperties
      strictSchema: true,
      strictNumbers: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
      allowMatchingProperties: true,
      validateFormats: false,
      validateSchema: validateDocument,
      logger: false,
      allErrors,
      verbose: allErrors,
      // a component is compiled once, not again inside every schema that refers to it
      inlineRefs: false,
    });
    // the document's top level (OpenAPI's, not a schema's) and the document's own schema keywords
    this.ajv.addVocabulary(Object.keys(doc));
    for (const keyword of DOCUMENT_KEYWORDS) this.ajv.addKeyword(keyword);
    this.ajv.addSchema(doc, 'svc-api');
    const paths = doc.paths as Record<string, Json>;
    this.paths = Object.entries(paths)
      .map(([template, item]) => ({
        template,
        item,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
      // a literal segment wins over a parameter: /v1/responses/compact before /v1/responses/{response_id}
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  find(path: string): PathEntry | undefined {
    return this.paths.find((p) => p.pattern.test(path));
  }

  /** The node at a JSON pointer of the document, following a `$ref` there. */
  at(ptr: string): Json {
    let node: unknown = this.doc;
    for (const part of ptr.split('/').slice(1)) node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return node as Json;
  }

  /** The node a `$ref` (or the node itself) stands for. */
  resolve(node: Json): Json {
    let n = node;
    for (let i = 0; i < 16 && typeof n?.$ref === 'string' && n.$ref.startsWith('#'); i++) n = this.at(n.$ref.slice(1));
    return n;
  }

  validator(ptr: string): ValidateFunction {
    let v = this.validators.get(ptr);
    if (!v) {
      v = this.ajv.compile({ $ref: `svc-api#${encodeURI(ptr)}` });
      this.validators.set(ptr, v);
    }
    return v;
  }
}

export class ContractChecker {
  private readonly schemas: DocumentSchemas;
  /** `METHOD /template STATUS` of every reply checked, `WS /path type` of every event, `webhook type` */
  readonly covered = new Set<string>();
  replies = 0;

  /**
   * @param validateDocument the document's schemas checked against JSON Schema's meta-schema as they are added
   *   (~40-200 ms); the test fixture's checker, made in every test worker, leaves that to contract.test.ts
   */
  constructor(
    private readonly doc: Json,
    validateDocument = true,
  ) {
    this.schemas = new DocumentSchemas(doc, validateDocument);
  }

  private get paths(): PathEntry[] {
    return this.schemas.paths;
  }

  static async create(validateDocument = true): Promise<ContractChecker> {
    return new ContractChecker(await loadApiDocument(), validateDocument);
  }

  /** What the document does not allow in this reply (empty: allowed). */
  check(r: ReplyRecord): string[] {
    if (r.kind === 'webhook') return this.checkWebhook(r.event);
    if (NOT_API.test(r.path)) return [];
    this.replies++;
    if (r.kind === 'ws-event') return this.checkWsEvent(r.path, r.data);
    const entry = this.paths.find((p) => p.pattern.test(r.path));
    const method = r.kind === 'ws-open' ? 'get' : r.method.toLowerCase();
    const op = entry?.item[method] as Json | undefined;
    const label = `${r.kind === 'ws-open' ? 'WS' : r.method} ${entry?.template ?? r.path}`;
    if (!entry || !op || (r.kind === 'ws-open') !== !!op['x-websocket']) {
      // no operation: the document's error body, 404 for an unknown path, 405 for another method of a known one
      const allowed = entry ? [404, 405] : [404];
      if (!allowed.includes(r.status) && !r.faulted) return [`${label}: no such operation, yet answered ${r.status}`];
      return r.kind === 'http' ? this.checkBody(label, r, '/components/schemas/Error', 'application/json') : [];
    }
    this.covered.add(`${label} ${r.status}`);
    const responses = op.responses as Record<string, Json>;
    let at = `/paths/${pointer(entry.template, method)}/responses/${r.status}`;
    let response = responses[String(r.status)];
    if (!response) {
      if (!r.faulted) return [`${label}: status ${r.status} is not among its documented statuses`];
      at = '/components/responses/Internal';
      response = this.at(at);
    }
    if (typeof response.$ref === 'string') {
      at = response.$ref.slice(1);
      response = this.at(at);
    }
    if (r.kind === 'ws-open') return [];
    const content = response.content as Record<string, Json> | undefined;
    if (!content)
      return r.body && r.body.length > 0 ? [`${label} ${r.status}: a body where the document has none`] : [];
    const type = (r.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const media = Object.keys(content).find((m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
    if (!media) return [`${label} ${r.status}: content type ${type || '(none)'} is not one of ${Object.keys(content)}`];
    return this.checkBody(`${label} ${r.status}`, r, this.bodySchema(`${at}/content/${pointer(media)}`), media);
  }

  /**
   * Where the schema of a body is; a stream's (OpenAPI 3.2 `itemSchema`: one item per server-sent event) is the
   * `contentSchema` of its events' JSON `data`, beside a `[DONE]` end where the stream has one.
   */
  private bodySchema(media: string): string {
    const data = (this.at(media).itemSchema as Json | undefined)?.properties as Json | undefined;
    if (!data) return `${media}/schema`;
    const arms = ((data.data as Json).anyOf as Json[] | undefined) ?? [];
    const i = arms.findIndex((a) => a.contentSchema);
    return `${media}/itemSchema/properties/data${i < 0 ? '' : `/anyOf/${i}`}/contentSchema`;
  }

  private at(ptr: string): Json {
    return this.schemas.at(ptr);
  }

  private validator(ptr: string): ValidateFunction {
    return this.schemas.validator(ptr);
  }

  private validate(label: string, ptr: string, value: unknown): string[] {
    const v = this.validator(ptr);
    if (v(value)) return [];
    const e = v.errors?.[0];
    const shown = JSON.stringify(value);
    const params = JSON.stringify(e?.params ?? {});
    return [
      `${label}: ${e?.instancePath || '(the body)'} ${e?.message ?? 'does not match'} ` +
        `${cut(params, 120)}; ${cut(shown, 200)}`,
    ];
  }

  private checkBody(label: string, r: ReplyRecord & { kind: 'http' }, ptr: string, media: string): string[] {
    if (!r.body) return [];
    const text = r.body.toString('utf8');
    if (media === 'application/json') {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return [`${label}: the body is not JSON: ${text.slice(0, 200)}`];
      }
      return this.validate(label, ptr, value);
    }
    if (media === 'text/event-stream') {
      const problems: string[] = [];
      for (const frame of text.split('\n\n')) {
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (!data || data === '[DONE]') continue;
        let value: unknown;
        try {
          value = JSON.parse(data);
        } catch {
          problems.push(`${label}: an event that is not JSON: ${data.slice(0, 200)}`);
          continue;
        }
        const type = (value as Json)?.type;
        this.covered.add(
          `${label.replace(/ \d+$/, '')} event ${typeof type === 'string' ? type : (value as Json)?.object}`,
        );
        problems.push(...this.validate(`${label} event`, ptr, value));
      }
      return problems;
    }
    return [];
  }

  private checkWsEvent(path: string, data: string): string[] {
    const entry = this.paths.find((p) => p.pattern.test(path));
    const op = entry?.item.get as Json | undefined;
    if (!entry || !op?.['x-websocket']) return [`WS ${path}: an event on a socket the document does not describe`];
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return [`WS ${path}: a text frame that is not JSON: ${data.slice(0, 200)}`];
    }
    const type = (value as Json)?.type;
    this.covered.add(`WS ${entry.template} event ${String(type)}`);
    return this.validate(
      `WS ${entry.template} event ${String(type)}`,
      `/paths/${pointer(entry.template)}/get/x-websocket/server`,
      value,
    );
  }

  private checkWebhook(event: unknown): string[] {
    this.replies++;
    const type = String((event as Json)?.type);
    const hooks = this.doc.webhooks as Record<string, Json>;
    if (!hooks[type]) return [`webhook ${type}: not a webhook of the document`];
    this.covered.add(`webhook ${type}`);
    return this.validate(
      `webhook ${type}`,
      `/webhooks/${pointer(type)}/post/requestBody/content/application~1json/schema`,
      event,
    );
  }

  /** Every operation of the document: `METHOD /path` (WebSocket ones as `WS /path`). */
  operations(): string[] {
    return this.paths.flatMap(({ template, item }) =>
      METHODS.filter((m) => item[m]).map(
        (m) => `${(item[m] as Json)['x-websocket'] ? 'WS' : m.toUpperCase()} ${template}`,
      ),
    );
  }
}
