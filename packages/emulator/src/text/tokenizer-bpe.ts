// A real byte-level BPE tokenizer for POST /v1/tokenize-text. Ids 0-255 are the bytes themselves; ids from 256
// are merges learned, deterministically and once per process, from the small built-in corpus below (the same
// text always gives the same table). Text is first split into pre-tokens (a word with its leading space, a
// number, punctuation, white space), then each pre-token's UTF-8 bytes are merged by rank. Because merges only
// join adjacent bytes of one pre-token, the tokens' bytes always concatenate back to the text's bytes.

import { textSlices, yieldToLoop } from '../core/yield-loop.js';

const CORPUS = `
The service answers requests from people and programs. A request is sent to the API with a key, and the
answer comes back as JSON or as a stream of events. Models read the text of the conversation and write the
next message; they can call tools, search documents, and describe images. This is the emulator of that service:
it runs on your own machine, answers every endpoint, and keeps its state in a folder so that tests and scripts
can rely on it without spending money.

Tokens are the pieces of text a model reads and writes. Most common words are one token; rare words are split
into several pieces, and every byte of the input can always be represented, so any text, in any language, can
be tokenized. The number of tokens decides the price of a request and how much of the context window it uses.

How do you count the tokens of a prompt? You send the text to the tokenize endpoint, and it returns the token
ids with their bytes. Then you can compare the count with the context length of the model you want to use.
The answer should be short, clear and correct. Please explain the reasons, give an example, and summarize the
main points in a list. What is the weather in Paris today? It is sunny and warm, with a light wind from the west.

Files, collections, documents and chunks: a collection groups files; a search looks for the chunks that best
match the query, ranked by their score. The retrieval mode is hybrid, semantic or keyword. Embeddings are
vectors of numbers that represent the meaning of a text; similar texts have similar vectors.

Functions and tools let the model ask the program to do something: the program runs the function with the
arguments the model chose, then sends the result back, and the model continues until it has the final answer.
The conversation is stored when you ask for it, and you can continue it later with the id of the last response.

for (const item of items) { if (item.type === "message") { return item.content; } }
function main(args) { const result = await fetch(url, { method: "POST", body: JSON.stringify(data) }); }
import json, sys; print(json.dumps({"name": "value", "count": 42, "ok": true}))
The quick brown fox jumps over the lazy dog. 0123456789 2024-01-01 12:30:00 100% $5.00 #1 @user http://www
Thank you! Yes, no, maybe. I think that this would be the best way to do it, because it is simple and fast.
They were there, where their work was. We will see what you have done and what we should do next time.
`;

const PRETOKEN =
  /'(?:s|t|re|ve|m|ll|d)|[ \t]?\p{L}+|[ \t]?\p{N}{1,3}|[ \t]?[^\s\p{L}\p{N}]+|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
const MAX_MERGES = 700;

interface Table {
  /** "a,b" → rank (0 = first merge) */
  ranks: Map<string, number>;
  /** merge rank → [left id, right id] */
  merges: [number, number][];
  /** id → bytes */
  vocab: Uint8Array[];
}

let table: Table | undefined;

/** Longest pre-token (characters): longer runs are cut, which keeps merging linear in the text's length. */
const MAX_PRETOKEN = 64;

export function preTokens(text: string): string[] {
  const out: string[] = [];
  for (const p of text.match(PRETOKEN) ?? []) {
    if (p.length <= MAX_PRETOKEN) out.push(p);
    else for (const c of p.match(/[\s\S]{1,64}/gu) ?? []) out.push(c);
  }
  return out;
}

