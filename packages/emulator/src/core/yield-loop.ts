// Long work in the request handlers gives the event loop back between pieces, so that no single request holds
// the server (health, other clients, SIGTERM) for more than a few tens of milliseconds.
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A long text in slices of about `size` characters, each cut just before a space that stands between two other
 * characters, so that no word, pre-token or token is split (they take their leading space with them).
 */
export function* textSlices(text: string, size: number): Generator<string> {
  const cut = /(?<=\S) (?=\S)/g;
  let start = 0;
  while (text.length - start > size) {
    cut.lastIndex = start + size;
    const m = cut.exec(text);
    if (!m) break;
    yield text.slice(start, m.index);
    start = m.index;
  }
  yield text.slice(start);
}
