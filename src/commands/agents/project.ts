// Agents as code for a project of many agents: the project file (svc-agents.json: the agents, their files and
// their ids per environment), agent files with per-environment overlays, and `${env:NAME}` secret references,
// resolved from the environment when sending and never written back into a file.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { UsageError } from '../../core/errors.js';
import { readInputText } from '../../core/input-file.js';
import type { OptionSpec } from '../../core/option-spec.js';
import { pattern } from '../../core/validate.js';
import { agentFields } from '../../endpoints/agents.js';
import { checkProjectPath, jsonErrorPlace, readProjectText } from './project-files.js';

export const PROJECT_FILE = 'svc-agents.json';
export const AGENTS_DIR = 'agents';
export const DEFAULT_ENV = 'default';
/** The key of an agent file naming its phone number (an id or an E.164 number; null: no number). */
export const PHONE_KEY = 'phone_number';

export interface ProjectAgent {
  /** the agent's file, relative to the project folder */
  file: string;
  /** the agent's id in each environment it was pushed to */
  ids: Record<string, string>;
}

export interface Project {
  dir: string;
  environments: string[];
  agents: Record<string, ProjectAgent>;
  /** the variables the files reference (recorded by push): their values are never written by pull */
  secrets: string[];
}

/** The project folder: DIR when given (it must hold the project file), else the nearest one up from `from`. */
export function findProject(dir: string | undefined, from: string): string | undefined {
  if (dir !== undefined) return resolve(from, dir);
  for (let d = resolve(from); ; d = dirname(d)) {
    if (existsSync(join(d, PROJECT_FILE))) return d;
    if (dirname(d) === d) return undefined;
  }
}

export function requireProject(dir: string | undefined, cwd: string): Project {
  const found = findProject(dir, cwd);
  if (found === undefined)
    throw new UsageError(
      `no ${PROJECT_FILE} in ${cwd} or a folder above it: run \`svc agents init\` to start a project, or give ` +
        'its folder',
    );
  if (!existsSync(join(found, PROJECT_FILE)))
    throw new UsageError(`${found}: no ${PROJECT_FILE} there (run \`svc agents init ${dir ?? '.'}\` to make one)`);
  return loadProject(found);
}

