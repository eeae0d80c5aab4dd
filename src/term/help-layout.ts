// A command's help as data, laid out again at a terminal's width by commander's own Help without building any
// command: scripts/help-pages.mjs records the layout of every page at build time (the terms and descriptions commander
// computed, its term column width) and checks that this gives commander's bytes at several widths; bin/svc.cjs prints
// `svc <command…> --help` on a terminal so, loading commander's help.js alone (docs/performance.md).
import { Help } from 'commander';

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
  const helper = new Help();
  helper.prepareContext({ helpWidth });
  const lines = [layout.usage, ''];
  if (layout.description.length > 0) lines.push(helper.boxWrap(layout.description, helper.helpWidth ?? 80), '');
  for (const [heading, items] of layout.sections) {
    const formatted = items.map(([term, description]) =>
      helper.formatItem(term, layout.termWidth, description, helper),
    );
    lines.push(...helper.formatItemList(heading, formatted, helper));
  }
  return layout.before + lines.join('\n') + layout.after;
}
