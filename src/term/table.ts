// A borderless table that fits the terminal: each row is one line, always. When the natural widths do not fit,
// the widest shrinkable column gives way first, one character at a time, and cut cells end in `…`. Id columns
// (and any column marked `keep`) give way only when nothing else can, so ids stay copyable as long as possible.

export interface TableColumn {
  header: string;
  align?: 'left' | 'right';
  /** shrink this column only as a last resort (ids) */
  keep?: boolean;
}

const GAP = 2;
/** a cut column keeps at least this many characters (or its natural width, when smaller) */
const MIN_WIDTH = 4;

const ZERO_WIDTH = /[\p{M}\u200b-\u200f\u2060\ufe0f]/u;
const WIDE = new RegExp(
  [
    String.raw`[\p{Extended_Pictographic}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff`,
    String.raw`\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]`,
  ].join(''),
  'u',
);

/** Display width of text without escape sequences: wide (CJK, emoji) characters count 2, marks 0. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    if (ZERO_WIDTH.test(ch)) continue;
    w += WIDE.test(ch) ? 2 : 1;
  }
  return w;
}

/** Cut text to at most `width` columns, ending in `…` when cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of text) {
    const cw = ZERO_WIDTH.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Column widths that fit `maxWidth` (Infinity: the natural widths). */
export function fitWidths(natural: number[], columns: TableColumn[], maxWidth: number): number[] {
  const widths = [...natural];
  const room = maxWidth - GAP * (widths.length - 1);
  let excess = widths.reduce((a, b) => a + b, 0) - room;
  const floor = natural.map((n) => Math.min(n, MIN_WIDTH));
  for (const lastResort of [false, true]) {
    while (excess > 0) {
      let pick = -1;
      widths.forEach((w, i) => {
        if (!lastResort && (columns[i]!.keep || /(^|[\s_])id$/i.test(columns[i]!.header))) return;
        if (w > floor[i]! && (pick < 0 || w > widths[pick]!)) pick = i;
      });
      if (pick < 0) break;
      widths[pick]!--;
      excess--;
    }
  }
  return widths;
}

/**
 * The table's lines: a header line (styled by `head`) then one line per row. Cells are single-line text already
 * (the caller flattens newlines and makes server text safe).
 */
export function renderTable(
  columns: TableColumn[],
  rows: string[][],
  maxWidth: number,
  head: (s: string) => string = (s) => s,
): string[] {
  const natural = columns.map((c, i) => Math.max(displayWidth(c.header), ...rows.map((r) => displayWidth(r[i]!))));
  const widths = fitWidths(natural, columns, maxWidth > 0 ? maxWidth : Infinity);
  const line = (cells: string[], style?: (s: string) => string) =>
    cells
      .map((text, i) => {
        const cut = truncate(text, widths[i]!);
        const pad = ' '.repeat(Math.max(0, widths[i]! - displayWidth(cut)));
        const last = i === cells.length - 1;
        const styled = style ? style(cut) : cut;
        return columns[i]!.align === 'right' ? pad + styled : last ? styled : styled + pad;
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  return [
    line(
      columns.map((c) => c.header),
      head,
    ),
    ...rows.map((r) => line(r)),
  ];
}
