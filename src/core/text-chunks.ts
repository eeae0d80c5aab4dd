// Text cut into pieces for the wire (WebSocket deltas): by code point, so a UTF-16 surrogate pair (an emoji, a rare
// CJK character) is never split into two lone halves that each side would turn into U+FFFD.

/**
 * `text` in pieces of at most `max` characters (code points), each ending before whitespace when there is some in
 * reach; joined again they are `text`.
 */
export function textChunks(text: string, max: number): string[] {
  const re = new RegExp(`[\\s\\S]{1,${max}}(?=\\s|$)|[\\s\\S]{1,${max}}`, 'gu');
  return text.match(re) ?? [text];
}
