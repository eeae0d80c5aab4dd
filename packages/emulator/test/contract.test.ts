// The API document (spec/openapi.json) itself, and the contract it makes with the emulator: the document is a valid
// OpenAPI 3.2 document whose schemas are valid JSON Schemas, its operations are exactly the emulator's routes, the
// emulator serves it, and the checker that the test fixture runs on every reply of the suite refuses replies the
// document does not allow.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractChecker, DocumentSchemas } from '../src/core/contract.js';
import { Router } from '../src/http/router.js';
import { registerAllRoutes } from '../src/routes/index.js';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

type Json = Record<string, any>;
const doc = JSON.parse(readFileSync(fileURLToPath(new URL('../spec/openapi.json', import.meta.url)), 'utf8')) as Json;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** every object under `node` with its JSON pointer */
function* walk(node: unknown, at = ''): Generator<[Json, string]> {
  if (!node || typeof node !== 'object') return;
  yield [node as Json, at];
  for (const [k, v] of Object.entries(node)) yield* walk(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

function resolvePointer(ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<any>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

describe('the API document', () => {
  it('is valid by the OpenAPI 3.2 schema (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has unique operation ids, success and error statuses, declared path parameters, one webhook', () => {
    expect(doc.openapi).toMatch(/^3\.2\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBe('1.0.0');
    const ids = new Set<string>();
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      expect(path, path).toMatch(/^\/v[12]\/[a-z0-9_\-/{}]+$/);
      for (const method of Object.keys(item)) expect(['parameters', ...METHODS], `${path} ${method}`).toContain(method);
      for (const method of METHODS.filter((m) => item[m])) {
        const op = item[method] as Json;
        operations++;
        expect(ids.has(op.operationId), `${op.operationId} twice`).toBe(false);
        ids.add(op.operationId);
        const statuses = Object.keys(op.responses);
        expect(statuses.length, `${method} ${path}`).toBeGreaterThan(1);
        for (const s of statuses) expect(s).toMatch(/^[1-5]\d\d$/);
        expect(
          statuses.some((s) => /^[12]/.test(s)),
          `${method} ${path}: a success status`,
        ).toBe(true);
        const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])]
          .map((p: Json) => (p.$ref ? resolvePointer(p.$ref) : p) as Json)
          .filter((p) => p.in === 'path')
          .map((p) => p.name);
        const templated = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
        expect(declared.sort(), `${method} ${path}`).toEqual(templated.sort());
      }
    }
    // as many ids as operations, whatever their number: a new operation needs no edit here
    expect(ids.size).toBe(operations);
    expect(Object.keys(doc.webhooks)).toEqual(['realtime.call.incoming']);
  });

  it('every $ref resolves, and every schema is a valid JSON Schema 2020-12 (its meta-schema)', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, inlineRefs: false });
    ajv.addSchema(doc, 'svc-api');
    let refs = 0;
    const schemas: string[] = [];
    for (const [node, at] of walk(doc)) {
      if (typeof node.$ref === 'string') {
        refs++;
        expect(node.$ref, at).toMatch(/^#\/components\//);
        expect(resolvePointer(node.$ref), `${at} → ${node.$ref}`).toBeDefined();
      }
      if (/\/(schema|itemSchema)$|^\/components\/schemas\/[^/]+$|\/x-websocket\/(client|server)$/.test(at)) {
        expect(ajv.validateSchema(node), `${at}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
        schemas.push(at);
      }
    }
    // compiling all of them costs seconds: the checker compiles those the suite's replies use, this one the webhook
    expect(() =>
      ajv.compile({ $ref: `svc-api#${encodeURI(schemas.find((at) => at.startsWith('/webhooks'))!)}` }),
    ).not.toThrow();
    expect(refs).toBeGreaterThan(500);
    expect(schemas.length).toBeGreaterThan(150);
  });

  it("compiles under the checker's strict ajv: its own keywords registered, an unknown one refused", () => {
    const form = '/paths/~1v1~1custom-voices/post/requestBody/content/multipart~1form-data/schema';
    expect(() => new DocumentSchemas(doc, false).validator(form)).not.toThrow();
    const typo = structuredClone(doc);
    typo.paths['/v1/custom-voices'].post.requestBody.content['multipart/form-data'].schema.properties.file[
      'x-max-duration-secs'
    ] = 120;
    expect(() => new DocumentSchemas(typo, false).validator(form)).toThrow(/unknown keyword: "x-max-duration-secs"/);
  });

  it('is complete: a summary on every operation, items on every array, required names among the properties', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries({ ...doc.paths, ...doc.webhooks } as Record<string, Json>))
      for (const method of METHODS.filter((m) => item[m]))
        if (!item[method].summary) problems.push(`${method} ${path}: no summary`);
    /** the properties a schema defines, with those of the arms it combines (allOf) and of the schema around it */
    const defined = (s: Json, outer: string[]): string[] => [
      ...outer,
      ...Object.keys(s.properties ?? {}),
      ...(s.allOf ?? []).flatMap((x: Json) => defined(x.$ref ? (resolvePointer(x.$ref) as Json) : x, [])),
    ];
    const visit = (node: unknown, at: string, outer: string[]): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((x, i) => visit(x, `${at}/${i}`, outer));
      const s = node as Json;
      const here = Array.isArray(s.required) || s.properties || s.allOf ? defined(s, outer) : outer;
      if ((s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) && !('items' in s))
        problems.push(`${at}: an array without items`);
      if (Array.isArray(s.required))
        for (const name of s.required)
          if (typeof name === 'string' && !here.includes(name)) problems.push(`${at}: required ${name} is not defined`);
      for (const [k, v] of Object.entries(s))
        visit(v, `${at}/${k}`, ['then', 'else', 'allOf', 'anyOf', 'oneOf'].includes(k) ? here : []);
    };
    visit(doc, '', []);
    expect(problems).toEqual([]);
  });

  it('describes each stream as its events (itemSchema) and names the WebSocket events among its components', () => {
    for (const [node, at] of walk(doc.paths))
      if (node['text/event-stream']) {
        expect(node['text/event-stream'].schema, at).toBeUndefined();
        expect(node['text/event-stream'].itemSchema.properties.data, at).toBeDefined();
      }
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const ws = item.get?.['x-websocket'];
      if (!ws) continue;
      for (const side of ['client', 'server'])
        expect(ws[side].$ref, `${path} ${side}`).toMatch(/^#\/components\/schemas\//);
    }
  });

  it("names an agent's writable fields again, as the field mask's paths: AgentFields' properties", () => {
    // JSON Schema cannot say "one of the properties' names": client and emulator read the mask's enum
    const patch = doc.paths['/v1/agents/{agent_id}'].patch.requestBody.content['application/json'].schema;
    expect(patch.properties.field_mask.properties.paths.items.enum).toEqual(
      Object.keys(doc.components.schemas.AgentFields.properties),
    );
  });

  it('describes exactly the routes of the emulator (its admin API and public links aside)', () => {
    const router = new Router();
    registerAllRoutes(router);
    const source = (r: { pattern: RegExp }) => r.pattern.source.replace(/\\\//g, '/');
    const routes = [
      ...router.routes.map((r) => `${r.method} ${source(r)}`),
      ...router.wsRoutes.map((r) => `WS ${source(r)}`),
    ].filter((r) => !/ \^\/(_emulator|public)\//.test(r));
    const operations = new ContractChecker(doc).operations();
    const asPattern = (op: string) => {
      const [method, path] = op.split(' ');
      return `${method} ^${path!.replace(/\{[^}]+\}/g, '([^/]+)')}$`;
    };
    expect(operations.map(asPattern).sort()).toEqual(routes.sort());
  });
});

