// The chat request fields as flags, and the request body built from them (every field and range of the spec).
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { ChatMessage, ChatRequest, ChatTool, ContentPart } from '../../api/chat.js';
import type { OptionSpec } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { fail, integer, isoDate, keyValue, number, oneOf, repeatable, require } from '../../core/validate.js';

export const DEFAULT_CHAT_MODEL = 'svc-latest';
export const SEARCH_MODES = ['off', 'on', 'auto'] as const;
export const SEARCH_SOURCES = ['web', 'x', 'news', 'rss'] as const;
export const REASONING_EFFORTS = ['none', 'low', 'medium', 'high'] as const;
export const SERVICE_TIERS = ['auto', 'priority'] as const;

export interface ChatFlags {
  model?: string;
  system?: string;
  image?: string[];
  fileId?: string[];
  tool?: ChatTool[][];
  toolChoice?: string;
  parallelToolCalls?: boolean;
  schema?: string;
  responseFormat?: 'text' | 'json_object';
  search?: (typeof SEARCH_MODES)[number];
  searchFrom?: string;
  searchTo?: string;
  maxSearchResults?: number;
  citations?: boolean;
  searchSource?: string[];
  searchCountry?: string;
  allowedWebsite?: string[];
  excludedWebsite?: string[];
  xHandle?: string[];
  excludedXHandle?: string[];
  rss?: string[];
  safeSearch?: boolean;
  temperature?: number;
  topP?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  maxCompletionTokens?: number;
  maxTokens?: number;
  n?: number;
  seed?: number;
  stop?: string[];
  logitBias?: Record<string, number>;
  logprobs?: boolean;
  topLogprobs?: number;
  reasoningEffort?: string;
  serviceTier?: string;
  promptCacheKey?: string;
  user?: string;
  webSearchOptions?: Record<string, unknown>;
}

const int32 = integer({ int32: true });

