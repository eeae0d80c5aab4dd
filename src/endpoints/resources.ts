// The API's resources, one descriptor each: its list (the endpoint function, the key of the rows, the cursor rule,
// the page sizes), what a row is called, and how shell completion offers its ids (the kind `svc __complete` is asked
// with, the id argument and the flag that take them, the words of each value). The list commands page through
// these (cmdutil/paginate.ts), `svc __complete` fetches with them (commands/completion/dynamic.ts), and the command
// tree behind the completion scripts and docs/commands.md takes its id completion from them: a new resource is one
// descriptor here. Endpoint modules are imported when a list is fetched, so that a TAB loads only the one it needs.
import type { CompletionKind } from '../core/option-spec.js';
import type { HttpClient, Query } from '../net/http.js';
import type { ListEndpoint } from '../net/paging.js';
import type { Agent } from './agents.js';
import type { CustomVoice } from './custom-voices.js';
import type { FileObject } from './files.js';
import type { Model, ModelKind } from './models.js';
import type { PhoneNumber } from './phone.js';
import type { Skill } from './skills.js';
import { builtinVoices, listVoices } from './voices.js';

/** The documented fields of a reply or of a list in one, by the generated table's key. */
type JsonFieldsKey = keyof typeof import('./json-fields.js').JSON_FIELDS;
/** The fields, the table (endpoints/json-fields.ts) loaded on the first call: only `--json` asks. */
export type LoadFields = () => Promise<readonly string[]>;
const documented =
  (...keys: JsonFieldsKey[]): LoadFields =>
  async () => {
    const { JSON_FIELDS } = await import('./json-fields.js');
    return [...new Set(keys.flatMap((k) => JSON_FIELDS[k]))];
  };

/** One value shell completion offers, and what describes it. */
export type Entry = [value: string, description: string];

/** How `svc __complete KIND` offers a resource's ids. */
interface Completion {
  /** the word the completion scripts ask `svc __complete` with */
  kind: string;
  /** the command group whose `id` argument takes these ids (`svc files get <TAB>`) */
  idsOf?: string;
  /** the flag that takes these ids wherever it appears (`--agent`) */
  flag?: string;
}

/** Ids from the API: the first page of the resource's list (or of `from`), each row made values by `entries`. */
interface ApiCompletion<Row> extends Completion {
  /** the values of one row: its id and what describes it (a model: its aliases too) */
  entries: (row: Row) => Entry[];
  /** the list the ids come from, when not the resource's own (--voice offers the custom voices) */
  from?: ListEndpoint;
  /** offered first, and alone when the API cannot be asked (the built-in voices) */
  fixed?: readonly Entry[];
}

/** A resource the API lists; `Row` is what its completion reads. */
interface Resource<Row = never> extends ListEndpoint {
  completion?: ApiCompletion<Row>;
  /** the documented fields of a row (the API document's, json-fields.ts): what `--json FIELD,…` picks from */
  fields?: LoadFields;
}

/** A resource the API does not list: `svc __complete` reads its ids from svc's own files. */
interface LocalResource {
  completion: Completion & { local: true };
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

const FILE_PAGE = { max: 100, default: 100 } as const;
export const FILES = {
  noun: 'files',
  list: async (http, q) => (await import('./files.js')).listFiles(http, q),
  itemsKey: 'data',
  fields: documented('GET /v1/files data[]'),
  // the reply always carries a pagination_token; a page shorter than the limit is the last
  cursor: { kind: 'token', shortPageEnds: { defaultLimit: FILE_PAGE.default } },
  pageSize: FILE_PAGE,
  completion: { kind: 'files', idsOf: 'files', entries: (f) => [[f.id, str(f.filename)]] },
} as const satisfies Resource<FileObject>;

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
  fields: documented('GET /v1/agents agents[]'),
  ...oneReply({ max: 1000, default: 100 }, async (http, limit) =>
    (await import('./agents.js')).listAgents(http, limit),
  ),
  completion: { kind: 'agents', idsOf: 'agents', flag: '--agent', entries: (a) => [[a.agent_id, str(a.name)]] },
} as const satisfies Resource<Agent>;