function parseJsonObject(text: string, source: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON (${jsonErrorPlace(text, err)})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${source}: expected a JSON object`);
  return parsed as Record<string, unknown>;
}

export function loadProject(dir: string): Project {
  const source = join(dir, PROJECT_FILE);
  const raw = parseJsonObject(readInputText('project', source), source);
  const envs = raw.environments ?? [DEFAULT_ENV];
  if (!Array.isArray(envs) || envs.some((e) => typeof e !== 'string' || !ENV_NAME.test(e)))
    throw new UsageError(`${source}: environments: expected a list of names (letters, digits, - and _)`);
  const agents: Record<string, ProjectAgent> = {};
  const listed = raw.agents ?? {};
  if (typeof listed !== 'object' || listed === null || Array.isArray(listed))
    throw new UsageError(`${source}: agents: expected an object {NAME: {file, ids}}`);
  for (const [name, a] of Object.entries(listed as Record<string, unknown>)) {
    const entry = a as Record<string, unknown> | null;
    if (!entry || typeof entry.file !== 'string' || entry.file === '')
      throw new UsageError(`${source}: agents.${name}: expected {"file": "agents/${name}.json", "ids": {…}}`);
    checkProjectPath(dir, entry.file, `${source}: agents.${name}.file`);
    const ids = (entry.ids ?? {}) as Record<string, unknown>;
    if (typeof ids !== 'object' || Object.values(ids).some((v) => typeof v !== 'string' || v === ''))
      throw new UsageError(`${source}: agents.${name}.ids: expected {ENVIRONMENT: "agent id"}`);
    agents[name] = { file: entry.file, ids: { ...(ids as Record<string, string>) } };
  }
  const environments = [...new Set([DEFAULT_ENV, ...(envs as string[])])];
  const secrets = raw.secrets ?? [];
  if (!Array.isArray(secrets) || secrets.some((n) => typeof n !== 'string' || !VARIABLE.test(n)))
    throw new UsageError(`${source}: secrets: expected a list of environment variable names`);
  const project: Project = { dir, environments, agents, secrets: secrets as string[] };
  discoverAgents(project);
  return project;
}

export const ENV_NAME = /^[A-Za-z0-9_-]+$/;

/** Agent files in agents/ that the project does not list yet (created by hand) join it by their file name. */
function discoverAgents(project: Project): void {
  const folder = join(project.dir, AGENTS_DIR);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return;
  const known = new Set(Object.values(project.agents).map((a) => resolve(project.dir, a.file)));
  for (const f of readdirSync(folder).sort()) {
    if (!f.endsWith('.json')) continue;
    const stem = f.slice(0, -'.json'.length);
    const dot = stem.lastIndexOf('.');
    if (dot > 0 && project.environments.includes(stem.slice(dot + 1))) continue; // an overlay
    const path = join(folder, f);
    if (known.has(path) || stem in project.agents) continue;
    project.agents[stem] = { file: `${AGENTS_DIR}/${f}`, ids: {} };
  }
}

export async function saveProject(project: Project): Promise<void> {
  const agents = Object.fromEntries(
    Object.entries(project.agents).map(([name, a]) => [name, { file: a.file, ids: a.ids }]),
  );
  const body: Record<string, unknown> = { environments: project.environments, agents };
  if (project.secrets.length > 0) body.secrets = [...new Set(project.secrets)].sort();
  await writeFileAtomic(join(project.dir, PROJECT_FILE), `${JSON.stringify(body, null, 2)}\n`);
}

export function checkEnv(project: Project, env: string | undefined): string {
  const name = env ?? DEFAULT_ENV;
  if (!project.environments.includes(name))
    throw new UsageError(
      `--env: ${JSON.stringify(name)} is not allowed: one of ${project.environments.join(', ')} (the ` +
        `environments of ${join(project.dir, PROJECT_FILE)})`,
    );
  return name;
}

/** agents/support.json → agents/support.staging.json */
export function overlayPath(file: string, env: string): string {
  return file.endsWith('.json') ? `${file.slice(0, -'.json'.length)}.${env}.json` : `${file}.${env}.json`;
}

/** The project agent a file names (its base file or one of its overlays), if any. */
export function agentOfFile(project: Project, path: string): { name: string; env?: string } | undefined {
  const abs = resolve(path);
  for (const [name, a] of Object.entries(project.agents)) {
    if (resolve(project.dir, a.file) === abs) return { name };
    for (const env of project.environments)
      if (resolve(project.dir, overlayPath(a.file, env)) === abs) return { name, env };
  }
  return undefined;
}

/**
 * The -f files that are agents of one project (by name), and the lone ones. An overlay file names its environment:
 * `-f agents/support.staging.json` is the agent support in staging (another --env is exit 2).
 */
export function sortFiles(
  files: string[],
  envFlag: string | undefined,
): { projectFiles?: { project: Project; names: string[]; env?: string }; loneFiles: string[] } {
  let projectFiles: { project: Project; names: string[]; env?: string } | undefined;
  const loneFiles: string[] = [];
  for (const f of files) {
    const dir = f === '-' ? undefined : findProject(undefined, dirname(resolve(f)));
    const project = dir === undefined ? undefined : loadProject(dir);
    const agent = project ? agentOfFile(project, f) : undefined;
    if (!project || !agent) {
      loneFiles.push(f);
      continue;
    }
    if (projectFiles && projectFiles.project.dir !== project.dir)
      throw new UsageError(`-f ${f}: its project is ${project.dir}, another than ${projectFiles.project.dir}'s`);
    projectFiles ??= { project, names: [], env: envFlag };
    if (agent.env !== undefined && projectFiles.env !== undefined && projectFiles.env !== agent.env)
      throw new UsageError(
        `-f ${f}: the overlay of environment ${agent.env}, while ${envFlag !== undefined ? '--env' : 'another -f'} ` +
          `names ${projectFiles.env}: push one environment at a time`,
      );
    projectFiles.env ??= agent.env;
    if (!projectFiles.names.includes(agent.name)) projectFiles.names.push(agent.name);
  }
  if (loneFiles.length > 0 && envFlag !== undefined)
    throw new UsageError(`--env: ${loneFiles[0]} is not an agent of a project (${PROJECT_FILE}); --env needs one`);
  return { projectFiles, loneFiles };
}