describe('the contract checker', () => {
  let checker: ContractChecker;
  beforeAll(async () => {
    checker = await ContractChecker.create();
  });
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  const file = { id: 'file_1', object: 'file', bytes: 3, created_at: 1, expires_at: null, filename: 'a', purpose: 'x' };
  const get = (path: string, status: number, body: unknown, contentType = 'application/json') =>
    checker.check({ kind: 'http', method: 'GET', path, status, contentType, body: json(body) });

  it('allows the replies the document describes', () => {
    expect(get('/v1/files/file_1', 200, file)).toEqual([]);
    expect(get('/v1/files/file_1', 404, { code: 'not-found', error: 'no such file' })).toEqual([]);
    expect(get('/v1/nothing-here', 404, { code: 'not-found', error: 'No such endpoint' })).toEqual([]);
    expect(
      checker.check({
        kind: 'http',
        method: 'GET',
        path: '/v1/chat/deferred-completion/abc',
        status: 202,
        body: Buffer.alloc(0),
      }),
    ).toEqual([]);
    expect(checker.check({ kind: 'ws-event', path: '/v1/tts', data: '{"type":"audio.done","trace_id":"t"}' })).toEqual(
      [],
    );
  });

  it('refuses a status, a body, a content type, an SSE event, a WebSocket event, a webhook it does not allow', () => {
    expect(get('/v1/files/file_1', 409, { code: 'conflict', error: 'x' })[0]).toMatch(
      /GET \/v1\/files\/\{file_id\}: status 409 is not among its documented statuses/,
    );
    expect(get('/v1/files/file_1', 200, { ...file, bytes: 'three' })[0]).toMatch(/\/bytes must be integer/);
    expect(get('/v1/files/file_1', 200, { id: 'file_1' })[0]).toMatch(/must have required property 'object'/);
    expect(get('/v1/files/file_1', 404, { message: 'gone' })[0]).toMatch(/required property 'code'/);
    expect(get('/v1/files/file_1', 200, file, 'text/html')[0]).toMatch(/content type text\/html is not one of/);
    const sse = Buffer.from('data: {"id":"c","object":"chat.completion","created":1,"model":"m","choices":[]}\n\n');
    expect(
      checker.check({
        kind: 'http',
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
        contentType: 'text/event-stream',
        body: sse,
      })[0],
    ).toMatch(/event: \/object must be equal to constant/);
    expect(checker.check({ kind: 'ws-event', path: '/v1/stt', data: '{"type":"transcript.final"}' })[0]).toMatch(
      /WS \/v1\/stt event transcript.final/,
    );
    expect(checker.check({ kind: 'ws-open', path: '/v1/tts', status: 200 })[0]).toMatch(/status 200/);
    expect(checker.check({ kind: 'webhook', event: { type: 'realtime.call.incoming' } })[0]).toMatch(
      /webhook realtime.call.incoming: .*required property/,
    );
  });

  it('excuses the status of an injected fault, never its body', () => {
    const faulted = (status: number, body: unknown) =>
      checker.check({
        kind: 'http',
        method: 'GET',
        path: '/v1/files',
        status,
        contentType: 'application/json',
        body: json(body),
        faulted: true,
      });
    expect(faulted(418, { code: 'unknown', error: 'injected fault 418' })).toEqual([]);
    expect(faulted(418, { oops: true })[0]).toMatch(/required property 'code'/);
  });
});

describe('the emulator and its test fixture', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('serves the document at /openapi.json, without a key', async () => {
    const res = await fetch(`${emu.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual(doc);
  });

  it('answers the model catalogue by id in the shapes of the document (each kind, and an unknown id)', async () => {
    const get = (path: string) => fetch(`${emu.url}${path}`, { headers: { authorization: `Bearer ${emu.key}` } });
    for (const [kind, id] of [
      ['embedding-models', 'svc-embed-1'],
      ['image-generation-models', 'svc-image-1'],
      ['video-generation-models', 'svc-video-1'],
    ]) {
      expect((await get(`/v1/${kind}/${id}`)).status, kind).toBe(200);
      expect((await get(`/v1/${kind}/no-such-model`)).status, kind).toBe(404);
    }
    // the replies were checked as they went: close() (afterAll) fails on any the document does not allow
  });

  it('fails the test whose emulator gave a reply the document does not allow (close() names it)', async () => {
    const other = await startTestEmulator();
    other.core.emit('webhook', { object: 'event', type: 'realtime.call.incoming' });
    await expect(other.close()).rejects.toThrow(
      /1 repl\(ies\) the API document \(spec\/openapi.json\) does not allow:\nwebhook realtime.call.incoming/,
    );
  });
});
