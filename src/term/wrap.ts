// Text laid out for a terminal's width, measured in display columns (wide characters count 2) with the palette's
// SGR codes taking none: word wrapping and cutting with a marker, styles kept whole.
import { displayWidth } from './table.js';

const SGR = /\x1b\[[0-9;]*m/g;
const PIECES = /\x1b\[[0-9;]*m|[^\x1b]/gu;

/** Columns a styled string takes on the screen. */
export function visibleWidth(text: string): number {
  return displayWidth(text.replace(SGR, ''));
}

/**
 * The styled text split after at most `width` columns: [head, rest]. Every style code stays in the head when the
 * text is cut with `marker` (so what was opened is closed); a split for wrapping keeps the codes where they stand.
 */
function splitStyled(text: string, width: number, keepCodes: boolean): [string, string] {
  let head = '';
  let rest = '';
  let w = 0;
  let full = false;
  for (const piece of text.match(PIECES) ?? []) {
    const code = piece.length > 1;
    if (full) {
      if (code && keepCodes) head += piece;
      else rest += piece;
      continue;
    }
    const cw = code ? 0 : displayWidth(piece);
    if (w + cw > width) {
      full = true;
      if (code && keepCodes) head += piece;
      else rest += piece;
      continue;
    }
    head += piece;
    w += cw;
  }
  return [head, rest];
}

/** Cut styled text to at most `width` columns, ending in `marker` when cut (its styles still closed). */
export function cutStyled(text: string, width: number, marker = '…'): string {
  if (visibleWidth(text) <= width) return text;
  const room = Math.max(0, width - displayWidth(marker));
  const [head] = splitStyled(text, room, true);
  // the codes after the cut close what the head opened; the marker goes before them, unstyled by them
  const [kept, codes] = splitCodesAtEnd(head);
  return kept + marker + codes;
}

function splitCodesAtEnd(text: string): [string, string] {
  const m = /(?:\x1b\[[0-9;]*m)*$/.exec(text);
  const at = m ? m.index : text.length;
  return [text.slice(0, at), text.slice(at)];
}

/**
 * Styled text wrapped at word boundaries (spaces) into lines of at most `width` columns; newlines in the text are
 * kept; only a word longer than a whole line is broken.
 */
export function wrapStyled(text: string, width: number): string[] {
  if (!Number.isFinite(width) || width <= 0) return text.split('\n');
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(' ')) {
      let rest = word;
      let w = visibleWidth(rest);
      if (line !== '' && lineWidth + 1 + w <= width) {
        line += ` ${rest}`;
        lineWidth += 1 + w;
        continue;
      }
      if (line !== '' || lineWidth > 0) out.push(line);
      while (w > width) {
        const [head, tail] = splitStyled(rest, width, false);
        out.push(head);
        rest = tail;
        w = visibleWidth(rest);
      }
      line = rest;
      lineWidth = w;
    }
    out.push(line);
  }
  return out;
}

/** below this many columns for the descriptions, a help list puts each description under its term */
export const DESCRIPTION_MIN = 20;
export const STACKED_INDENT = '      ';

/**
 * Help text for `width` columns: a longer line wrapped at word boundaries, its next lines indented under it (an
 * example's under its command); as written without a width (a pipe).
 */
export function wrapHelpText(text: string, width: number | undefined): string {
  if (!width) return text;
  return text
    .split('\n')
    .map((line) => {
      if (visibleWidth(line) <= width) return line;
      const indent = /^ */.exec(line)![0];
      // the next lines under it, less indented where a word would not fit whole (a long package name)
      const longest = Math.max(...line.split(' ').map(visibleWidth));
      const hang = (line.startsWith(`${indent}$ `) ? 4 : 2) + indent.length;
      const next = ' '.repeat(Math.max(0, Math.min(hang, width - longest)));
      return wrapStyled(line.slice(indent.length), Math.max(1, width - next.length))
        .map((l, i) => (i === 0 ? indent : next) + l)
        .join('\n');
    })
    .join('\n');
}

/**
 * A help list (`  term  description`) for `width` columns: the descriptions aligned and wrapped at word boundaries
 * beside their terms, or each under its term where the terms leave them too little room.
 */
export function helpList(
  rows: [term: string, description: string][],
  width = 80,
  pad = Math.max(...rows.map(([term]) => term.length)) + 2,
): string {
  const room = width - 2 - pad;
  return rows
    .map(([term, text]) => {
      if (room >= DESCRIPTION_MIN) {
        const lines = wrapStyled(text, room);
        return [`  ${term.padEnd(pad)}${lines[0]}`, ...lines.slice(1).map((l) => ' '.repeat(pad + 2) + l)].join('\n');
      }
      const lines = wrapStyled(text, width - STACKED_INDENT.length);
      return [`  ${term}`, ...lines.map((l) => STACKED_INDENT + l)].join('\n');
    })
    .join('\n');
}
