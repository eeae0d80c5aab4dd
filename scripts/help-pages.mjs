// Run by scripts/bundle.mjs in a child process whose stdout is a pipe: renders `svc <command…> --help` of every
// group and command as commander prints it into a pipe or a file (80 columns, no colour), records its layout (the
// terms and descriptions commander computed, src/term/help-layout.ts) and prints them as one JSON object
// { "models list": { text, layout } }. bin/svc.cjs prints the text when stdout is not a terminal and lays the layout
// out at the terminal's width on a terminal, without loading the CLI (docs/performance.md). The layout is checked
// here against commander's own formatHelp at several widths: the build fails where they would differ.
import { Help } from 'commander';
import { rootCommands } from '../dist/commands/index.js';
import { runCli } from '../dist/cli.js';
import { HELP_TOPICS, overview, topLevelHelp } from '../dist/help.js';
import { formatHelpLayout } from '../dist/term/help-layout.js';

/** widths the layout is checked at: narrow terminals, the usual ones, a wide one, a terminal reporting no size */
const WIDTHS = [0, 20, 40, 60, 79, 80, 100, 120, 132, 200, 400];

const formatHelp = Help.prototype.formatHelp;
/** what commander formatted during one render: the layout and the text at the width of the render */
let formatted = [];
Help.prototype.formatHelp = function recordLayout(cmd, helper) {
  const text = formatHelp.call(this, cmd, helper);
  // the same walk with items recorded instead of formatted (formatHelp calls helper.formatItem, this.formatItemList)
  const sections = [];
  const recorder = Object.create(helper);
  recorder.formatItem = (term, _termWidth, description) => [term, description];
  recorder.formatItemList = (heading, items) => (items.length > 0 && sections.push([heading, items]), []);
  formatHelp.call(recorder, cmd, recorder);
  const layout = {
    before: '',
    usage: `${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(cmd))}`,
    description: helper.styleCommandDescription(helper.commandDescription(cmd)),
    termWidth: helper.padWidth(cmd, helper),
    sections,
    after: '',
  };
  for (const width of WIDTHS) {
    const atWidth = Object.create(helper);
    atWidth.helpWidth = width;
    const want = formatHelp.call(atWidth, cmd, atWidth);
    const got = formatHelpLayout(layout, width);
    if (got !== want)
      throw new Error(
        `svc ${cmd.name()}: its help laid out from data at ${width} columns is not commander's:\n${got}\n---\n${want}`,
      );
  }
  formatted.push({ layout, text });
  return text;
};

const pages = {};
const control = { signal: new AbortController().signal, signalExit: undefined, setInterruptHandler() {} };
const walk = async (nodes, prefix) => {
  for (const node of nodes) {
    const path = [...prefix, node.name];
    const render = async (flag) => {
      let out = '';
      let err = '';
      const streams = {
        get stdin() {
          return process.stdin;
        },
        stdout: { isTTY: false, write: (s) => ((out += s), true) },
        stderr: { isTTY: false, write: (s) => ((err += s), true) },
      };
      formatted = [];
      const code = await runCli([...path, flag], { streams, env: {}, control });
      if (code !== 0 || err !== '') throw new Error(`svc ${path.join(' ')} ${flag}: exit ${code} ${err}`);
      return out;
    };
    const page = await render('--help');
    // the text around commander's part (addHelpText) is the same at every width
    const at = formatted.length === 1 ? page.indexOf(formatted[0].text) : -1;
    if (at < 0) throw new Error(`svc ${path.join(' ')} --help: not one help text of commander's in the page`);
    const layout = {
      ...formatted[0].layout,
      before: page.slice(0, at),
      after: page.slice(at + formatted[0].text.length),
    };
    if (formatHelpLayout(layout, undefined) !== page)
      throw new Error(`svc ${path.join(' ')} --help: the page laid out from data differs`);
    // the launcher prints the page for -h too: a command that gave -h another meaning must not get one
    if ((await render('-h')) !== page)
      throw new Error(`svc ${path.join(' ')}: -h is not --help; help pages (bin/svc.cjs) assume it is`);
    pages[path.join(' ')] = { text: page, layout };
    if (node.children) await walk(await node.children(), path);
  }
};
await walk(rootCommands, []);
// the launcher prints the page of `svc help <words…>` too: a help topic (`svc help globals`) must not have one
for (const topic of HELP_TOPICS)
  if (pages[topic])
    throw new Error(
      `svc ${topic}: a command named as a help topic; bin/svc.cjs would print its page for \`svc help ${topic}\``,
    );
// `svc --help` and bare `svc` into a pipe or a file (80 columns, as src/help.ts prints them there), text only: on a
// terminal dist/bundle/help.cjs lays them out at its width. Named apart from the commands' (no word starts with _)
pages._options = { text: topLevelHelp(80) };
pages._overview = { text: overview(80) };
process.stdout.write(JSON.stringify(pages));
