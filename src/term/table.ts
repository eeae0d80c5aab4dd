// A borderless table that fits the terminal: each row is one line, always. Ids, numbers and dates are never cut
// (columns named like ids, right-aligned ones and those marked `keep`); the free-text columns give way first, the
// widest one character at a time, cut cells ending in `…`; when even that does not fit, the columns marked
// `optional` are left out (the caller says which); only when nothing else is left do the kept columns give way.

export interface TableColumn {
  header: string;
  align?: 'left' | 'right';
  /** never cut (ids, dates); right-aligned columns (numbers) and columns named like ids are kept too */
  keep?: boolean;
  /** may be left out when the table cannot fit otherwise: the lowest number first */
  optional?: number;
}

const GAP = 2;
/** a cut column keeps at least this many characters (or its natural width, when smaller) */
const MIN_WIDTH = 4;

let widthClasses: { zero: RegExp; wide: RegExp } | undefined;

/**
 * The characters of no width and the wide ones, made on first use: V8 builds their Unicode property classes when it
 * makes them (~2 M instructions), and this module loads with every command line (the command tree's chunk).
 */
function classes(): { zero: RegExp; wide: RegExp } {
  widthClasses ??= {
    zero: /[\p{M}\u200b-\u200f\u2060\ufe0f]/u,
    wide: new RegExp(
      [
        String.raw`[\p{Extended_Pictographic}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff`,
        String.raw`\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]`,
      ].join(''),
      'u',
    ),
  };
  return widthClasses;
}

/** No character past U+007F: none of them is wide or of no width. */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Display width of text without escape sequences: wide (CJK, emoji) characters count 2, marks 0. */
export function displayWidth(text: string): number {
  // ASCII, most of any text (help measures each of its words): a column each, without the expressions (with them,
  // V8 optimized this function at a cost of ~3 ms of a worker's CPU in every `svc --help`)
  if (isAscii(text)) return text.length;
  const { zero, wide } = classes();
  let w = 0;
  for (const ch of text) {
    if (zero.test(ch)) continue;
    w += wide.test(ch) ? 2 : 1;
  }
  return w;
}

/** Cut text to at most `width` columns, ending in `…` when cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  if (isAscii(text)) return `${text.slice(0, width - 1)}…`;
  const { zero, wide } = classes();
  let out = '';
  let w = 0;
  for (const ch of text) {
    const cw = zero.test(ch) ? 0 : wide.test(ch) ? 2 : 1;
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Whether a column is cut only when nothing else can give way: ids, numbers, dates. */
function kept(column: TableColumn): boolean {
  return column.keep === true || column.align === 'right' || /(^|[\s_])id$/i.test(column.header);
}

/** The width a table of these columns needs at least (free text at its floor, the kept columns whole). */
function narrowest(natural: number[], columns: TableColumn[]): number {
  const sum = natural.reduce((a, n, i) => a + (kept(columns[i]!) ? n : Math.min(n, MIN_WIDTH)), 0);
  return sum + GAP * (natural.length - 1);
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
        if (!lastResort && kept(columns[i]!)) return;
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
 * The table's lines: a header line (styled by `head`) then one line per row, and the headers of the optional
 * columns left out to fit. Cells are single-line text already (the caller flattens newlines and makes server text
 * safe).
 */
export function renderTable(
  allColumns: TableColumn[],
  allRows: string[][],
  maxWidth: number,
  head: (s: string) => string = (s) => s,
): { lines: string[]; dropped: string[] } {
  const measure = (cols: number[]) =>
    cols.map((i) => Math.max(displayWidth(allColumns[i]!.header), ...allRows.map((r) => displayWidth(r[i]!))));
  let shown = allColumns.map((_, i) => i);
  const droppable = shown
    .filter((i) => allColumns[i]!.optional !== undefined)
    .sort((a, b) => allColumns[a]!.optional! - allColumns[b]!.optional! || b - a);
  const dropped: string[] = [];
  while (
    maxWidth > 0 &&
    droppable.length > 0 &&
    narrowest(
      measure(shown),
      shown.map((i) => allColumns[i]!),
    ) > maxWidth
  ) {
    const gone = droppable.shift()!;
    shown = shown.filter((i) => i !== gone);
    dropped.push(allColumns[gone]!.header);
  }
  const columns = shown.map((i) => allColumns[i]!);
  const rows = allRows.map((r) => shown.map((i) => r[i]!));
  const widths = fitWidths(measure(shown), columns, maxWidth > 0 ? maxWidth : Infinity);
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
  const lines = [
    line(
      columns.map((c) => c.header),
      head,
    ),
    ...rows.map((r) => line(r)),
  ];
  return { lines, dropped };
}
