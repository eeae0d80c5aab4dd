// The emulator's text "model", shared by every text convention (chat, responses, messages, legacy):
// a deterministic answer, tool calls valid against the tool's schema, JSON valid against a response schema.
import { findLanguageModel, type LanguageModel } from './catalog.js';
import { answerText, markdownInPrompt, valueForSchema } from './generate.js';
import { HttpError, notFound } from '../core/errors.js';
import { countTokens, streamPieces } from './tokenizer.js';

export interface EngineTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface EngineTurn {
  role: string;
  text: string;
  images: number;
  /** a tool result being sent back */
  toolResult?: boolean;
}

export interface EngineRequest {
  model: LanguageModel;
  turns: EngineTurn[];
  tools?: EngineTool[];
  /** 'auto' | 'none' | 'required' | a function name */
  toolChoice?: string;
  format?:
    | { type: 'text' }
    | { type: 'json_object' }
    | { type: 'json_schema'; schema: Record<string, unknown>; name?: string };
  maxTokens?: number;
  stop?: string[];
  seed?: number | string;
  /** choice index, so n > 1 gives different answers */
  variant?: number;
  reasoning?: boolean;
  search?: boolean;
}

export interface EngineToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface EngineReply {
  text: string;
  /** pieces of `text` in stream order; they concatenate to `text` */
  pieces: string[];
  reasoning?: string;
  toolCalls: EngineToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  citations: string[];
}

export function requireLanguageModel(id: unknown): LanguageModel {
  if (typeof id !== 'string' || id === '')
    throw new HttpError(400, 'Invalid value for `model`: a model id is required');
  const m = findLanguageModel(id);
  if (!m) notFound(`The model ${id} does not exist or your team does not have access to it`);
  return m;
}

/** Text of a content value that is a string or a list of parts (any convention). */
export function contentText(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: content == null ? '' : JSON.stringify(content), images: 0 };
  let text = '';
  let images = 0;
  for (const p of content as Record<string, unknown>[]) {
    if (typeof p === 'string') text += p;
    else if (typeof p?.text === 'string') text += (text ? '\n' : '') + p.text;
    else if (p?.type === 'image_url' || p?.type === 'input_image' || p?.type === 'image') images++;
  }
  return { text, images };
}

export function generateReply(req: EngineRequest): EngineReply {
  const last = req.turns[req.turns.length - 1];
  const prompt = last?.text ?? '';
  const seed = `${req.seed ?? 0}:${req.variant ?? 0}`;
  const promptTokens = req.turns.reduce((n, t) => n + countTokens(t.text) + 4 + t.images * 256, 0);
  const citations = req.search ? [`https://example.com/search?q=${encodeURIComponent(prompt.slice(0, 40))}`] : [];

  const tools = req.tools ?? [];
  const choice = req.toolChoice ?? (tools.length ? 'auto' : 'none');
  const wantsTool = tools.length > 0 && choice !== 'none' && !last?.toolResult;
  if (wantsTool) {
    // A named choice forces that tool; otherwise the tool the prompt names, else the first one.
    const lower = prompt.toLowerCase();
    const tool =
      tools.find((t) => t.name === choice) ?? tools.find((t) => lower.includes(t.name.toLowerCase())) ?? tools[0];
    if (tool) {
      const args = valueForSchema(tool.parameters as never, `${seed}:${tool.name}:${prompt}`) ?? {};
      const argText = JSON.stringify(args);
      return {
        text: '',
        pieces: [],
        toolCalls: [{ id: `call_${hash8(`${seed}:${prompt}:${tool.name}`)}`, name: tool.name, arguments: argText }],
        finishReason: 'tool_calls',
        promptTokens,
        completionTokens: countTokens(argText),
        reasoningTokens: 0,
        citations,
      };
    }
  }

  let text: string;
  if (req.format?.type === 'json_schema') {
    text = JSON.stringify(valueForSchema(req.format.schema as never, `${seed}:${prompt}`));
  } else if (req.format?.type === 'json_object') {
    text = JSON.stringify({ answer: answerText(prompt, seed, 1) });
  } else if (last?.toolResult) {
    text = `The tool returned ${last.text.trim().slice(0, 200)}. ${answerText(prompt, seed, 1)}`;
  } else {
    text = markdownInPrompt(prompt) ?? answerText(prompt, seed);
  }
  let finishReason: EngineReply['finishReason'] = 'stop';
  for (const s of req.stop ?? []) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0) text = text.slice(0, i);
  }
  let pieces = streamPieces(text);
  if (req.maxTokens !== undefined && pieces.length > req.maxTokens) {
    pieces = pieces.slice(0, req.maxTokens);
    text = pieces.join('');
    finishReason = 'length';
  }
  const reasoning = req.reasoning
    ? `Considering the request "${prompt.slice(0, 60)}" and how to answer it briefly.`
    : undefined;
  const reasoningTokens = reasoning ? countTokens(reasoning) : 0;
  return {
    text,
    pieces,
    reasoning,
    toolCalls: [],
    finishReason,
    promptTokens,
    completionTokens: pieces.length,
    reasoningTokens,
    citations,
  };
}

/** Cost in ticks (1e10 per USD): prices are USD cents per 100 million tokens, so ticks = tokens × price. */
export function costTicks(model: LanguageModel, promptTokens: number, completionTokens: number): number {
  return promptTokens * model.prompt_text_token_price + completionTokens * model.completion_text_token_price;
}

function hash8(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16).padStart(8, '0') + s.length.toString(16);
}
