// `svc agents pull --all`: every agent of the team into the files of a project, secrets kept as references.
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { UsageError } from '../../core/errors.js';
import { agentFields, listAgents, type Agent, type AgentField } from '../../endpoints/agents.js';
import type { PhoneNumber } from '../../endpoints/phone.js';
import type { Context } from '../../runtime/context.js';
import {
  DEFAULT_ENV,
  PHONE_KEY,
  PROJECT_FILE,
  checkEnv,
  fileNameFor,
  takenFiles,
  isPlainObject,
  managedKeys,
  mergeOverlay,
  overlayPath,
  readProjectJson,
  referencedNames,
  requireProject,
  rereference,
  saveProject,
  secretValues,
  type Project,
} from './project.js';
import { numberRef, teamNumbers } from './phones.js';
import { projectWriteTarget, readProjectText } from './project-files.js';
import { canonical } from './shared.js';
import { makeDirs } from 'svc-formats/make-dirs';

const LIST_MAX = 1000;

interface Row {
  agent: string;
  env: string;
  file: string;
  agent_id: string;
  result: 'added' | 'written' | 'unchanged';
}

export async function pullAll(ctx: Context, dir: string | undefined, envFlag: string | undefined): Promise<number> {
  const project = requireProject(dir, process.cwd());
  const env = checkEnv(project, envFlag);
  const warn = (m: string) => ctx.out.warn(m);
  const names = projectReferences(project);
  const unset = [...names].filter((n) => ctx.env[n] === undefined);
  if (unset.length > 0)
    throw new UsageError(
      `${unset.join(', ')}: not set in the environment, and named as secrets by the project (its files' ` +
        `\${env:…} references or the "secrets" of ${PROJECT_FILE}): pull needs their values to keep them out of ` +
        'the files it writes',
    );
  const secrets = secretValues(names, ctx.env);
  ctx.out.hideOnStderr(secrets.map(([, value]) => value));
  const http = await ctx.http();
  const agents = (await listAgents(http, LIST_MAX)).agents;
  // the API has no cursor for agents: one reply holds at most LIST_MAX
  if (agents.length >= LIST_MAX) warn(`the team's agent list stops at ${LIST_MAX} agents; any beyond were not pulled`);
  const numbers = await teamNumbers(http);
  const onServer = new Set(agents.map((a) => a.agent_id));
  for (const [name, a] of Object.entries(project.agents))
    if (a.ids[env] !== undefined && !onServer.has(a.ids[env]!))
      warn(`${name}: agent ${a.ids[env]} [${env}] is no longer on the server; ${a.file} is kept`);
  const rows: Row[] = [];
  const taken = takenFiles(project);
  let added = false;
  for (const agent of agents) {
    let name = Object.keys(project.agents).find((n) => project.agents[n]!.ids[env] === agent.agent_id);
    const isNew = name === undefined;
    if (name === undefined) {
      // an agent of another environment of this project is not a new agent of this one
      if (Object.values(project.agents).some((a) => Object.values(a.ids).includes(agent.agent_id))) continue;
      const made = fileNameFor(project, String(agent.name ?? 'agent'), taken);
      project.agents[made.name] = { file: made.file, ids: { [env]: agent.agent_id } };
      name = made.name;
      added = true;
    }
    const server = fileForm(agent, numbers);
    const file = await writeAgent(project, name, env, server, { secrets, warn });
    const result = isNew ? 'added' : file.result;
    rows.push({ agent: name, env, file: file.path, agent_id: agent.agent_id, result });
  }
  if (added) await saveProject(project);
  if (ctx.out.json) for (const r of rows) ctx.out.printJsonLine(r);
  else
    await ctx.out.table(rows, [
      { header: 'AGENT', get: (r) => r.agent },
      { header: 'ENV', get: (r) => r.env },
      { header: 'RESULT', get: (r) => r.result },
      { header: 'FILE', get: (r) => r.file },
      { header: 'ID', get: (r) => r.agent_id },
    ]);
  const written = rows.filter((r) => r.result !== 'unchanged').length;
  ctx.out.info(`pulled ${rows.length} agents [${env}] into ${project.dir}: ${written} files written`);
  return 0;
}

