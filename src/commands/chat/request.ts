// The chat completions request table: every field of the spec's chat request as a flag (its check and its body
// field), and the request body built from it.
import type { OptionValues } from '../../core/option-spec.js';
import type { ChatMessage, ChatRequest, ChatTool, ContentPart } from '../../endpoints/chat.js';
import {
  OUTPUT,
  PARALLEL_TOOL_CALLS,
  SEARCH_ROWS,
  modelFlag,
  sampling,
  searchParameters,
  toolChoiceFlag,
  toolFlag,
} from '../../cmdutil/flag-sets.js';
import { imageRef } from '../../cmdutil/image-ref.js';
import { apiFacts } from '../../core/lazy-api-facts.js';
import { fillBody, listedRow, type RequestRow } from '../../core/request-table.js';
import { checkTools, readJsonFile } from '../../cmdutil/tool-file.js';
import { fail, integer, keyValue, number, oneOf, repeatable, require } from '../../core/validate.js';

/** chat completions' reasoning_effort (the document's ChatRequest), read when the flag needs it */
const chatReasoningEfforts = () => apiFacts().SCHEMAS.ChatRequest['$.reasoning_effort'].enum;
const chatServiceTiers = () => apiFacts().SCHEMAS.ChatRequest['$.service_tier'].enum;
/** tool_choice's modes (a string; else a function is forced) */
const chatToolChoices = () => apiFacts().SCHEMAS.ChatRequest['$.tool_choice'].enum;

export type ChatFlags = OptionValues<typeof CHAT_REQUEST_ROWS> & {
  /** a template's schema (cmdutil/templates.ts), used when --schema gives none: no flag of its own */
  schemaValue?: unknown;
};

function jsonObject(raw: string, flag: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch {
    // fall through
  }
  return fail(flag, raw, 'a JSON object');
}

/** The rows shared by `svc chat` and its REPL: POST /v1/chat/completions. */
export const CHAT_REQUEST_ROWS = [
  modelFlag(),
  { flags: '-s, --system <text>', description: 'system prompt', reaches: ['messages'] },
  {
    flags: '--image <path|url>',
    description: 'attach an image (repeatable); a local file is sent as a data URL',
    parse: repeatable(),
    reaches: ['messages'],
  },
  {
    flags: '--file-id <id>',
    description: 'attach an uploaded file (repeatable)',
    parse: repeatable(),
    reaches: ['messages'],
  },
  toolFlag(),
  toolChoiceFlag(chatToolChoices),
  PARALLEL_TOOL_CALLS,
  {
    flags: '--schema <file>',
    description: 'answer as JSON valid against this JSON schema (json_schema output)',
    reaches: ['response_format'],
  },
  {
    flags: '--response-format <type>',
    description: 'text or json_object',
    parse: oneOf(['text', 'json_object'] as const),
    choices: ['text', 'json_object'],
    reaches: ['response_format'],
  },
  ...SEARCH_ROWS,
  ...sampling(['temperature', 'topP', 'frequencyPenalty', 'presencePenalty']),
  {
    flags: '--max-completion-tokens <n>',
    description: 'cap on visible output tokens (1 to 2147483647; default 128000)',
    parse: integer({ min: 1, int32: true }),
    field: 'max_completion_tokens',
  },
  {
    flags: '--max-tokens <n>',
    description: 'deprecated: use --max-completion-tokens',
    parse: integer({ min: 1, int32: true }),
    field: 'max_tokens',
  },
  {
    flags: '-n, --n <n>',
    description: 'number of choices (at least 1; all are billed)',
    parse: integer({ min: 1, int32: true }),
    field: 'n',
  },
  ...sampling(['seed', 'stop']),
  {
    flags: '--logit-bias <id=bias>',
    description: 'token bias (repeatable; token id = -100 to 100)',
    parse: keyValue((v, flag, key) => {
      if (!/^\d+$/.test(key)) fail(flag, `${key}=${v}`, 'TOKEN_ID=BIAS with a whole-number token id');
      return number({ min: -100, max: 100 })(v, flag, undefined);
    }),
    field: 'logit_bias',
  },
  OUTPUT.logprobs,
  OUTPUT.topLogprobs,
  listedRow(
    { flags: '--reasoning-effort <level>', field: 'reasoning_effort' },
    chatReasoningEfforts,
    (levels) => `reasoning effort: ${levels.join(', ')}`,
  ),
  listedRow(
    { flags: '--service-tier <tier>', field: 'service_tier' },
    chatServiceTiers,
    () => 'auto or priority (higher priority, higher price)',
  ),
  {
    flags: '--prompt-cache-key <key>',
    description: 'stable key for sticky routing and prompt-cache hits',
    field: 'prompt_cache_key',
  },
  { flags: '--user <id>', description: 'end-user identifier for abuse monitoring', field: 'user' },
  {
    flags: '--web-search-options <json>',
    description: 'compatibility web_search_options object (prefer --search)',
    parse: jsonObject,
    field: 'web_search_options',
  },
] as const satisfies readonly RequestRow[];

/** Checks that involve several flags or collected values (run before anything is sent). */
export function checkChatFlags(f: ChatFlags): ChatTool[] {
  const tools = checkTools(f.tool, f.toolChoice, chatToolChoices, 'required') as ChatTool[];
  require(f.topLogprobs === undefined ||
    !!f.logprobs, '--top-logprobs', f.topLogprobs, 'only together with --logprobs');
  require(!((f.schema || f.schemaValue) && f.responseFormat), '--schema', f.schema ??
    "(the template's)", 'not together with --response-format');
  searchParameters(f);
  return tools;
}

/** The user message: text plus any attached images and files. */
export function userMessage(text: string, f: Pick<ChatFlags, 'image' | 'fileId'>): ChatMessage {
  if (!f.image?.length && !f.fileId?.length) return { role: 'user', content: text };
  const parts: ContentPart[] = [];
  if (text) parts.push({ type: 'text', text });
  for (const img of f.image ?? []) parts.push({ type: 'image_url', image_url: { url: imageRef(img) } });
  for (const id of f.fileId ?? []) parts.push({ type: 'file', file: { file_id: id } });
  return { role: 'user', content: parts };
}

/** The request body for the given flags and conversation (only fields the user set are sent). */
export function buildChatRequest(
  f: ChatFlags,
  messages: ChatMessage[],
  model: string,
  tools = checkChatFlags(f),
): ChatRequest {
  const body: ChatRequest = { model, messages };
  if (tools.length) body.tools = tools;
  if (f.toolChoice !== undefined) {
    const mode = chatToolChoices().find((m) => m === f.toolChoice);
    body.tool_choice = mode ?? { type: 'function', function: { name: f.toolChoice } };
  }
  if (f.schema || f.schemaValue !== undefined) {
    const data = (f.schema ? readJsonFile('--schema', f.schema) : f.schemaValue) as Record<string, unknown>;
    const wrapped =
      data && typeof data.schema === 'object' && !('type' in data && data.type !== 'json_schema')
        ? data
        : { name: 'response', schema: data, strict: true };
    body.response_format = { type: 'json_schema', json_schema: wrapped };
  } else if (f.responseFormat) body.response_format = { type: f.responseFormat };
  const search = searchParameters(f);
  if (search) body.search_parameters = search;
  return fillBody(CHAT_REQUEST_ROWS, f, body);
}
