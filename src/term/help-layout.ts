// A command's help as data, laid out again at a terminal's width by commander's own Help without building any
// command: scripts/help-pages.mjs records the layout of every page at build time (the terms and descriptions commander
// computed, its term column width) and checks that this gives commander's bytes at several widths; bin/svc.cjs prints
// `svc <command…> --help` on a terminal so, loading commander's help.js alone (docs/performance.md).
import { Help } from 'commander';
import { DESCRIPTION_MIN, STACKED_INDENT, visibleWidth, wrapHelpText, wrapStyled } from './wrap.js';

const USAGE = 'Usage: ';

/** The usage line at `width`, its next lines under the command (undone first: a recorded line was laid out at 80). */
function wrapUsage(line: string, width: number): string {
  const whole = line.replace(new RegExp(`\\n {${USAGE.length}}`, 'g'), ' ');
  if (visibleWidth(whole) <= width) return whole;
  return wrapStyled(whole, width - USAGE.length)
    .map((l, i) => (i === 0 ? l : ' '.repeat(USAGE.length) + l))
    .join('\n');
}

/**
 * commander's Help laid out for the real width, down to 40 columns: descriptions wrapped at word boundaries however
 * narrow (commander stops wrapping below 40 columns for them, and the terminal then breaks words), and, where the
 * terms leave too little beside them, each description below its term.
 */
export class SvcHelp extends Help {
  constructor() {
    super();
    this.minWidthToWrap = 1;
  }

  /** the usage after `Usage: `, wrapped as the whole line is */
  override styleUsage(str: string): string {
    return wrapUsage(USAGE + super.styleUsage(str), this.helpWidth ?? 80).slice(USAGE.length);
  }

  override formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    const width = this.helpWidth ?? 80;
    if (!description || width - termWidth - 4 >= DESCRIPTION_MIN)
      return super.formatItem(term, termWidth, description, helper);
    const wrapped = helper.boxWrap(description, width - STACKED_INDENT.length);
    return [`  ${term}`, ...wrapped.split('\n').map((l) => STACKED_INDENT + l)].join('\n');
  }
}

export interface HelpLayout {
  /** text printed before commander's part (`addHelpText('before')`) */
  before: string;
  /** the first line, `Usage: svc models list [options]` */
  usage: string;
  description: string;
  /** commander's padWidth: the width of the widest term, which aligns every section */
  termWidth: number;
  /** headings (`Arguments:`, `Options:`, a flag group, `Commands:`) with their items, in commander's order */
  sections: [heading: string, items: [term: string, description: string][]][];
  /** text printed after it (`addHelpText('after')`: examples, the pointer to the global options) */
  after: string;
}

/** The help at `helpWidth` columns (undefined: not a terminal, 80), as commander's Help.formatHelp lays it out. */
export function formatHelpLayout(layout: HelpLayout, helpWidth: number | undefined): string {
  const helper = new SvcHelp();
  helper.prepareContext({ helpWidth });
  const lines = [wrapUsage(layout.usage, helper.helpWidth ?? 80), ''];
  if (layout.description.length > 0) lines.push(helper.boxWrap(layout.description, helper.helpWidth ?? 80), '');
  for (const [heading, items] of layout.sections) {
    const formatted = items.map(([term, description]) =>
      helper.formatItem(term, layout.termWidth, description, helper),
    );
    lines.push(...helper.formatItemList(heading, formatted, helper));
  }
  return wrapHelpText(layout.before, helpWidth) + lines.join('\n') + wrapHelpText(layout.after, helpWidth);
}