/** What a file holds of an agent: the writable fields as sent, and its v1 phone number (null: none). */
function fileForm(agent: Agent, numbers: PhoneNumber[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of agentFields()) if (f in agent) out[f] = agent[f];
  const held = numbers.filter((n) => n.agent_id === agent.agent_id);
  out[PHONE_KEY] =
    held.length === 0
      ? null
      : held.length === 1
        ? (held[0]!.phone_number ?? held[0]!.phone_number_id)
        : held.map((n) => numberRef(n, null));
  return out;
}

/** Every ${env:NAME} of the project's files (base and overlays), to hide their values in what is written. */
function projectReferences(project: Project): Set<string> {
  const names = new Set<string>(project.secrets);
  for (const a of Object.values(project.agents))
    for (const f of [a.file, ...project.environments.map((e) => overlayPath(a.file, e))]) {
      const file = readProjectJson(project, f);
      if (file) referencedNames(file, names);
    }
  return names;
}

interface Hiding {
  secrets: [string, string][];
  warn: (m: string) => void;
}

/** Write the base file (default environment, or a new agent) or the overlay (what differs from the base). */
async function writeAgent(
  project: Project,
  name: string,
  env: string,
  server: Record<string, unknown>,
  h: Hiding,
): Promise<{ path: string; result: 'written' | 'unchanged'; created: boolean }> {
  const agent = project.agents[name]!;
  const quiet = () => {};
  const baseFile = readProjectJson(project, agent.file);
  const base = baseFile ? managedKeys(baseFile, agent.file, quiet) : undefined;
  const differs = (path: string) =>
    h.warn(
      `${name} [${env}]: ${path.slice(1)}: the server's text holds no value of the \${env:…} reference the file ` +
        'has there (not set here, or the server holds another value); the file keeps its text',
    );
  if (env === DEFAULT_ENV || base === undefined) {
    const content = rereference(server, base ?? {}, h.secrets, differs) as Record<string, unknown>;
    const r = await writeIfChanged(project, agent.file, keepOrder(content, base));
    return { path: agent.file, result: r, created: base === undefined };
  }
  const over = overlayPath(agent.file, env);
  const overlayFile = readProjectJson(project, over);
  const overlay = overlayFile ? managedKeys(overlayFile, over, quiet) : undefined;
  const local = mergeOverlay(base, overlay ?? {}) as Record<string, unknown>;
  const content = rereference(server, local, h.secrets, differs) as Record<string, unknown>;
  const delta: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(content)) {
    if (same(k, v, base[k])) continue;
    // an object overlay merges into the base key by key: the keys that differ, and null for those the server lacks
    if (isPlainObject(v) && isPlainObject(base[k])) delta[k] = objectDelta(v, base[k] as Record<string, unknown>);
    else delta[k] = v;
  }
  if (overlay === undefined && Object.keys(delta).length === 0)
    return { path: over, result: 'unchanged', created: false };
  return { path: over, result: await writeIfChanged(project, over, keepOrder(delta, overlay)), created: false };
}

function objectDelta(server: Record<string, unknown>, base: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(base)) if (!(k in server) && base[k] !== null) out[k] = null;
  for (const [k, v] of Object.entries(server))
    if (JSON.stringify(canonical('tools', v)) !== JSON.stringify(canonical('tools', base[k]))) out[k] = v;
  return out;
}

function same(field: string, a: unknown, b: unknown): boolean {
  const c = (v: unknown) => JSON.stringify(canonical(field as AgentField, v));
  return c(a) === c(b);
}

/** The keys in the order the file had them (a pull leaves a diff of what changed, not of the order). */
function keepOrder(content: Record<string, unknown>, before: Record<string, unknown> | undefined) {
  if (!before) return content;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(before)) if (k in content) out[k] = content[k];
  return { ...out, ...content };
}

async function writeIfChanged(project: Project, rel: string, content: unknown): Promise<'written' | 'unchanged'> {
  const text = `${JSON.stringify(content, null, 2)}\n`;
  // the same content differently laid out (spaces, key order) is not rewritten either
  const before = readProjectText(project.dir, rel);
  if (before !== undefined && sameJson(before, content)) return 'unchanged';
  const path = projectWriteTarget(project.dir, rel);
  makeDirs(dirname(path));
  await writeFileAtomic(path, text);
  return 'written';
}

function sameJson(text: string, content: unknown): boolean {
  try {
    return JSON.stringify(sorted(JSON.parse(text))) === JSON.stringify(sorted(content));
  } catch {
    return false;
  }
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (isPlainObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted(v[k])]),
    );
  return v;
}
