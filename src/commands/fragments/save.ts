import { readFileSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { UsageError, isFileSystemError, fileErrorReason } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { FRAGMENT_NAME, fragmentFile, fragmentNames, fragmentText, fragmentsDir } from '../../cmdutil/fragments.js';
import { makeDirs } from 'svc-formats/make-dirs';

export default defineCommand({
  description:
    'Saves the text of FILE (or stdin: - or no FILE) as NAME.txt in the fragments folder of the config folder; ' +
    '`-f NAME` on chat, responses create and messages then puts it before the prompt.',
  args: [
    { name: 'name', description: 'fragment name (letters, digits, _ . -)', required: true },
    { name: 'file', description: 'a text file, or - for stdin (default)' },
  ],
  options: forceFlags('a fragment of that name'),
  examples: ['svc fragments save style docs/style-guide.md', 'git diff | svc fragments save diff'],
  async run(ctx, [name, file], opts) {
    if (!FRAGMENT_NAME.test(name)) throw new UsageError(`NAME: "${name}" is not a fragment name`);
    if (fragmentNames(ctx.env).includes(name) && !opts.force)
      throw new UsageError(`NAME: fragment ${name} exists; --force replaces it`);
    let data: Buffer;
    if (file === undefined || file === '-') {
      if (ctx.streams.stdin.isTTY) throw new UsageError('FILE: none given and stdin is a terminal: pipe the text in');
      data = await ctx.readStdinBytes();
    } else {
      try {
        data = readFileSync(file);
      } catch (err) {
        if (!isFileSystemError(err)) throw err;
        throw new UsageError(
          `FILE: ${file}: ${err.code === 'ENOENT' ? 'no such file' : fileErrorReason(err.code, err)}`,
        );
      }
    }
    const text = fragmentText(data, file ?? 'stdin');
    if (!text.trim()) throw new UsageError('FILE: the text is empty');
    makeDirs(fragmentsDir(ctx.env), 0o700);
    await writeFileAtomic(fragmentFile(ctx.env, name), text);
    ctx.out.info(`saved fragment ${name}: ${fragmentFile(ctx.env, name)}`);
    return 0;
  },
});