/** A file the project names (`rel`: relative to its folder, kept inside it), as a JSON object; undefined: none. */
export function readProjectJson(project: Project, rel: string): Record<string, unknown> | undefined {
  const text = readProjectText(project.dir, rel);
  return text === undefined ? undefined : parseJsonObject(text, rel);
}

/** The keys an agent file may hold: the writable agent fields and its phone number. */
const fileKeys = (): readonly string[] => [...agentFields(), PHONE_KEY];
const SERVER_ONLY = new Set(['agent_id', 'created_at', 'updated_at']);

/** An agent file's managed keys (server-only fields dropped; other keys are reported by `warn`). */
export function managedKeys(raw: Record<string, unknown>, shown: string, warn: (m: string) => void) {
  const out: Record<string, unknown> = {};
  const keys = fileKeys();
  for (const [k, v] of Object.entries(raw)) {
    if (keys.includes(k)) out[k] = v;
    else if (!SERVER_ONLY.has(k)) warn(`${shown}: field "${k}" is not an agent field; ignored`);
  }
  return out;
}

/** Overlay on base: objects merge key by key, anything else (lists, text, numbers, null) replaces. */
export function mergeOverlay(base: unknown, overlay: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(overlay)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(overlay)) out[k] = k in out ? mergeOverlay(out[k], v) : v;
    return out;
  }
  return overlay;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One agent of the project in one environment: what its files say (references unresolved). */
export interface AgentTemplate {
  name: string;
  env: string;
  /** the files it was read from, relative to the project folder (base, then the overlay when there is one) */
  files: string[];
  template: Record<string, unknown>;
}

export function readTemplate(project: Project, name: string, env: string, warn: (m: string) => void): AgentTemplate {
  const agent = project.agents[name]!;
  const shown = agent.file;
  const base = readProjectJson(project, shown);
  if (!base) throw new UsageError(`${shown}: no such file (agent ${name} of ${PROJECT_FILE})`);
  let template = managedKeys(base, shown, warn);
  const files = [agent.file];
  if (env !== DEFAULT_ENV) {
    const over = overlayPath(agent.file, env);
    const overlayFile = readProjectJson(project, over);
    if (overlayFile) {
      const overlay = managedKeys(overlayFile, over, warn);
      template = mergeOverlay(template, overlay) as Record<string, unknown>;
      files.push(over);
    }
  }
  return { name, env, files, template };
}

// ---------------------------------------------------------------------------------------------------------
// Secrets: `${env:NAME}` anywhere in a text value is the environment variable NAME, resolved before sending.

const REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** svc's own secrets are not lent to an agent's configuration (core/environment.ts keeps them from children too) */
const OWN_SECRET = /^SVC_\w*(API_KEY|SECRET|TOKEN)/;

export function hasReference(v: unknown): boolean {
  return typeof v === 'string' && new RegExp(REFERENCE.source).test(v);
}

/** The names referenced anywhere in a value. */
export function referencedNames(v: unknown, into = new Set<string>()): Set<string> {
  if (typeof v === 'string') for (const m of v.matchAll(REFERENCE)) into.add(m[1]!);
  else if (Array.isArray(v)) for (const x of v) referencedNames(x, into);
  else if (isPlainObject(v)) for (const x of Object.values(v)) referencedNames(x, into);
  return into;
}

