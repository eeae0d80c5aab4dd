// The operations a batch can run, one per endpoint that makes sense in bulk, named like the commands. Each says how
// a row's text becomes a request body (with the flags that apply to it), which fields a JSON line's own body must
// have, how the reply is sent (the endpoint functions of endpoints/) and what of it goes into the output.
import type { HttpClient } from '../net/http.js';
import { SCHEMAS } from 'svc-formats/api-facts';

export const OPERATIONS = [
  'chat',
  'responses',
  'messages',
  'embed',
  'tokenize',
  'images',
  'tts',
  'stt',
  'documents',
] as const;
export type OperationName = (typeof OPERATIONS)[number];

/** The flags of `svc batch` that shape bodies (each operation takes some of them). */
export interface BodyFlags {
  model?: string;
  system?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** --schema FILE, read: a JSON schema (or {name, schema, strict}) */
  schema?: Record<string, unknown>;
  dimensions?: number;
  voice?: string;
  language?: string;
  codec?: string;
  collection?: string[];
  limit?: number;
  aspectRatio?: string;
}

/** What a reply leaves in the output: the reply (binary parts taken out), its text, files to save. */
export interface RowResult {
  reply: unknown;
  text?: string;
  usage?: unknown;
  model?: string;
  /** bytes to save into --output-dir: one per image or audio clip, with the extension to give its file */
  files?: { data: Buffer; ext: string }[];
}

export interface Operation {
  name: OperationName;
  /** the endpoint, as `METHOD /path` */
  endpoint: string;
  /** the column or field a row's text is read from when there is no --template */
  textVar: string;
  /** the flags (BodyFlags keys) that apply */
  flags: (keyof BodyFlags)[];
  /** fields a JSON line's own body must have */
  required: string[];
  /** the model sent when neither -m nor the row names one (undefined: the profile's language model) */
  defaultModel?: string;
  /** binary results are saved into --output-dir */
  binary?: boolean;
  /** replies carry usage, so the spend can be counted (--budget) */
  priced?: boolean;
  /** the body for a row's text */
  fromText(text: string, f: BodyFlags, model: string): Record<string, unknown>;
  /** the fields the flags give to a JSON line's own body (its own fields win) */
  defaults(f: BodyFlags, model: string): Record<string, unknown>;
  send(http: HttpClient, body: Record<string, unknown>, signal: AbortSignal): Promise<RowResult>;
  /**
   * The API can run it deferred (--deferred): `accept` sends the body and gives the request id the API took it
   * under, `collect` fetches the answer by that id (costing nothing more), waiting while it is pending.
   */
  deferred?: {
    accept(http: HttpClient, body: Record<string, unknown>, signal: AbortSignal): Promise<string>;
    collect(http: HttpClient, requestId: string, signal: AbortSignal): Promise<RowResult>;
  };
}

/** Polls of a deferred answer: the first soon, then each half as long again as the last, up to 2 s apart. */
const DEFERRED_POLL_MS = { first: 100, max: 2000 };

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, unknown>;

const sampling = (f: BodyFlags) => defined({ temperature: f.temperature, top_p: f.topP, seed: f.seed });

/** --schema as chat completions want it: {type: json_schema, json_schema: {name, schema, strict}} */
function chatFormat(schema: Record<string, unknown> | undefined) {
  if (!schema) return undefined;
  const wrapped = typeof schema.schema === 'object' ? schema : { name: 'response', schema, strict: true };
  return { type: 'json_schema', json_schema: wrapped };
}

function responsesFormat(schema: Record<string, unknown> | undefined) {
  if (!schema) return undefined;
  const w = (typeof schema.schema === 'object' ? schema : { name: 'response', schema, strict: true }) as Record<
    string,
    unknown
  >;
  return { format: { type: 'json_schema', ...w } };
}

