// The tools `svc mcp serve` offers: each runs one svc command (its flags, checks, request table, call log and file
// writing), with the flags an agent may set listed by name; their schemas come from the command's own option specs
// (src/mcp/schema.ts). What a tool may do decides whether it is offered: `read` tools change nothing (they may still
// cost money), `write` tools create files here or on the API, `destructive` ones delete (offered only when named).
import type { JsonSchema } from './schema.js';

export type ToolKind = 'read' | 'write' | 'destructive';

/** A positional argument of the command, as a required or optional property. */
export interface ToolArg {
  property: string;
  description: string;
  /** a list of words (variadic); otherwise one string */
  list?: boolean;
  required?: boolean;
  /** a local file the command reads (confined to --root), or (`path-or-url`) an http(s) URL as well */
  path?: 'read' | 'path-or-url';
}

/** A flag of the command an agent may set; its schema and description are the flag's. */
export interface ToolFlag {
  flag: string;
  /** a path the command writes (confined to --root) or reads (idem) */
  path?: 'write' | 'read';
  /** said after the flag's own description */
  note?: string;
  /** said instead of the flag's description (which speaks of the command line: stdout, stdin, `-`) */
  description?: string;
  /** replaces the flag's schema (the chat schema is a JSON object here, a file on the command line) */
  schema?: JsonSchema;
  /** the command refuses to run without it */
  required?: boolean;
  /** a file (or JSON object) the command reads into memory: at most this many bytes */
  maxBytes?: number;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** the command's words: ['images', 'generate'] */
  command: string[];
  args: ToolArg[];
  flags: ToolFlag[];
  /** option values always set (camelCase keys): no streaming, no prompt, no local conversation … */
  fixed?: Record<string, unknown>;
  /** run with --json (the reply as sent), else the command's plain output */
  json: boolean;
  kind: ToolKind;
  /** an agent may call it again with the same arguments to the same effect */
  idempotent?: boolean;
  /** where a written file goes when the agent names none: a folder under --root, or a free name there */
  defaultOutput?: { flag: string; name?: (n: number) => string };
  /** what the result carries besides the command's output (`list`: JSON lines answered as a list) */
  result: 'text' | 'chat' | 'images' | 'file' | 'list';
}

const MODEL = { flag: '--model' };