/** Each reference replaced by its variable's value; a variable not set is a usage error naming the file and field. */
export function resolveReferences(v: unknown, env: NodeJS.ProcessEnv, where: string): unknown {
  if (typeof v === 'string')
    return v.replace(REFERENCE, (_m, name: string) => {
      if (OWN_SECRET.test(name))
        throw new UsageError(`${where}: \${env:${name}} is not allowed: svc's own secrets are not sent in an agent`);
      const value = env[name];
      if (value === undefined)
        throw new UsageError(`${where}: \${env:${name}} is not set in the environment (export ${name}=… first)`);
      return value;
    });
  if (Array.isArray(v)) return v.map((x, i) => resolveReferences(x, env, `${where}[${i}]`));
  if (isPlainObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveReferences(x, env, `${where}.${k}`)]));
  return v;
}

/** The values of the referenced variables that are set (longest first), to hide them again in what is shown. */
export function secretValues(names: Iterable<string>, env: NodeJS.ProcessEnv): [string, string][] {
  const out: [string, string][] = [];
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.length >= MIN_HIDDEN) out.push([name, value]);
  }
  return out.sort((a, b) => b[1].length - a[1].length);
}
/** Shorter values are not searched for in server text (a 2-character secret would rewrite unrelated text). */
const MIN_HIDDEN = 4;

/** Every occurrence of a secret's value in the text values of `v` written back as its reference. */
export function hideSecrets(v: unknown, secrets: [string, string][]): unknown {
  if (secrets.length === 0) return v;
  if (typeof v === 'string') {
    let s = v;
    for (const [name, value] of secrets) s = s.split(value).join(`\${env:${name}}`);
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => hideSecrets(x, secrets));
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hideSecrets(x, secrets)]));
  return v;
}

/**
 * The server's value in the form a file may hold. A secret's value (of a variable set here) is written as its
 * reference. Where the local file has a reference and the server's text holds none of the known values (the
 * variable is not set here, or the server holds another value), the file's text is kept as it was: what the
 * server holds there may be a secret, and `differs` is told.
 */
export function rereference(
  server: unknown,
  local: unknown,
  secrets: [string, string][],
  differs: (path: string) => void,
  path = '',
): unknown {
  if (typeof local === 'string' && hasReference(local)) {
    const hidden = hideSecrets(server, secrets);
    if (typeof hidden === 'string' && hasReference(hidden)) return hidden;
    differs(path);
    return local;
  }
  if (Array.isArray(server) && Array.isArray(local))
    return server.map((x, i) => rereference(x, local[i], secrets, differs, `${path}[${i}]`));
  if (isPlainObject(server) && isPlainObject(local))
    return Object.fromEntries(
      Object.entries(server).map(([k, x]) => [k, rereference(x, local[k], secrets, differs, `${path}.${k}`)]),
    );
  return hideSecrets(server, secrets);
}

/** A file name for a new agent from its name: lowercase letters, digits and dashes, unique in the project. */
export function fileNameFor(
  project: Project,
  agentName: string,
  taken: Set<string> = takenFiles(project),
): { name: string; file: string } {
  const stem =
    agentName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'agent';
  for (let i = 1; ; i++) {
    const name = i === 1 ? stem : `${stem}-${i}`;
    const file = `${AGENTS_DIR}/${name}.json`;
    const clash = project.environments.some((e) => name.endsWith(`.${e}`));
    if (!(name in project.agents) && !taken.has(resolve(project.dir, file)) && !clash) {
      taken.add(resolve(project.dir, file));
      return { name, file };
    }
  }
}

/** The files of the project's agents (absolute), for fileNameFor to pick others. */
export function takenFiles(project: Project): Set<string> {
  return new Set(Object.values(project.agents).map((a) => resolve(project.dir, a.file)));
}

export const ENV_OPTION = {
  flags: '--env <name>',
  description:
    'environment of the project: each agent file with its NAME.ENV.json overlay, and the agent ids of that ' +
    `environment (default: ${DEFAULT_ENV}; the names are listed in ${PROJECT_FILE})`,
  parse: pattern(ENV_NAME, 'letters, digits, - and _'),
} as const satisfies OptionSpec;