function train(): Table {
  const counts = new Map<string, number>();
  for (const w of preTokens(CORPUS)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const words = [...counts.entries()].map(([w, n]) => ({ ids: [...Buffer.from(w, 'utf8')], n }));
  const vocab: Uint8Array[] = Array.from({ length: 256 }, (_, i) => Uint8Array.of(i));
  const merges: [number, number][] = [];
  const ranks = new Map<string, number>();
  for (let m = 0; m < MAX_MERGES; m++) {
    const pairs = new Map<string, number>();
    for (const w of words) {
      for (let i = 0; i + 1 < w.ids.length; i++) {
        const k = `${w.ids[i]},${w.ids[i + 1]}`;
        pairs.set(k, (pairs.get(k) ?? 0) + w.n);
      }
    }
    let best: string | undefined;
    let bestN = 1;
    for (const [k, n] of pairs) {
      // ties broken by the pair's key, so the table never depends on Map order
      if (n > bestN || (n === bestN && best !== undefined && k < best)) {
        best = k;
        bestN = n;
      }
    }
    if (!best) break;
    const [a, b] = best.split(',').map(Number) as [number, number];
    const id = vocab.length;
    vocab.push(Buffer.concat([vocab[a]!, vocab[b]!]));
    merges.push([a, b]);
    ranks.set(best, merges.length - 1);
    for (const w of words) w.ids = mergePair(w.ids, a, b, id);
  }
  return { ranks, merges, vocab };
}

function mergePair(ids: number[], a: number, b: number, id: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) {
      out.push(id);
      i++;
    } else out.push(ids[i]!);
  }
  return out;
}

function getTable(): Table {
  table ??= train();
  return table;
}

const cache = new Map<string, number[]>();

function encodePiece(piece: string): number[] {
  const hit = cache.get(piece);
  if (hit) return hit;
  const { ranks } = getTable();
  let ids = [...Buffer.from(piece, 'utf8')];
  for (;;) {
    let bestRank = Infinity;
    let bestAt = -1;
    for (let i = 0; i + 1 < ids.length; i++) {
      const r = ranks.get(`${ids[i]},${ids[i + 1]}`);
      if (r !== undefined && r < bestRank) {
        bestRank = r;
        bestAt = i;
      }
    }
    if (bestAt < 0) break;
    const [a, b] = getTable().merges[bestRank]!;
    ids = mergePair(ids, a, b, 256 + bestRank);
  }
  if (cache.size < 50_000) cache.set(piece, ids);
  return ids;
}

/** Token ids of a text. */
export function encode(text: string): number[] {
  const out: number[] = [];
  for (const p of preTokens(text)) for (const id of encodePiece(p)) out.push(id);
  return out;
}

/** The bytes of one token. */
export function tokenBytes(id: number): Uint8Array {
  const b = getTable().vocab[id];
  if (!b) throw new RangeError(`no token ${id}`);
  return b;
}

/** The shape of POST /v1/tokenize-text entries. A token that splits a character shows U+FFFD in its string. */
export function tokenize(text: string): { token_id: number; string_token: string; token_bytes: number[] }[] {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  return encode(text).map((id) => {
    const bytes = tokenBytes(id);
    return { token_id: id, string_token: decoder.decode(bytes), token_bytes: [...bytes] };
  });
}

/** Characters per slice of tokenizeYielding (~20 ms of CPU). */
const CHARS_PER_SLICE = 16_000;

/**
 * tokenize(), the event loop running between slices of a long text; past `limit` tokens only the count goes on
 * (the text is refused), no entries are made.
 */
export async function tokenizeYielding(
  text: string,
  limit: number,
): Promise<{ tokens: ReturnType<typeof tokenize>; count: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const tokens: ReturnType<typeof tokenize> = [];
  let count = 0;
  let first = true;
  for (const slice of textSlices(text, CHARS_PER_SLICE)) {
    if (!first) await yieldToLoop();
    first = false;
    for (const p of preTokens(slice))
      for (const id of encodePiece(p)) {
        if (++count > limit) continue;
        const bytes = tokenBytes(id);
        tokens.push({ token_id: id, string_token: decoder.decode(bytes), token_bytes: [...bytes] });
      }
  }
  return { tokens, count };
}
