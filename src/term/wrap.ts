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