const chat: Operation = {
  name: 'chat',
  priced: true,
  endpoint: 'POST /v1/chat/completions',
  textVar: 'prompt',
  flags: ['model', 'system', 'temperature', 'topP', 'maxTokens', 'seed', 'schema'],
  required: ['messages'],
  defaults: (f, model) =>
    defined({ model, ...sampling(f), max_completion_tokens: f.maxTokens, response_format: chatFormat(f.schema) }),
  fromText(text, f, model) {
    const messages = [...(f.system ? [{ role: 'system', content: f.system }] : []), { role: 'user', content: text }];
    return { ...this.defaults(f, model), messages };
  },
  async send(http, body, signal) {
    const { createChat } = await import('../endpoints/chat.js');
    return chatResult(await createChat(http, body as never, signal));
  },
  deferred: {
    async accept(http, body, signal) {
      const { createDeferredChat } = await import('../endpoints/chat.js');
      return (await createDeferredChat(http, body as never, signal)).request_id;
    },
    async collect(http, requestId, signal) {
      const { getDeferredChat } = await import('../endpoints/chat.js');
      const { sleep } = await import('../net/http.js');
      for (let wait = DEFERRED_POLL_MS.first; ; wait = Math.min(wait * 1.5, DEFERRED_POLL_MS.max)) {
        const reply = await getDeferredChat(http, requestId, signal);
        if (reply) return chatResult(reply);
        await sleep(wait, signal);
      }
    },
  },
};

function chatResult(reply: import('../endpoints/chat.js').ChatResponse): RowResult {
  const content = reply.choices?.[0]?.message?.content;
  return { reply, text: typeof content === 'string' ? content : undefined, usage: reply.usage, model: reply.model };
}

const responses: Operation = {
  name: 'responses',
  priced: true,
  endpoint: 'POST /v1/responses',
  textVar: 'prompt',
  flags: ['model', 'system', 'temperature', 'topP', 'maxTokens', 'schema'],
  required: ['input'],
  defaults: (f, model) =>
    defined({
      model,
      temperature: f.temperature,
      top_p: f.topP,
      max_output_tokens: f.maxTokens,
      instructions: f.system,
      text: responsesFormat(f.schema),
      store: false,
    }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), input: text };
  },
  async send(http, body, signal) {
    const { createResponse, outputText } = await import('../endpoints/responses.js');
    const reply = await createResponse(http, body as never, signal);
    return { reply, text: outputText(reply), usage: reply.usage, model: reply.model };
  },
};

const messages: Operation = {
  name: 'messages',
  priced: true,
  endpoint: 'POST /v1/messages',
  textVar: 'prompt',
  flags: ['model', 'system', 'temperature', 'topP', 'maxTokens'],
  required: ['messages'],
  // the convention requires max_tokens
  defaults: (f, model) =>
    defined({ model, system: f.system, temperature: f.temperature, top_p: f.topP, max_tokens: f.maxTokens ?? 1024 }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), messages: [{ role: 'user', content: text }] };
  },
  async send(http, body, signal) {
    const { createMessage, messageText } = await import('../endpoints/messages.js');
    const reply = await createMessage(http, body as never, signal);
    return { reply, text: messageText(reply), usage: reply.usage, model: reply.model };
  },
};

const embed: Operation = {
  name: 'embed',
  priced: true,
  endpoint: 'POST /v1/embeddings',
  textVar: 'text',
  flags: ['model', 'dimensions'],
  required: ['input'],
  defaultModel: 'svc-embed-1',
  defaults: (f, model) => defined({ model, dimensions: f.dimensions }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), input: [text] };
  },
  async send(http, body, signal) {
    const { createEmbeddings } = await import('../endpoints/embeddings.js');
    const reply = await createEmbeddings(http, body as never, signal);
    return { reply, usage: reply.usage, model: reply.model };
  },
};

const tokenize: Operation = {
  name: 'tokenize',
  endpoint: 'POST /v1/tokenize-text',
  textVar: 'text',
  flags: ['model'],
  required: ['text'],
  defaults: (_f, model) => ({ model }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), text };
  },
  async send(http, body, signal) {
    const { tokenizeText } = await import('../endpoints/tokenize.js');
    const reply = await tokenizeText(http, body as never, signal);
    return { reply, text: String(reply.token_ids.length) };
  },
};