/** The v1 list (no cursor). */
export const PHONE_NUMBERS = {
  noun: 'phone numbers',
  itemsKey: 'phone_numbers',
  fields: documented('GET /v1/phone-numbers phone_numbers[]'),
  ...oneReply({ max: 1000, default: 100 }, async (http, limit) =>
    (await import('./phone.js')).listNumbers(http, limit),
  ),
  completion: {
    kind: 'numbers',
    idsOf: 'phone',
    entries: (n) => [[str(n.phone_number_id), [str(n.phone_number), str(n.name)].filter(Boolean).join(' · ')]],
  },
} as const satisfies Resource<PhoneNumber>;

export const PHONE_NUMBERS_V2 = {
  noun: 'phone numbers',
  list: async (http, q) => (await import('./phone.js')).listV2Page(http, q),
  itemsKey: 'phone_numbers',
  fields: documented('GET /v2/phone-numbers phone_numbers[]'),
  cursor: { kind: 'token' },
  pageSize: { default: 20, clampedAt: 100 },
} as const satisfies Resource;

export const CUSTOM_VOICES = {
  noun: 'custom voices',
  list: async (http, q) => (await import('./custom-voices.js')).listCustomVoicesPage(http, q),
  itemsKey: 'voices',
  fields: documented('GET /v1/custom-voices voices[]'),
  cursor: { kind: 'token' },
  pageSize: { min: 1, max: 1000, default: 100 },
  completion: { kind: 'custom-voices', idsOf: 'custom-voices', entries: (v) => [[v.voice_id, str(v.name)]] },
} as const satisfies Resource<CustomVoice>;

/** GET /v1/tts/voices; --voice takes a built-in voice or a custom voice id. */
export const VOICES = {
  noun: 'voices',
  list: (http) => listVoices(http),
  itemsKey: 'voices',
  fields: documented('GET /v1/tts/voices voices[]'),
  cursor: { kind: 'whole' },
  completion: {
    kind: 'voices',
    flag: '--voice',
    get fixed() {
      return builtinVoices().map((v): Entry => [v, 'built-in voice']);
    },
    from: CUSTOM_VOICES,
    entries: (v) => [[v.voice_id, `custom voice${v.name ? `: ${v.name}` : ''}`]],
  },
} as const satisfies Resource<CustomVoice>;

export const SKILLS = {
  noun: 'skills',
  list: async (http, q) => (await import('./skills.js')).listSkills(http, q),
  itemsKey: 'data',
  fields: documented('GET /v1/skills data[]'),
  cursor: { kind: 'after' },
  pageSize: { max: 100, default: 100 },
  completion: { kind: 'skills', idsOf: 'skills', entries: (s) => [[s.id, str(s.name)]] },
} as const satisfies Resource<Skill>;

/** The API lists no responses: svc remembers the last stored one of each profile. */
const RESPONSES = {
  completion: { kind: 'responses', idsOf: 'responses', local: true },
} as const satisfies LocalResource;

/** svc's aliases (svc alias set): read from the config folder. */
const ALIASES = {
  completion: { kind: 'aliases', local: true },
} as const satisfies LocalResource;

/** Saved templates (svc templates save), for -t and the templates commands. */
const TEMPLATES = {
  completion: { kind: 'templates', flag: '--template', local: true },
} as const satisfies LocalResource;

/** Saved fragments (svc fragments save). */
const FRAGMENTS = {
  completion: { kind: 'fragments', local: true },
} as const satisfies LocalResource;

/** This machine's sound devices (svc audio devices), wherever --input-device / --output-device are taken. */
const INPUT_DEVICES = {
  completion: { kind: 'devices:input', flag: '--input-device', local: true },
} as const satisfies LocalResource;
const OUTPUT_DEVICES = {
  completion: { kind: 'devices:output', flag: '--output-device', local: true },
} as const satisfies LocalResource;

