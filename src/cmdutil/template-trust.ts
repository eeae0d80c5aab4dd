// A template is a file other programs and people may have written: what it would run (an MCP server, a tool
// command) and which local files it would read are shown by `templates list/show`, and its first use asks when it
// runs a program or reads a file outside the working folder (on a terminal; --yes in scripts; exit 2 in a pipe
// without it). A yes is kept as the sha256 of the template's text in the data folder (0600 file, 0700 folder), so an
// edited template asks again.
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { OptionSpec } from '../core/option-spec.js';
import { dataDir, expandHome } from '../core/paths.js';
import { writeJsonFile } from '../core/json-file.js';
import type { Context } from '../runtime/context.js';
import { terminalSafe } from '../term/terminal-safe.js';
import { resolveServers } from './mcp-command.js';
import { confirm } from './confirm.js';
import type { Template } from './templates.js';
import { makeDirs } from 'svc-formats/make-dirs';

/** Options whose values are command lines svc runs. */
const PROGRAM_OPTIONS = ['mcp', 'tool-cmd'];
/** Options whose values are local files svc reads (a URL or `-` aside), besides any `<file>`/`<path>` flag. */
const FILE_OPTIONS = ['attach', 'image', 'tool', 'schema', 'fragment', 'input'];

export interface TemplateUses {
  /** each as `OPTION: COMMAND` (a configured server as `mcp: NAME = COMMAND`) */
  programs: string[];
  /** the local files, as the template writes them */
  files: string[];
}

const values = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);

/** What template `t` would run and read; `options` (a command's flags) adds that command's file flags. */
export function templateUses(
  t: Template,
  profile: Record<string, string | undefined>,
  options: readonly OptionSpec[] = [],
): TemplateUses {
  const programs: string[] = [];
  const files: string[] = [];
  const fileFlag = (name: string) =>
    FILE_OPTIONS.includes(name) ||
    options.some((o) => o.flags.includes(`--${name} `) && /<[^>]*(file|path)/.test(o.flags));
  for (const [name, value] of Object.entries(t.options ?? {})) {
    if (name === 'mcp')
      for (const s of resolveServers(values(value), profile))
        programs.push(s.label === s.command ? `mcp: ${s.command}` : `mcp: ${s.label} = ${s.command}`);
    else if (PROGRAM_OPTIONS.includes(name)) for (const v of values(value)) programs.push(`${name}: ${v}`);
    else if (fileFlag(name)) files.push(...values(value).filter((v) => v !== '-' && !/^https?:\/\//i.test(v)));
  }
  return { programs, files };
}

/** Whether `file` (a path as written: relative to `cwd`, `~` the home) is outside `cwd`, links followed. */
export function outsideFolder(file: string, cwd: string, env: NodeJS.ProcessEnv): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const rel = relative(real(cwd), real(resolve(cwd, expandHome(file, env))));
  return rel === '..' || rel.startsWith(`..${process.platform === 'win32' ? '\\' : '/'}`) || isAbsolute(rel);
}

const trustFile = (env: NodeJS.ProcessEnv) => join(dataDir(env), 'trust', 'templates.json');

/** The hashes of template texts a person said yes to, each with the name it had. */
function trusted(env: NodeJS.ProcessEnv): Record<string, string> {
  try {
    const data = JSON.parse(readFileSync(trustFile(env), 'utf8')) as { trusted?: Record<string, string> };
    return data.trusted && typeof data.trusted === 'object' ? data.trusted : {};
  } catch {
    return {};
  }
}

function keepTrust(env: NodeJS.ProcessEnv, hash: string, name: string): void {
  const file = trustFile(env);
  const all = { ...trusted(env), [hash]: name };
  makeDirs(join(file, '..'), 0o700);
  chmodSync(join(file, '..'), 0o700);
  writeJsonFile(file, { trusted: all }, { pretty: true });
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** A template's text the person wrote themselves (`chat --save`): trusted as it is. */
export function trustTemplateText(env: NodeJS.ProcessEnv, name: string, text: string): void {
  keepTrust(env, hashOf(text), name);
}

/**
 * -t NAME: a template that runs a program or reads a file outside the working folder is used only once a person
 * said yes to this text of it (asked now on a terminal), or with --yes.
 */
export async function checkTemplateTrust(
  ctx: Context,
  name: string,
  text: string,
  t: Template,
  options: readonly OptionSpec[],
  yes: boolean | undefined,
): Promise<void> {
  const uses = templateUses(t, ctx.config().profileData as Record<string, string | undefined>, options);
  const outside = uses.files.filter((f) => outsideFolder(f, process.cwd(), ctx.env));
  if (!uses.programs.length && !outside.length) return;
  const hash = hashOf(text);
  if (trusted(ctx.env)[hash] !== undefined) return;
  const what = [
    uses.programs.length ? `runs ${uses.programs.join(', ')}` : '',
    outside.length ? `reads ${outside.join(', ')} (outside this folder)` : '',
  ].filter(Boolean);
  const question = terminalSafe(`-t ${name}: the template ${what.join(' and ')}; use it?`);
  await confirm(ctx, question, { yes });
  if (!yes) keepTrust(ctx.env, hash, name);
}
