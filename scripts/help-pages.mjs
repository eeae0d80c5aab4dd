// Run by scripts/bundle.mjs in a child process whose stdout is a pipe: renders `svc <command…> --help` of every
// group and command as commander prints it into a pipe or a file (80 columns, no colour) and prints them as one
// JSON object { "models list": text }. bin/svc.cjs prints these pages when stdout is not a terminal, without
// loading the CLI (docs/performance.md); on a terminal commander renders help at the terminal's width.
import { rootCommands } from '../dist/commands/index.js';
import { runCli } from '../dist/cli.js';

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
      const code = await runCli([...path, flag], { streams, env: {}, control });
      if (code !== 0 || err !== '') throw new Error(`svc ${path.join(' ')} ${flag}: exit ${code} ${err}`);
      return out;
    };
    const page = await render('--help');
    // the launcher prints the page for -h too: a command that gave -h another meaning must not get one
    if ((await render('-h')) !== page) throw new Error(`svc ${path.join(' ')}: -h is not --help; help pages (bin/svc.cjs) assume it is`);
    pages[path.join(' ')] = page;
    if (node.children) await walk(await node.children(), path);
  }
};
await walk(rootCommands, []);
process.stdout.write(JSON.stringify(pages));
