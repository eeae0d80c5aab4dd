// The API document (packages/emulator/spec/openapi.json) read by tests: its operations and the request parameters
// of each, as the API-parameter coverage test names them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './files.js';

type Json = Record<string, any>;

export const API_DOCUMENT_PATH = join(ROOT, 'packages', 'emulator', 'spec', 'openapi.json');

export function readApiDocument(): Json {
  return JSON.parse(readFileSync(API_DOCUMENT_PATH, 'utf8')) as Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function resolve(doc: Json, node: Json): Json {
  let n = node;
  while (typeof n?.$ref === 'string') {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n;
}

/**
 * The fields of a body schema: each property, and a property whose schema is written inline with `properties` (a
 * documented nested object: `voice`, `search_parameters`) as its dotted fields instead. A property that refers to a
 * named schema (`agent`, `text`, `response_format`) is one parameter, set as a whole. The properties of an `allOf`
 * arm are the body's own (POST /v1/agents: AgentFields and a required name).
 */
function fields(doc: Json, schema: Json, prefix = ''): string[] {
  const arms = ((schema.allOf ?? []) as Json[]).map((arm) => resolve(doc, arm).properties ?? {});
  const properties: Record<string, Json> = Object.assign({}, ...arms, schema.properties ?? {});
  return Object.entries(properties).flatMap(([name, s]) =>
    s.properties && !s.$ref ? fields(doc, s, `${prefix}${name}.`) : [`${prefix}${name}`],
  );
}

/**
 * Every operation of the document (`METHOD /path`; a WebSocket handshake as `WS /path`) and its request
 * parameters: query parameters and body or form fields. Path parameters are the commands' positional arguments and
 * are not listed.
 */
export function apiOperations(doc: Json = readApiDocument()): Record<string, { parameters: string[] }> {
  const out: Record<string, { parameters: string[] }> = {};
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const query = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: Json) => resolve(doc, p))
        .filter((p: Json) => p.in === 'query')
        .map((p: Json) => p.name as string);
      const content = (op.requestBody?.content ?? {}) as Record<string, Json>;
      const body = Object.values(content)[0];
      const parameters = [...query, ...(body ? fields(doc, resolve(doc, body.schema)) : [])];
      out[`${op['x-websocket'] ? 'WS' : method.toUpperCase()} ${path}`] = { parameters };
    }
  }
  return out;
}
