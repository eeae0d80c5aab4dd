// Token counting for usage figures. A word-and-punctuation split is close to what BPE tokenizers count.
export function countTokens(text: string): number {
  if (!text) return 0;
  return (text.match(/\s*[\p{L}\p{N}]+|\s*[^\s\p{L}\p{N}]/gu) ?? []).length;
}

/** Split generated text into stream pieces that concatenate back to it exactly. */
export function streamPieces(text: string): string[] {
  return text.match(/\s*[\p{L}\p{N}'’]+|\s*[^\s\p{L}\p{N}]|\s+$/gu) ?? [];
}
