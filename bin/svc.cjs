#!/usr/bin/env node
'use strict';
// Tiny launcher, CommonJS so that `--version` never starts the ES module loader: `--version` and the top-level
// help answer without loading the CLI; everything else is dist/cli.js.
const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === '--version' || only === '-V') {
  process.stdout.write(require('../package.json').version + '\n');
} else if (only === '--help' || only === '-h' || argv.length === 0) {
  import('../dist/help.js').then(({ printTopLevelHelp }) => {
    process.exitCode = printTopLevelHelp(argv.length === 0);
  });
} else {
  import('../dist/cli.js').then(({ main }) => main(argv));
}
