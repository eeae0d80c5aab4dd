// Did-you-mean: the closest of a few known words to a mistyped one (subcommands, enumerated flag values, config
// keys). Damerau-Levenshtein distance (a swap of two letters counts one), or a prefix ("lis" → "list").

function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word`, if any is close enough to be what was meant. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    const dist = lc.startsWith(w) && w.length >= 2 ? 0.5 : distance(w, lc);
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(w.length * 0.4)) ? best : undefined;
}

/** "; did you mean X?" or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : ` (did you mean ${c}?)`;
}
