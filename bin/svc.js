#!/usr/bin/env node
// Tiny launcher: `--version` answers without loading anything else; all the rest lives in dist/cli.js.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(pkg.version + '\n');
} else {
  const { main } = await import('../dist/cli.js');
  await main(argv);
}
