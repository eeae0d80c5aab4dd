// Markdown rendered on a terminal while an answer streams. Text is held back only until the block it belongs to is
// complete (a blank line, a heading line, a closing fence), then that block is parsed (marked's lexer) and printed
// styled: nothing printed is ever redrawn, so there is no flicker. Code blocks are highlighted with highlight.js,
// loaded with the first code block. Server text is made terminal-safe before it is styled; the styles are svc's
// own palette (term/color). Only for a terminal with colour on: pipes, --json, --raw and NO_COLOR get the text as
// the model wrote it (docs/text.md, "Markdown on a terminal").
import type { Token, Tokens } from 'marked';
import type { Colors } from './color.js';
import { displayWidth, fitWidths } from './table.js';
import { terminalSafe } from './terminal-safe.js';
import { cutStyled, visibleWidth, wrapStyled } from './wrap.js';

type Lexer = (src: string) => Token[];
interface Highlighter {
  getLanguage(name: string): unknown;
  registerLanguage(name: string, language: unknown): void;
  highlight(code: string, opts: { language: string; ignoreIllegals: boolean }): { value: string };
}
type LanguageModule = Promise<{ default: unknown }>;

/**
 * The languages highlighted, each loaded with the first block in it: highlight.js's core (~20 ms) and one
 * language (~10 ms) instead of its common set (~150 ms, a visible pause in the middle of an answer).
 * Literal specifiers: the bundle routes each import() through the launcher (scripts/bundle.mjs).
 */