export const TOOLS: ToolDef[] = [
  {
    name: 'generate_text',
    title: 'Generate text',
    description:
      'Ask a language model (POST /v1/chat/completions): the answer as text; with `schema`, JSON valid against it.',
    command: ['chat'],
    args: [{ property: 'prompt', description: 'the prompt', required: true }],
    flags: [
      MODEL,
      { flag: '--system' },
      {
        flag: '--schema',
        path: 'read',
        note: '(a JSON Schema object, or the path of a file holding one under the root; at most 1 MiB)',
        schema: { type: ['object', 'string'] },
        maxBytes: 1 << 20,
      },
      { flag: '--temperature' },
      { flag: '--max-completion-tokens' },
      { flag: '--reasoning-effort' },
    ],
    fixed: { stream: false, save: false },
    json: true,
    kind: 'read',
    result: 'chat',
  },
  {
    name: 'generate_image',
    title: 'Generate images',
    description:
      'Generate images from a prompt (POST /v1/images/generations), saved as files under the root: their paths, and ' +
      'the images themselves.',
    command: ['images', 'generate'],
    args: [{ property: 'prompt', description: 'what to draw', required: true }],
    flags: [
      MODEL,
      { flag: '--n' },
      { flag: '--aspect-ratio' },
      {
        flag: '--output',
        path: 'write',
        description:
          'a folder under the root (ending in /), or a new file name there (with n > 1: name-1.png, name-2.png …); ' +
          'default: image-N.png in the root',
      },
    ],
    json: false,
    kind: 'write',
    defaultOutput: { flag: '--output' },
    result: 'images',
  },
  {
    name: 'text_to_speech',
    title: 'Text to speech',
    description: 'Speak a text (POST /v1/tts) into an audio file under the root (speech-N.mp3 unless named).',
    command: ['tts', 'say'],
    args: [{ property: 'text', description: 'the text to speak', required: true }],
    flags: [
      { flag: '--voice' },
      { flag: '--language' },
      {
        flag: '--codec',
        description: "mp3, wav, pcm (s16le), mulaw (ulaw), alaw (default: from output's extension, else mp3)",
      },
      {
        flag: '--output',
        path: 'write',
        description: 'a new audio file under the root (default: speech-N.mp3 in the root); never an existing file',
      },
    ],
    fixed: { rest: true },
    json: true,
    kind: 'write',
    defaultOutput: { flag: '--output', name: (n) => `speech-${n}.mp3` },
    result: 'file',
  },
  {
    name: 'speech_to_text',
    title: 'Speech to text',
    description: 'Transcribe an audio file under the root, or an http(s) URL (POST /v1/stt): the text.',
    command: ['stt', 'transcribe'],
    args: [{ property: 'source', description: 'audio file path or http(s) URL', required: true, path: 'path-or-url' }],
    flags: [
      {
        flag: '--language',
        description: 'language code (e.g. en, fr, de, ja); with `format`, numbers and dates as written',
      },
      {
        flag: '--format',
        description: 'inverse text normalization (needs `language`: ar, de, en, es, fr, ja, pt, ru, sv, vi, zh)',
      },
      { flag: '--diarize' },
    ],
    json: false,
    kind: 'read',
    result: 'text',
  },
  {
    name: 'search_documents',
    title: 'Search documents',
    description: 'Search the documents of collections (POST /v1/documents/search): the matches as JSON.',
    command: ['documents', 'search'],
    args: [{ property: 'query', description: 'what to look for', required: true }],
    flags: [{ flag: '--collection', required: true }, { flag: '--filter' }, { flag: '--limit' }, { flag: '--mode' }],
    json: true,
    kind: 'read',
    idempotent: true,
    result: 'text',
  },
  {
    name: 'list_files',
    title: 'List stored files',
    description: 'The files stored on the API (GET /v1/files), as a JSON list (empty when there are none).',
    command: ['files', 'list'],
    args: [],
    flags: [{ flag: '--limit' }, { flag: '--order' }, { flag: '--sort-by' }, { flag: '--filter' }],
    json: true,
    kind: 'read',
    idempotent: true,
    result: 'list',
  },
  {
    name: 'upload_file',
    title: 'Upload a file',
    description: 'Upload a local file under the root to the API (POST /v1/files): the stored file as JSON.',
    command: ['files', 'upload'],
    args: [{ property: 'path', description: 'the file to upload', required: true, path: 'read' }],
    flags: [{ flag: '--purpose' }, { flag: '--expires-after' }],
    json: true,
    kind: 'write',
    result: 'text',
  },
  {
    name: 'download_file',
    title: 'Download a stored file',
    description: 'Save a stored file under the root (GET /v1/files/{id}/content): the path saved.',
    command: ['files', 'download'],
    args: [{ property: 'id', description: 'file id', required: true }],
    flags: [
      {
        flag: '--output',
        path: 'write',
        description:
          "a folder under the root (ending in /: the file's own name), or a new file name there; default: the root",
      },
      { flag: '--format' },
    ],
    json: false,
    kind: 'write',
    defaultOutput: { flag: '--output' },
    result: 'text',
  },
  {
    name: 'delete_file',
    title: 'Delete a stored file',
    description: 'Delete a stored file for good (DELETE /v1/files/{id}). Offered only when named in --tools.',
    command: ['files', 'delete'],
    args: [{ property: 'id', description: 'file id', required: true }],
    flags: [],
    fixed: { yes: true },
    json: false,
    kind: 'destructive',
    idempotent: true,
    result: 'text',
  },
  {
    name: 'list_models',
    title: 'List models and prices',
    description: 'The models (GET /v1/models); with `kind`, that kind with its prices. As a JSON list.',
    command: ['models', 'list'],
    args: [],
    flags: [{ flag: '--kind' }],
    json: true,
    kind: 'read',
    idempotent: true,
    result: 'list',
  },
  {
    name: 'embed',
    title: 'Embed texts',
    description: 'One embedding vector per text, in order (POST /v1/embeddings), as JSON.',
    command: ['embed'],
    args: [{ property: 'texts', description: 'the texts to embed', list: true, required: true }],
    flags: [MODEL, { flag: '--dimensions' }],
    json: true,
    kind: 'read',
    idempotent: true,
    result: 'text',
  },
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);
