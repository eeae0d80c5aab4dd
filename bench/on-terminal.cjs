// Run by compareOnTerminal (bench/lib.mjs) inside `script`, its stdin and stdout a terminal: runs compareCommands for
// each pair given as JSON (with the terminal as the commands' stdin and stdout) and writes the results to a file.
const { writeFileSync } = require('node:fs');

const [resultFile, pairs] = process.argv.slice(2);
import('./lib.mjs').then(({ compareCommands }) => {
  const results = JSON.parse(pairs).map(({ base, cmd, runs, env }) =>
    compareCommands(base, cmd, { runs, env, terminal: true }),
  );
  writeFileSync(resultFile, JSON.stringify(results));
});