const LANGUAGES: Record<string, () => LanguageModule> = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  diff: () => import('highlight.js/lib/languages/diff'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  go: () => import('highlight.js/lib/languages/go'),
  ini: () => import('highlight.js/lib/languages/ini'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  lua: () => import('highlight.js/lib/languages/lua'),
  makefile: () => import('highlight.js/lib/languages/makefile'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  php: () => import('highlight.js/lib/languages/php'),
  python: () => import('highlight.js/lib/languages/python'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  scala: () => import('highlight.js/lib/languages/scala'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
};
const ALIASES: Record<string, string> = {
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  py: 'python',
  python3: 'python',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  rb: 'ruby',
  rs: 'rust',
  golang: 'go',
  yml: 'yaml',
  html: 'xml',
  htm: 'xml',
  svg: 'xml',
  'c++': 'cpp',
  cc: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  h: 'c',
  cs: 'csharp',
  kt: 'kotlin',
  md: 'markdown',
  docker: 'dockerfile',
  make: 'makefile',
  mk: 'makefile',
  toml: 'ini',
  jsonc: 'json',
  patch: 'diff',
};

/** A fence line: up to 3 spaces, then 3 or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;

/**
 * Takes the streamed text piece by piece (`push`) and writes finished blocks rendered (`print`). `end()` renders
 * what is left (the last block, or a partial one after a drop).
 */
/** Where the preview of the block in progress is drawn: stdout of a terminal that can be redrawn. */
export interface LivePreview {
  write(text: string): void;
  /** svc's own cursor sequences */
  control(sequence: string): void;
  columns(): number;
}

export class MarkdownStream {
  /** text not printed yet: the block in progress */
  private pending = '';
  /** how far `pending` has been scanned for block ends (always at a line start) */
  private scanned = 0;
  private fence: { char: string; length: number } | null = null;
  private blocksPrinted = 0;
  private hljs: Highlighter | null = null;
  /** marked's lexer, loading while the request is sent (awaited at the first finished block) */
  private readonly lexer: Promise<Lexer>;

  /** the live preview of the line in progress is on the screen */
  private previewShown = false;
  /** columns left for the block being laid out (the terminal's, less the markers of the lists and quotes around) */
  private room = Infinity;

  /**
   * Create only when the answer is to be rendered: it starts loading marked. With `live` (a terminal that can be
   * redrawn), the block in progress shows as plain text as it arrives, and is replaced by its rendering when complete.
   */
  constructor(
    private readonly c: Colors,
    private readonly print: (text: string) => void,
    private readonly live?: LivePreview,
    /** the terminal's width: paragraphs re-flowed to it, code lines and tables fitted (none: as written) */
    private readonly width?: () => number,
  ) {
    this.lexer = import('marked').then(
      ({ lexer }) =>
        (src: string) =>
          lexer(src, { gfm: true }),
    );
    this.lexer.catch(() => undefined); // a failed load is reported by the first flush
  }

  /** A piece of the answer: the cost of a piece without a newline is one string append. */
  push(piece: string): Promise<void> | undefined {
    this.pending += piece;
    this.showPreview();
    if (!piece.includes('\n')) return undefined;
    let cut = -1;
    for (let nl = this.pending.indexOf('\n', this.scanned); nl >= 0; nl = this.pending.indexOf('\n', this.scanned)) {
      const line = this.pending.slice(this.scanned, nl);
      this.scanned = nl + 1;
      if (this.blockEndsAfter(line)) cut = this.scanned;
    }
    return cut > 0 ? this.flush(cut) : undefined;
  }

  /** Render what is left. */
  async end(): Promise<void> {
    if (this.pending.trim() !== '') await this.flush(this.pending.length);
    else this.clearPreview();
    this.pending = '';
    this.scanned = 0;
  }

  /** Whether the block in progress is complete once this line is in. */
  private blockEndsAfter(line: string): boolean {
    const fence = FENCE.exec(line);
    if (this.fence) {
      if (
        fence &&
        fence[1]![0] === this.fence.char &&
        fence[1]!.length >= this.fence.length &&
        line.slice(fence[0].length).trim() === ''
      ) {
        this.fence = null;
        return true;
      }
      return false;
    }
    if (fence && !(fence[1]![0] === '`' && line.slice(fence[0].length).includes('`'))) {
      this.fence = { char: fence[1]![0]!, length: fence[1]!.length };
      return false;
    }
    return line.trim() === '' || HEADING.test(line);
  }

  /**
   * The line in progress, plain and dim, on one row below what is rendered (never a blank screen while a long block
   * streams): its newest characters, cut to the terminal's width so that it never wraps and one `\r` + erase-line
   * redraws it (no cursor movement across rows), whatever way the answer ends.
   */
  private showPreview(): void {
    if (!this.live) return;
    const line = terminalSafe(this.pending.slice(this.pending.lastIndexOf('\n') + 1));
    // 3 columns short: the terminal echoes a Ctrl-C as `^C` after it, which must not wrap onto a row of its own
    // (the erase would then leave the preview above the final text)
    const room = Math.max(0, this.live.columns() - 3);
    let tail = '';
    let width = 0;
    for (const ch of [...line].reverse()) {
      width += displayWidth(ch);
      if (width > room) break;
      tail = ch + tail;
    }
    this.live.control('\r\x1b[K');
    if (tail) this.live.write(this.c.dim(tail));
    this.previewShown = tail !== '';
  }

  /** Erase the preview row. */
  private clearPreview(): void {
    if (!this.live || !this.previewShown) return;
    this.live.control('\r\x1b[K');
    this.previewShown = false;
  }

  private async flush(cut: number): Promise<void> {
    const text = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    this.scanned -= Math.min(cut, this.scanned);
    // controls become visible stand-ins before anything is styled: the only escapes printed are svc's own
    const tokens = (await this.lexer)(terminalSafe(text));
    for (const t of tokens) if (t.type === 'code') await this.loadLanguage(languageOf(t as Tokens.Code));
    let out = '';
    this.room = this.width?.() || Infinity;
    for (const token of tokens) {
      const block = this.block(token, '');
      if (block === null) continue;
      out += `${(this.blocksPrinted++ > 0 ? '\n' : '') + block}\n`;
    }
    this.clearPreview();
    if (out) this.print(out);
    // what arrived after the block's end stays on show
    this.showPreview();
  }

  /** highlight.js's core and the language of a code block, the first time it is needed. */
  private async loadLanguage(lang: string): Promise<void> {
    const name = ALIASES[lang] ?? lang;
    const load = Object.hasOwn(LANGUAGES, name) ? LANGUAGES[name] : undefined;
    if (!load || this.hljs?.getLanguage(name)) return;
    if (!this.hljs) {
      const core = (await import('highlight.js/lib/core')) as unknown as { default: Highlighter };
      this.hljs = core.default;
    }
    this.hljs.registerLanguage(name, (await load()).default);
  }

  /** One block, its lines prefixed by `indent` (nested lists and quotes); null for blank space. */
  private block(t: Token, indent: string): string | null {
    const c = this.c;
    switch (t.type) {
      case 'space':
        return null;
      case 'heading': {
        const h = t as Tokens.Heading;
        const text = this.inline(h.tokens);
        const style = (s: string) =>
          h.depth === 1 ? c.bold(c.underline(s)) : h.depth === 2 ? c.bold(c.magenta(s)) : c.bold(s);
        return this.flow(text, indent, style);
      }
      case 'paragraph':
        return this.flow(this.inline((t as Tokens.Paragraph).tokens), indent);
      case 'text': {
        const x = t as Tokens.Text;
        return this.flow(x.tokens ? this.inline(x.tokens) : this.soft(x.text), indent);
      }
      case 'list':
        return this.list(t as Tokens.List, indent);
      case 'blockquote': {
        const inner = this.narrower(visibleWidth(indent) + 2, () => this.blocks((t as Tokens.Blockquote).tokens, ''));
        return prefixLines(inner, indent + c.dim('│ '));
      }
      case 'code':
        return this.code(t as Tokens.Code, indent);
      case 'table':
        return this.table(t as Tokens.Table, indent);
      case 'hr':
        return indent + c.dim('─'.repeat(Math.max(1, Math.min(40, this.room - visibleWidth(indent)))));
      case 'html':
        return prefixLines((t as Tokens.HTML).text.replace(/\n+$/, ''), indent);
      default:
        return 'raw' in t && typeof t.raw === 'string' ? prefixLines(t.raw.replace(/\n+$/, ''), indent) : null;
    }
  }

  /**
   * Inline text laid out at the room left after `indent`: wrapped at word boundaries (each line styled alone, so a
   * style never runs into the next line's prefix), or as written without a width.
   */
  private flow(text: string, indent: string, style: (s: string) => string = (s) => s): string {
    const lines = wrapStyled(text, this.room - visibleWidth(indent));
    return lines.map((l) => indent + style(l)).join('\n');
  }

  /** A soft line break is a space once the text is re-flowed to the width. */
  private soft(text: string): string {
    return Number.isFinite(this.room) ? text.replace(/\n/g, ' ') : text;
  }

  /** Lay out what `render` makes `by` columns narrower (inside a list item's marker or a quote's bar). */
  private narrower<T>(by: number, render: () => T): T {
    const room = this.room;
    this.room = Math.max(1, room - by);
    try {
      return render();
    } finally {
      this.room = room;
    }
  }

  private blocks(tokens: Token[], indent: string, sep = '\n'): string {
    return tokens
      .map((t) => this.block(t, indent))
      .filter((b): b is string => b !== null)
      .join(sep);
  }

  private list(l: Tokens.List, indent: string): string {
    const start = typeof l.start === 'number' ? l.start : 1;
    const width = l.ordered ? String(start + l.items.length - 1).length + 2 : 2;
    return l.items
      .map((item, i) => {
        const number = `${start + i}.`;
        const marker = l.ordered ? this.c.cyan(number) + ' '.repeat(width - number.length) : `${this.c.cyan('•')} `;
        const box = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
        const body = this.narrower(visibleWidth(indent) + width + (box ? 2 : 0), () =>
          this.blocks(
            item.tokens.filter((t) => t.type !== 'checkbox'),
            '',
            l.loose ? '\n\n' : '\n',
          ),
        );
        const [first = '', ...rest] = body.split('\n');
        const pad = ' '.repeat(width + (box ? 2 : 0));
        return [indent + marker + box + first, ...rest.map((r) => (r === '' ? '' : indent + pad + r))].join('\n');
      })
      .join(l.loose ? '\n\n' : '\n');
  }

  private code(t: Tokens.Code, indent: string): string {
    const c = this.c;
    const lang = languageOf(t);
    let body = t.text;
    if (lang && this.hljs?.getLanguage(lang))
      body = htmlToStyled(this.hljs.highlight(t.text, { language: lang, ignoreIllegals: true }).value, c);
    const label = lang ? `${indent + cutStyled(c.dim(`┌ ${lang}`), this.room - visibleWidth(indent))}\n` : '';
    // a line longer than the room is cut with a marker, never wrapped under the bar
    const room = this.room - visibleWidth(indent) - 2;
    const lines = body.split('\n').map((l) => cutStyled(l, room, c.dim('…')));
    return label + prefixLines(lines.join('\n'), indent + c.dim('│ '));
  }

  private table(t: Tokens.Table, indent: string): string {
    const c = this.c;
    const head = t.header.map((cell) => this.inline(cell.tokens));
    const rows = t.rows.map((row) => row.map((cell) => this.inline(cell.tokens)));
    const natural = head.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ''))));
    // fitted as `files list` is (free text cut first, numbers kept); the ` │ ` separator is one wider than its gap
    const room = this.room - visibleWidth(indent) - (natural.length - 1);
    const columns = t.align.map((a) => ({ header: '', align: a === 'right' ? ('right' as const) : undefined }));
    const widths = fitWidths(natural, columns, room);
    const fit = (cell: string, i: number) => {
      const s = widths[i]! < natural[i]! ? cutStyled(cell, widths[i]!) : cell;
      const gap = ' '.repeat(Math.max(0, widths[i]! - visibleWidth(s)));
      return t.align[i] === 'right'
        ? gap + s
        : t.align[i] === 'center'
          ? gap.slice(0, gap.length >> 1) + s + gap.slice(gap.length >> 1)
          : s + gap;
    };
    const line = (cells: string[]) => indent + cells.map(fit).join(c.dim(' │ ')).trimEnd();
    return [
      line(head.map((h) => c.bold(h))),
      indent + c.dim(widths.map((w) => '─'.repeat(w)).join('─┼─')),
      ...rows.map(line),
    ].join('\n');
  }

  private inline(tokens: Token[] | undefined): string {
    const c = this.c;
    let s = '';
    for (const t of tokens ?? []) {
      switch (t.type) {
        case 'strong':
          s += c.bold(this.inline((t as Tokens.Strong).tokens));
          break;
        case 'em':
          s += c.italic(this.inline((t as Tokens.Em).tokens));
          break;
        case 'del':
          s += c.dim(this.inline((t as Tokens.Del).tokens));
          break;
        case 'codespan':
          s += c.cyan((t as Tokens.Codespan).text);
          break;
        case 'br':
          s += '\n';
          break;
        case 'link': {
          const l = t as Tokens.Link;
          const text = this.inline(l.tokens);
          s +=
            c.underline(text) +
            (l.href && l.href !== l.text && `mailto:${l.text}` !== l.href ? c.dim(` (${l.href})`) : '');
          break;
        }
        case 'image': {
          const im = t as Tokens.Image;
          s += c.dim(`[image: ${im.text}]`) + (im.href ? c.dim(` (${im.href})`) : '');
          break;
        }
        case 'text': {
          const x = t as Tokens.Text;
          s += x.tokens ? this.inline(x.tokens) : this.soft(x.text);
          break;
        }
        default:
          s += 'text' in t && typeof t.text === 'string' ? t.text : t.raw;
      }
    }
    return s;
  }
}

