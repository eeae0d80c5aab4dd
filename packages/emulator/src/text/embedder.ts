// The emulator's embedding "model": a hashed bag of words and character trigrams, plus a small component seeded
// by the whole text, L2-normalised. Stable for the same text and model, and texts sharing words point the same
// way, so cosine similarity means something (document search uses it for the semantic and hybrid modes).
import { createHash } from 'node:crypto';
import { rng } from './generate.js';
import { textSlices, yieldToLoop } from '../core/yield-loop.js';

function fnv(s: string, seed = 2166136261): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A unit vector of `dims` numbers for the text (dims ≥ 1). */
export function embed(text: string, model: string, dims: number): number[] {
  const v = new Float64Array(dims);
  addWords(v, words(text), model);
  return finish(v, text, model);
}

/** Characters per slice of embedYielding (~25 ms of work; a slice is cut between words). */
const CHARS_PER_SLICE = 32_000;

/** embed(), the event loop running between pieces of a long text (the same vector). */
export async function embedYielding(text: string, model: string, dims: number): Promise<number[]> {
  const v = new Float64Array(dims);
  let first = true;
  for (const slice of textSlices(text, CHARS_PER_SLICE)) {
    if (!first) await yieldToLoop();
    first = false;
    addWords(v, words(slice), model);
  }
  return finish(v, text, model);
}

function addWords(v: Float64Array, list: string[], model: string): void {
  const dims = v.length;
  const add = (feature: string, weight: number) => {
    const h = fnv(`${model}|${feature}`);
    const sign = fnv(feature, 0x9747b28c) & 1 ? 1 : -1;
    v[h % dims]! += sign * weight;
  };
  for (const w of list) {
    add(`w:${w}`, 1);
    const padded = `^${w}$`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`g:${padded.slice(i, i + 3)}`, 0.35);
  }
}

function finish(v: Float64Array, text: string, model: string): number[] {
  const dims = v.length;
  const r = rng(createHash('sha256').update(`${model}\u0000${text}`).digest('hex'));
  for (let i = 0; i < dims; i++) v[i]! += (r() - 0.5) * 0.08;
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Array.from(v, (x) => Math.round((x / norm) * 1e7) / 1e7);
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** base64 of little-endian float32 values (encoding_format: base64). */
export function toBase64(v: number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}