const images: Operation = {
  name: 'images',
  endpoint: 'POST /v1/images/generations',
  textVar: 'prompt',
  flags: ['model', 'aspectRatio'],
  required: ['prompt'],
  defaultModel: 'svc-image-1',
  binary: true,
  defaults: (f, model) => defined({ model, aspect_ratio: f.aspectRatio, response_format: 'b64_json' }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), prompt: text };
  },
  async send(http, body, signal) {
    const { generateImages } = await import('../endpoints/images.js');
    const { raw, data } = await generateImages(http, body as never, signal);
    const files: RowResult['files'] = [];
    for (const e of data) {
      if (typeof e.b64_json !== 'string') continue;
      const ext = /png/.test(e.mime_type ?? '') ? 'png' : /webp/.test(e.mime_type ?? '') ? 'webp' : 'jpg';
      files.push({ data: Buffer.from(e.b64_json, 'base64'), ext });
    }
    const reply = { ...(raw as object), data: data.map(({ b64_json: _b, ...rest }) => rest) };
    return { reply, files };
  },
};

const tts: Operation = {
  name: 'tts',
  endpoint: 'POST /v1/tts',
  textVar: 'text',
  flags: ['voice', 'language', 'codec'],
  required: ['text', 'language'],
  binary: true,
  defaults: (f) =>
    defined({
      language: f.language ?? 'en',
      voice_id: f.voice,
      output_format: f.codec ? { codec: f.codec } : undefined,
    }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), text };
  },
  async send(http, body, signal) {
    const { synthesize } = await import('../endpoints/tts.js');
    const res = await synthesize(http, body as never, signal);
    // the API's default codec when neither the reply nor the request names one
    const codec = res.codec ?? (body.output_format as { codec?: string } | undefined)?.codec ?? SCHEMAS.Codec.$.default;
    if (res.kind === 'json') {
      const { audio: _a, ...reply } = res.response;
      return { reply, files: [{ data: res.audio, ext: codec }] };
    }
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(Buffer.from(c));
    return { reply: { content_type: res.contentType }, files: [{ data: Buffer.concat(chunks), ext: codec }] };
  },
};

const stt: Operation = {
  name: 'stt',
  endpoint: 'POST /v1/stt',
  textVar: 'file',
  flags: ['language'],
  required: [],
  defaults: (f) => defined({ language: f.language }),
  // a row's "text" is the audio file's path (a folder's file, a `file` column) or a URL
  fromText(text, f) {
    return { ...this.defaults(f, ''), ...(/^https?:\/\//.test(text) ? { url: text } : { file: text }) };
  },
  async send(http, body, signal) {
    const { transcribe } = await import('../endpoints/stt.js');
    const { file, url, ...form } = body as { file?: string; url?: string } & Record<string, unknown>;
    let input: Parameters<typeof transcribe>[1];
    if (typeof url === 'string') input = { url };
    else {
      const { statSync } = await import('node:fs');
      input = { path: String(file), size: statSync(String(file)).size };
    }
    const reply = await transcribe(http, input, form as never, signal);
    return { reply, text: reply.text };
  },
};

const documents: Operation = {
  name: 'documents',
  endpoint: 'POST /v1/documents/search',
  textVar: 'query',
  flags: ['collection', 'limit'],
  required: ['query', 'source'],
  defaults: (f) => defined({ source: f.collection ? { collection_ids: f.collection } : undefined, limit: f.limit }),
  fromText(text, f, model) {
    return { ...this.defaults(f, model), query: text };
  },
  async send(http, body, signal) {
    const { searchDocuments } = await import('../endpoints/documents.js');
    const reply = await searchDocuments(http, body as never, signal);
    return { reply, text: reply.matches[0]?.chunk_content };
  },
};

export const OPERATION: Record<OperationName, Operation> = {
  chat,
  responses,
  messages,
  embed,
  tokenize,
  images,
  tts,
  stt,
  documents,
};

/** Operations that take a language model (the profile's, else the default) when -m is not given. */
export const usesLanguageModel = (op: Operation) => op.flags.includes('model') && !op.defaultModel;