function languageOf(t: Tokens.Code): string {
  return (t.lang ?? '').trim().split(/\s/)[0]!.toLowerCase();
}

function prefixLines(text: string, prefix: string): string {
  return prefix === ''
    ? text
    : text
        .split('\n')
        .map((l) => prefix + l)
        .join('\n');
}

/** highlight.js scope → style of svc's palette */
function scopeStyle(scope: string, c: Colors): ((s: string) => string) | undefined {
  const name = scope.split(/[\s.]/)[0]!;
  if (/^(keyword|built_in|selector-tag|doctag)$/.test(name)) return c.magenta;
  if (/^(string|regexp|addition|symbol|template-variable)$/.test(name)) return c.green;
  if (/^(number|literal|variable|type|class|selector-id|selector-class)$/.test(name)) return c.yellow;
  if (/^(comment|quote|meta|deletion)$/.test(name)) return c.dim;
  if (/^(title|function|section|name|attr|attribute|property|params)$/.test(name)) return c.cyan;
  return undefined;
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};

/**
 * highlight.js's HTML (`<span class="hljs-keyword">…</span>`, entities) as text styled with the palette; styles are
 * closed at each line end so that a line prefix stays plain.
 */
export function htmlToStyled(html: string, c: Colors): string {
  const stack: (((s: string) => string) | undefined)[] = [];
  let out = '';
  const emit = (text: string) => {
    const style = [...stack].reverse().find((s) => s !== undefined);
    out += text
      .split('\n')
      .map((part) => (style && part ? style(part) : part))
      .join('\n');
  };
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+)/g)) {
    if (m[1] !== undefined) stack.push(scopeStyle(m[1].replace(/hljs-/g, ''), c));
    else if (m[2] !== undefined) emit(m[2].replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e]!));
    else stack.pop();
  }
  return out;
}
