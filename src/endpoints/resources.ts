// The API's resources, one descriptor each: its list (the endpoint function, the key of the rows, the cursor rule,
// the page sizes) and what a row is called. The list commands page through these (cmdutil/paginate.ts). Endpoint
// modules are imported when a list is fetched.
import type { HttpClient, Query } from '../net/http.js';
import type { ListEndpoint } from '../net/paging.js';
import type { ModelKind } from './models.js';
import { listVoices } from './voices.js';

/** A resource the API lists. */
type Resource = ListEndpoint;

const FILE_PAGE = { max: 100, default: 100 } as const;
export const FILES = {
  noun: 'files',
  list: async (http, q) => (await import('./files.js')).listFiles(http, q),
  itemsKey: 'data',
  // the reply always carries a pagination_token; a page shorter than the limit is the last
  cursor: { kind: 'token', shortPageEnds: { defaultLimit: FILE_PAGE.default } },
  pageSize: FILE_PAGE,
} as const satisfies Resource;

/** No cursor in the API: one reply of at most `max` rows, the endpoint taking only the limit. */
function oneReply(size: { max: number; default: number }, list: (http: HttpClient, limit?: number) => Promise<object>) {
  return {
    list: (http: HttpClient, q: Query) => list(http, q.limit as number | undefined),
    cursor: { kind: 'none', max: size.max },
    pageSize: { min: 1, ...size },
  } as const;
}

export const AGENTS = {
  noun: 'agents',
  itemsKey: 'agents',
  ...oneReply({ max: 1000, default: 100 }, async (http, limit) =>
    (await import('./agents.js')).listAgents(http, limit),
  ),
} as const satisfies Resource;

/** The v1 list (no cursor). */
export const PHONE_NUMBERS = {
  noun: 'phone numbers',
  itemsKey: 'phone_numbers',
  ...oneReply({ max: 1000, default: 100 }, async (http, limit) =>
    (await import('./phone.js')).listNumbers(http, limit),
  ),
} as const satisfies Resource;

export const PHONE_NUMBERS_V2 = {
  noun: 'phone numbers',
  list: async (http, q) => (await import('./phone.js')).listV2Page(http, q),
  itemsKey: 'phone_numbers',
  cursor: { kind: 'token' },
  pageSize: { default: 20, clampedAt: 100 },
} as const satisfies Resource;

export const CUSTOM_VOICES = {
  noun: 'custom voices',
  list: async (http, q) => (await import('./custom-voices.js')).listCustomVoicesPage(http, q),
  itemsKey: 'voices',
  cursor: { kind: 'token' },
  pageSize: { min: 1, max: 1000, default: 100 },
} as const satisfies Resource;

/** GET /v1/tts/voices */
export const VOICES = {
  noun: 'voices',
  list: (http) => listVoices(http),
  itemsKey: 'voices',
  cursor: { kind: 'whole' },
} as const satisfies Resource;

export const SKILLS = {
  noun: 'skills',
  list: async (http, q) => (await import('./skills.js')).listSkills(http, q),
  itemsKey: 'data',
  cursor: { kind: 'after' },
  pageSize: { max: 100, default: 100 },
} as const satisfies Resource;

/** The input items of a stored response (`under`: the response id). */
export const INPUT_ITEMS = {
  noun: 'input items',
  list: async (http, q, response) => (await import('./responses.js')).listInputItems(http, response!, q),
  itemsKey: 'data',
  cursor: { kind: 'after' },
  pageSize: { max: 100, default: 20 },
} as const satisfies Resource;

/** GET /v1/models (every model), or the list of one kind (with prices); each sent whole. */
function modelList(kind: ModelKind | undefined) {
  return {
    noun: 'models',
    list: async (http) => (await (await import('./models.js')).listModels(http, kind)).raw as object,
    itemsKey: kind ? 'models' : 'data',
    cursor: { kind: 'whole' },
  } as const satisfies Resource;
}

export const MODELS = modelList(undefined);
export const MODELS_OF_KIND = {
  language: modelList('language'),
  embedding: modelList('embedding'),
  image: modelList('image'),
  video: modelList('video'),
} satisfies Record<ModelKind, Resource>;
