// Server text made safe for a terminal. Model output, error messages, table cells and transcripts come from the
// server and could carry escape sequences (clear the screen, set the title, OSC 8 links, OSC 52 clipboard
// writes, cursor moves), C1 controls, or bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069: text
// that reads in another order than it is, "Trojan Source"): on a terminal every control character except newline
// and tab is replaced by a visible stand-in, and each override or isolate is shown as its code point (<U+202E>).
// Pipes and --json stay byte-exact (JSON escapes controls, C1 and the overrides included).

/**
 * The SGR sequences of svc's own palette (bold, dim, italic, underline, red, green, yellow, magenta, cyan and their
 * resets).
 */
const OWN_SGR = new Set([
  '\x1b[1m',
  '\x1b[2m',
  '\x1b[22m',
  '\x1b[3m',
  '\x1b[23m',
  '\x1b[4m',
  '\x1b[24m',
  '\x1b[31m',
  '\x1b[32m',
  '\x1b[33m',
  '\x1b[35m',
  '\x1b[36m',
  '\x1b[39m',
]);
// eslint-disable-next-line no-control-regex
const UNSAFE = /\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const ANY_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/**
 * The visible stand-in of one control character: ␛ for ESC, ␍ for CR, … (Unicode control pictures); � for C1;
 * <U+202E> for a bidirectional override or isolate (what it is, in the reading order of the text around it).
 */
function standIn(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  if (code >= 0x202a) return `<U+${code.toString(16).toUpperCase()}>`;
  return '\ufffd';
}

/**
 * `text` with every control character except \n and \t replaced (ESC, CSI, OSC, CR, backspace, C1 …). With
 * `keepColor`, the colour codes of svc's own palette stay (they can only colour text); any other escape sequence
 * loses its ESC, so what remains is printed as plain characters.
 */
export function terminalSafe(text: string, opts: { keepColor?: boolean } = {}): string {
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (m) =>
    m.length > 1 ? (opts.keepColor && OWN_SGR.has(m) ? m : `\u241b${m.slice(1)}`) : standIn(m),
  );
}

/**
 * JSON text with DEL, the C1 controls, the line/paragraph separators and the bidirectional overrides and isolates
 * escaped as \uXXXX: the same JSON value (byte-exact data once parsed), but nothing a terminal would act on or
 * reorder.
 */
export function jsonSafe(json: string): string {
  return json.replace(
    // eslint-disable-next-line no-control-regex
    /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Bidirectional controls (U+202A–U+202E overrides, U+2066–U+2069 isolates, marks): they make a name read backwards. */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