function readJsonFile(flag: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return fail(flag, path, `a readable JSON file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    return fail(flag, path, `a file of valid JSON (${(err as Error).message})`);
  }
}

/** A tool file holds one tool or an array; chat's nested form and the flat form are both accepted. */
export function parseToolFile(raw: string, flag: string): ChatTool[] {
  const data = readJsonFile(flag, raw);
  const list = Array.isArray(data) ? data : [data];
  return list.map((t: any, i) => {
    const fn = t?.type === 'function' && t.function ? t.function : t;
    if (!fn || typeof fn.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
      fail(flag, `${raw}[${i}]`, 'a function tool with a name of letters, digits, _ or - (at most 64)');
    }
    return { type: 'function', function: { name: fn.name, description: fn.description, parameters: fn.parameters ?? { type: 'object', properties: {} }, ...(fn.strict !== undefined ? { strict: fn.strict } : {}) } };
  });
}

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

/** A URL is sent as is; a local path becomes a data URL. */
export function imageUrl(raw: string, flag = '--image'): string {
  if (/^(https?:|data:)/i.test(raw)) return raw;
  const type = IMAGE_TYPES[extname(raw).toLowerCase()];
  if (!type) fail(flag, raw, `an http(s) URL or a .png, .jpg, .jpeg, .gif or .webp file`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(raw);
  } catch (err) {
    return fail(flag, raw, `a readable image file (${(err as NodeJS.ErrnoException).code})`);
  }
  return `data:${type};base64,${bytes.toString('base64')}`;
}

export const CHAT_REQUEST_OPTIONS: OptionSpec[] = [
  { flags: '-m, --model <id>', description: `model id or alias (default: the profile's model, else ${DEFAULT_CHAT_MODEL})` },
  { flags: '-s, --system <text>', description: 'system prompt' },
  { flags: '--image <path|url>', description: 'attach an image (repeatable); a local file is sent as a data URL', parse: repeatable() },
  { flags: '--file-id <id>', description: 'attach an uploaded file (repeatable)', parse: repeatable() },
  { flags: '--tool <file>', description: 'function tool(s) from a JSON file (repeatable; at most 128 tools)', parse: repeatable((raw, flag) => parseToolFile(raw, flag)) },
  { flags: '--tool-choice <choice>', description: 'none, auto, required, or a function name to force' },
  { flags: '--no-parallel-tool-calls', description: 'at most one tool call per answer' },
  { flags: '--schema <file>', description: 'answer as JSON valid against this JSON schema (json_schema output)' },
  { flags: '--response-format <type>', description: 'text or json_object', parse: oneOf(['text', 'json_object'] as const), choices: ['text', 'json_object'] },
  { flags: '--search <mode>', description: 'live search: off, on, auto', parse: oneOf(SEARCH_MODES), choices: SEARCH_MODES },
  { flags: '--search-from <date>', description: 'search results from this date (YYYY-MM-DD)', parse: isoDate() },
  { flags: '--search-to <date>', description: 'search results up to this date (YYYY-MM-DD)', parse: isoDate() },
  { flags: '--max-search-results <n>', description: 'search results to consider (1-30)', parse: integer({ min: 1, max: 30 }) },
  { flags: '--no-citations', description: 'do not return citations' },
  { flags: '--search-source <type>', description: `search source (repeatable): ${SEARCH_SOURCES.join(', ')}`, parse: repeatable(oneOf(SEARCH_SOURCES)), choices: SEARCH_SOURCES },
  { flags: '--search-country <code>', description: 'country for web and news search (ISO 3166-1 alpha-2)', parse: (raw, flag) => (/^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : fail(flag, raw, 'a two-letter country code')) },
  { flags: '--allowed-website <domain>', description: 'only search these websites (repeatable)', parse: repeatable() },
  { flags: '--excluded-website <domain>', description: 'never search these websites (repeatable)', parse: repeatable() },
  { flags: '--x-handle <handle>', description: 'only these social-feed handles (repeatable)', parse: repeatable() },
  { flags: '--excluded-x-handle <handle>', description: 'never these social-feed handles (repeatable)', parse: repeatable() },
  { flags: '--rss <url>', description: 'RSS feed to search (repeatable)', parse: repeatable() },
  { flags: '--no-safe-search', description: 'turn safe search off for web and news sources' },
  { flags: '-t, --temperature <n>', description: 'sampling temperature (0-2, default 1)', parse: number({ min: 0, max: 2 }) },
  { flags: '--top-p <n>', description: 'nucleus sampling (greater than 0, at most 1)', parse: number({ min: 0, minExclusive: true, max: 1 }) },
  { flags: '--frequency-penalty <n>', description: 'frequency penalty (-2 to 2); not for reasoning models', parse: number({ min: -2, max: 2 }) },
  { flags: '--presence-penalty <n>', description: 'presence penalty (-2 to 2); not for reasoning models', parse: number({ min: -2, max: 2 }) },
  { flags: '--max-completion-tokens <n>', description: 'cap on visible output tokens (1 to 2147483647; default 128000)', parse: integer({ min: 1, int32: true }) },
  { flags: '--max-tokens <n>', description: 'deprecated: use --max-completion-tokens', parse: integer({ min: 1, int32: true }) },
  { flags: '-n, --n <n>', description: 'number of choices (at least 1; all are billed)', parse: integer({ min: 1, int32: true }) },
  { flags: '--seed <n>', description: 'best-effort deterministic sampling (32-bit integer)', parse: int32 },
  { flags: '--stop <sequence>', description: 'stop sequence (repeatable, at most 4)', parse: repeatable(undefined, { max: 4 }) },
  { flags: '--logit-bias <id=bias>', description: 'token bias (repeatable; token id = -100 to 100)', parse: keyValue((v, flag, key) => {
    if (!/^\d+$/.test(key)) fail(flag, `${key}=${v}`, 'TOKEN_ID=BIAS with a whole-number token id');
    return number({ min: -100, max: 100 })(v, flag, undefined);
  }) },
  { flags: '--logprobs', description: 'return log probabilities of the output tokens' },
  { flags: '--top-logprobs <n>', description: 'most likely tokens per position (0-8); needs --logprobs', parse: integer({ min: 0, max: 8 }) },
  { flags: '--reasoning-effort <level>', description: `reasoning effort: ${REASONING_EFFORTS.join(', ')}`, parse: oneOf(REASONING_EFFORTS), choices: REASONING_EFFORTS },
  { flags: '--service-tier <tier>', description: 'auto or priority (higher priority, higher price)', parse: oneOf(SERVICE_TIERS), choices: SERVICE_TIERS },
  { flags: '--prompt-cache-key <key>', description: 'stable key for sticky routing and prompt-cache hits' },
  { flags: '--user <id>', description: 'end-user identifier for abuse monitoring' },
  { flags: '--web-search-options <json>', description: 'compatibility web_search_options object (prefer --search)', parse: (raw, flag) => {
    try {
      const v = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v;
    } catch {
      // fall through
    }
    return fail(flag, raw, 'a JSON object');
  } },
];

/** Checks that involve several flags or collected values (run before anything is sent). */
export function checkChatFlags(f: ChatFlags): ChatTool[] {
  const tools = (f.tool ?? []).flat();
  require(tools.length <= 128, '--tool', `${tools.length} tools`, 'at most 128 tools in all');
  require(f.topLogprobs === undefined || !!f.logprobs, '--top-logprobs', f.topLogprobs, 'only together with --logprobs');
  if (f.toolChoice !== undefined) {
    const builtin = ['none', 'auto', 'required'].includes(f.toolChoice);
    require(builtin || tools.some((t) => t.function.name === f.toolChoice), '--tool-choice', f.toolChoice, `none, auto, required, or the name of a --tool function${tools.length ? ` (${tools.map((t) => t.function.name).join(', ')})` : ''}`);
    require(f.toolChoice !== 'required' || tools.length > 0, '--tool-choice', f.toolChoice, 'required needs at least one --tool');
  }
  require(!(f.schema && f.responseFormat), '--schema', f.schema, 'not together with --response-format');
  require(!(f.searchFrom && f.searchTo && f.searchFrom > f.searchTo), '--search-from', f.searchFrom, `a date not after --search-to ${f.searchTo}`);
  const names = new Set<string>();
  for (const t of tools) {
    require(!names.has(t.function.name), '--tool', t.function.name, 'tool names that are unique');
    names.add(t.function.name);
  }
  return tools;
}

function searchParameters(f: ChatFlags): Record<string, unknown> | undefined {
  const any = f.search || f.searchFrom || f.searchTo || f.maxSearchResults !== undefined || f.citations === false || f.searchSource || f.allowedWebsite || f.excludedWebsite || f.xHandle || f.excludedXHandle || f.rss || f.searchCountry || f.safeSearch === false;
  if (!any) return undefined;
  const sp: Record<string, unknown> = { mode: f.search ?? 'auto' };
  if (f.searchFrom) sp.from_date = f.searchFrom;
  if (f.searchTo) sp.to_date = f.searchTo;
  if (f.maxSearchResults !== undefined) sp.max_search_results = f.maxSearchResults;
  if (f.citations === false) sp.return_citations = false;
  const types = new Set(f.searchSource ?? []);
  if (f.allowedWebsite || f.excludedWebsite) types.add('web');
  if (f.xHandle || f.excludedXHandle) types.add('x');
  if (f.rss) types.add('rss');
  if (types.size) {
    sp.sources = [...types].map((type) => {
      const s: Record<string, unknown> = { type };
      if ((type === 'web' || type === 'news') && f.searchCountry) s.country = f.searchCountry;
      if ((type === 'web' || type === 'news') && f.safeSearch === false) s.safe_search = false;
      if (type === 'web' && f.allowedWebsite) s.allowed_websites = f.allowedWebsite;
      if (type === 'web' && f.excludedWebsite) s.excluded_websites = f.excludedWebsite;
      if (type === 'x' && f.xHandle) s.included_x_handles = f.xHandle;
      if (type === 'x' && f.excludedXHandle) s.excluded_x_handles = f.excludedXHandle;
      if (type === 'rss') s.links = f.rss ?? [];
      return s;
    });
    if (types.has('rss') && !f.rss?.length) throw new UsageError('--search-source rss: needs at least one --rss URL');
  }
  return sp;
}

/** The user message: text plus any attached images and files. */
export function userMessage(text: string, f: Pick<ChatFlags, 'image' | 'fileId'>): ChatMessage {
  if (!f.image?.length && !f.fileId?.length) return { role: 'user', content: text };
  const parts: ContentPart[] = [];
  if (text) parts.push({ type: 'text', text });
  for (const img of f.image ?? []) parts.push({ type: 'image_url', image_url: { url: imageUrl(img) } });
  for (const id of f.fileId ?? []) parts.push({ type: 'file', file: { file_id: id } });
  return { role: 'user', content: parts };
}

/** The request body for the given flags and conversation (only fields the user set are sent). */
export function buildChatRequest(f: ChatFlags, messages: ChatMessage[], defaultModel: string | undefined, tools = checkChatFlags(f)): ChatRequest {
  const body: ChatRequest = { model: f.model ?? defaultModel ?? DEFAULT_CHAT_MODEL, messages };
  const set = (k: string, v: unknown) => {
    if (v !== undefined) body[k] = v;
  };
  if (tools.length) body.tools = tools;
  if (f.toolChoice !== undefined) {
    body.tool_choice = ['none', 'auto', 'required'].includes(f.toolChoice) ? f.toolChoice : { type: 'function', function: { name: f.toolChoice } };
  }
  if (f.parallelToolCalls === false) body.parallel_tool_calls = false;
  if (f.schema) {
    const data = readJsonFile('--schema', f.schema) as Record<string, unknown>;
    const wrapped = data && typeof data.schema === 'object' && !('type' in data && data.type !== 'json_schema') ? data : { name: 'response', schema: data, strict: true };
    body.response_format = { type: 'json_schema', json_schema: wrapped };
  } else if (f.responseFormat) body.response_format = { type: f.responseFormat };
  set('search_parameters', searchParameters(f));
  set('temperature', f.temperature);
  set('top_p', f.topP);
  set('frequency_penalty', f.frequencyPenalty);
  set('presence_penalty', f.presencePenalty);
  set('max_completion_tokens', f.maxCompletionTokens);
  set('max_tokens', f.maxTokens);
  set('n', f.n);
  set('seed', f.seed);
  set('stop', f.stop);
  set('logit_bias', f.logitBias);
  if (f.logprobs) body.logprobs = true;
  set('top_logprobs', f.topLogprobs);
  set('reasoning_effort', f.reasoningEffort);
  set('service_tier', f.serviceTier);
  set('prompt_cache_key', f.promptCacheKey);
  set('user', f.user);
  set('web_search_options', f.webSearchOptions);
  return body;
}