/** The input items of a stored response (`under`: the response id). */
export const INPUT_ITEMS = {
  noun: 'input items',
  list: async (http, q, response) => (await import('./responses.js')).listInputItems(http, response!, q),
  itemsKey: 'data',
  fields: documented('GET /v1/responses/{response_id}/input_items data[]'),
  cursor: { kind: 'after' },
  pageSize: { max: 100, default: 20 },
} as const satisfies Resource;

const MODEL_LIST_PATHS = {
  language: 'language-models',
  embedding: 'embedding-models',
  image: 'image-generation-models',
  video: 'video-generation-models',
} as const satisfies Record<ModelKind, string>;

/** The documented fields of a model, whichever list or get printed it (`models get --kind`). */
export const MODEL_FIELDS = documented(
  'GET /v1/models/{model_id}',
  ...Object.values(MODEL_LIST_PATHS).map((p) => `GET /v1/${p}/{model_id}` as const),
);

/** GET /v1/models (every model), or the list of one kind (with prices); each sent whole. */
function modelList<const K extends ModelKind | undefined>(kind: K) {
  return {
    noun: 'models',
    list: async (http) => (await (await import('./models.js')).listModels(http, kind)).raw as object,
    itemsKey: kind ? 'models' : 'data',
    fields: documented(kind ? (`GET /v1/${MODEL_LIST_PATHS[kind]} models[]` as const) : 'GET /v1/models data[]'),
    cursor: { kind: 'whole' },
    completion: {
      kind: (kind ? `models:${kind}` : 'models') as K extends ModelKind ? `models:${K}` : 'models',
      entries: (m) => [[m.id, kind ?? str(m.object)], ...(m.aliases ?? []).map((a): Entry => [a, `alias of ${m.id}`])],
    },
  } as const satisfies Resource<Model>;
}

export const MODELS = modelList(undefined);
export const MODELS_OF_KIND = {
  language: modelList('language'),
  embedding: modelList('embedding'),
  image: modelList('image'),
  video: modelList('video'),
} satisfies Record<ModelKind, Resource<Model>>;

const ALL = [
  FILES,
  AGENTS,
  PHONE_NUMBERS,
  PHONE_NUMBERS_V2,
  CUSTOM_VOICES,
  VOICES,
  SKILLS,
  RESPONSES,
  ALIASES,
  TEMPLATES,
  FRAGMENTS,
  INPUT_DEVICES,
  OUTPUT_DEVICES,
  INPUT_ITEMS,
  MODELS,
  ...Object.values(MODELS_OF_KIND),
] as const;

/** Every descriptor. */
export const RESOURCES: readonly (Resource<any> | LocalResource)[] = ALL;

type KindOf<R> = R extends { completion: { kind: infer K extends string } } ? K : never;
/** The kinds `svc __complete` fetches from the API (the others it reads from svc's own files). */
export type ApiCompletionKind = KindOf<Extract<(typeof ALL)[number], Resource<any>>>;

declare module '../core/option-spec.js' {
  /** Each descriptor's completion kind is a CompletionKind. */
  interface CompletionKinds extends Record<KindOf<(typeof ALL)[number]>, unknown> {}
}

/** The resource whose ids `svc __complete KIND` fetches from the API, or undefined for a kind read locally. */
export function apiCompletion(kind: string): { list: ListEndpoint; completion: ApiCompletion<any> } | undefined {
  for (const r of RESOURCES)
    if (r.completion?.kind === kind && 'entries' in r.completion)
      return { list: r.completion.from ?? (r as Resource<any>), completion: r.completion };
  return undefined;
}

/** What the command tree offers: kinds by the command group whose `id` argument takes them, and by flag. */
export function completionRoutes(): { ids: Record<string, CompletionKind>; flags: Record<string, CompletionKind> } {
  const ids: Record<string, CompletionKind> = {};
  const flags: Record<string, CompletionKind> = {};
  for (const { completion: c } of RESOURCES) {
    if (c?.idsOf) ids[c.idsOf] = c.kind as CompletionKind;
    if (c?.flag) flags[c.flag] = c.kind as CompletionKind;
  }
  return { ids, flags };
}
