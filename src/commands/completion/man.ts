// Man pages from the command tree, as man/*.1 holds them (`npm run completions`): the single executable ships no
// files, so it prints a page or writes them all into a folder of the user's man path.
import { readFileSync } from 'node:fs';
import { makeDirs } from 'svc-formats/make-dirs';
import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { AtomicFile } from '../../core/atomic-file.js';
import { UsageError } from '../../core/errors.js';
import { expandHome, pathRules, userManDir } from '../../core/paths.js';
import { didYouMean } from '../../core/suggest.js';
import type { Context } from '../../runtime/context.js';
import { commandNames, commandPathOf, manPagesOf } from './script.js';

export default defineCommand({
  description:
    'Prints the page of `svc COMMAND…` (no words: svc(1)) as roff on stdout, the same page as the npm install ' +
    "has: read it with `man -l -`. --install writes every page into a folder (default the user's own man path, " +
    '$XDG_DATA_HOME/man/man1 or ~/.local/share/man/man1, which man finds when ~/.local/bin is on PATH; else add ' +
    'its parent to MANPATH), made when missing: a page already there with other content is replaced only with ' +
    '--force, and stdout lists the files written. Man pages do not apply on Windows (`svc help COMMAND` has the ' +
    'same text).',
  args: [{ name: 'command', description: 'a command path, e.g. files list (default: svc itself)', variadic: true }],
  options: [
    {
      flags: '--install [dir]',
      description: 'write every page into DIR (default: ~/.local/share/man/man1) instead of printing one',
    },
    ...forceFlags('a page in the --install folder whose content differs'),
  ],
  examples: ['svc completion man chat | man -l -', 'svc completion man --install', 'svc completion man files list'],
  async run(ctx, [words], opts) {
    const path = words as string[];
    if (opts.install !== undefined) {
      if (path.length) throw new UsageError(`--install writes every page: drop ${path.join(' ')}`);
      return install(ctx, installFolder(opts.install, ctx.env), !!opts.force);
    }
    const pages = await manPagesOf();
    const command = await commandPathOf(path);
    if (command === undefined) {
      const known = await commandNames();
      throw new UsageError(
        `COMMAND: svc ${path.join(' ')} is no command (e.g. files list)${didYouMean(path.join(' '), known)}`,
      );
    }
    ctx.out.write(pages.get(`${['svc', ...command].join('-')}.1`)!);
    return 0;
  },
});

/** The folder --install writes into: the one given, else the platform's (none on Windows: refused). */
export function installFolder(
  given: string | true,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string {
  if (given !== true) return pathRules(platform).resolve(expandHome(given, env, platform));
  const dir = userManDir(env, platform);
  if (dir === undefined)
    throw new UsageError(
      '--install: man pages do not apply on Windows (`svc help COMMAND` prints the same text); give a folder ' +
        '(--install DIR) to write them anyway',
    );
  return dir;
}

async function install(ctx: Context, dir: string, force: boolean): Promise<number> {
  const pages = await manPagesOf();
  const path = pathRules();
  const differing: string[] = [];
  const unchanged = new Set<string>();
  for (const [name, page] of pages) {
    const now = readIfThere(path.join(dir, name));
    if (now === page) unchanged.add(name);
    else if (now !== undefined) differing.push(name);
  }
  // all refused before any is written: a half-installed set helps nobody
  if (differing.length && !force)
    throw new UsageError(
      `--install: ${differing.length === 1 ? '1 page' : `${differing.length} pages`} in ${dir} ` +
        `${differing.length === 1 ? 'differs' : 'differ'} from svc's ` +
        `(${differing.slice(0, 3).join(', ')}${differing.length > 3 ? ', …' : ''}); --force replaces them`,
    );
  try {
    makeDirs(dir);
  } catch (err) {
    throw new UsageError(`--install: cannot make ${dir}: ${(err as Error).message}`);
  }
  // every page written beside its place before any is put there: a write that fails (a full disk) leaves the
  // folder as it was, as a refusal does
  const files: AtomicFile[] = [];
  const written: string[] = [];
  try {
    for (const [name, page] of pages) {
      if (unchanged.has(name)) continue;
      written.push(path.join(dir, name));
      const file = await AtomicFile.create(written[written.length - 1]!, { replace: force });
      files.push(file);
      await file.write(Buffer.from(page));
    }
    for (const file of files) await file.commit();
  } finally {
    // a no-op for each file put in place
    for (const file of files) await file.discard();
  }
  if (ctx.out.json) ctx.out.printJson({ dir, written, unchanged: unchanged.size });
  else for (const file of written) ctx.out.line(file);
  ctx.out.info(
    `${written.length} man page${written.length === 1 ? '' : 's'} written into ${dir}` +
      (unchanged.size ? ` (${unchanged.size} already there)` : '') +
      '; try `man svc-chat`',
  );
  return 0;
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
