import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { ALIAS_NAME, aliasesFile, expansionWords, readAliases, writeAliases } from '../../runtime/aliases.js';
import { rootCommands } from '../index.js';

const commandNames = () => rootCommands.flatMap((c) => [c.name, ...(c.aliases ?? [])]);

/** An alias of svc's words starts with a command (an alias of an alias would not expand). */
function checkExpansion(expansion: string): void {
  if (expansion.startsWith('!')) {
    if (!expansion.slice(1).trim()) throw new UsageError('EXPANSION: "!" needs a shell command line after it');
    return;
  }
  const [first] = expansionWords(expansion);
  if (first === undefined) throw new UsageError('EXPANSION: empty; give the command line the alias stands for');
  if (!commandNames().includes(first)) {
    throw new UsageError(
      `EXPANSION: "${first}" is not an svc command${didYouMean(first, commandNames())}; an expansion starts with ` +
        "one (or with ! for a shell line: svc alias set NAME '!svc files list | head')",
    );
  }
}

export default defineCommand({
  description:
    'EXPANSION is svc’s words without the leading `svc` (`chat -m svc-4-mini`), where $1, $2 … are the ' +
    'arguments given after the alias (those not used are appended), or, starting with `!`, a line run by `sh -c` ' +
    'with the arguments as "$1" … "$@". `svc NAME …` then runs it; global flags may come before NAME. NAME may not ' +
    'be a command’s. Aliases live in aliases.json in the config folder (svc config path), which may be edited.',
  args: [
    { name: 'name', description: 'the new command word', required: true },
    { name: 'expansion', description: "what it stands for (quote it: 'chat -m svc-4-mini $1')", required: true },
  ],
  options: forceFlags('an alias of that name'),
  examples: [
    "svc alias set ask 'chat -m svc-4-mini'",
    "svc alias set fid 'files get $1 --json id,filename'",
    'svc alias set newest \'!svc files list --json id | head -n "${1:-1}"\'',
  ],
  async run(ctx, [name, expansion], opts) {
    if (!ALIAS_NAME.test(name)) {
      throw new UsageError(
        `NAME: "${name}" is not a word an alias may be (letters, digits, and _ . - after the first)`,
      );
    }
    if (commandNames().includes(name)) {
      throw new UsageError(`NAME: "${name}" is an svc command; an alias may not hide it`);
    }
    checkExpansion(expansion);
    const aliases = readAliases(ctx.env);
    if (Object.hasOwn(aliases, name) && !opts.force) {
      throw new UsageError(`NAME: alias ${name} exists (${aliases[name]}); --force replaces it`);
    }
    aliases[name] = expansion;
    writeAliases(ctx.env, aliases);
    ctx.out.info(`alias ${name} → ${expansion} (${aliasesFile(ctx.env)})`);
    return 0;
  },
});
