// Where generated text ends: a stop sequence or max tokens (messages and completions).
import { streamPieces } from './tokenizer.js';

/** Cut generated text at the first stop sequence, then at max tokens; says which limit ended it. */
export function applyLimits(
  text: string,
  stop: string[] | undefined,
  maxTokens: number | undefined,
): { text: string; pieces: string[]; reason: 'end' | 'stop' | 'length'; matched: string | null } {
  let reason: 'end' | 'stop' | 'length' = 'end';
  let matched: string | null = null;
  let cut = text.length;
  for (const s of stop ?? []) {
    const i = s ? text.indexOf(s) : -1;
    if (i >= 0 && i < cut) {
      cut = i;
      matched = s;
      reason = 'stop';
    }
  }
  let out = text.slice(0, cut);
  let pieces = streamPieces(out);
  if (maxTokens !== undefined && pieces.length > maxTokens) {
    pieces = pieces.slice(0, maxTokens);
    out = pieces.join('');
    reason = 'length';
    matched = null;
  }
  return { text: out, pieces, reason, matched };
}
