import { defineCommand } from '../../cmdutil/command.js';
import { ApiError, UsageError } from '../../core/errors.js';
import {
  agentFields,
  createAgent,
  getAgent,
  updateAgent,
  type Agent,
  type AgentField,
  type AgentInput,
} from '../../endpoints/agents.js';
import {
  canonical,
  checkAgentInput,
  describeChange,
  fileNamer,
  parseAgentJson,
  readAgentFile,
  sameValue,
} from './shared.js';
import { repeatable } from '../../core/validate.js';
import {
  checkEnv,
  ENV_OPTION,
  referencedNames,
  requireProject,
  saveProject,
  sortFiles,
  type Project,
} from './project.js';
import { applyPlan, differs, planAll, planJson, planText, projectTargets, type FieldChange } from './sync.js';

const READ_ONLY = new Set(['agent_id', 'created_at', 'updated_at']);

export default defineCommand({
  description:
    'A project (svc agents init): every agent of the folder given (or of the project found from here upward), ' +
    'or of the -f files, in the environment of --env (the base file with its overlay, ${env:NAME} references ' +
    'resolved); agents not on the server yet are created and their ids recorded in svc-agents.json. ' +
    'A lone file (not in a project): without "agent_id" the agent is created; with it, only the fields that ' +
    'differ are sent (the field mask holds exactly those). The difference is shown on stderr first; a field set ' +
    'to null is cleared, a field left out is left as it is; afterwards the agent is read back and every field the ' +
    'server did not keep as sent is reported. --dry-run shows the difference, sends nothing and exits 1 when ' +
    'something differs (0 when all is in sync), like `git diff --exit-code`; with --json it prints the difference ' +
    'as one JSON object per agent.',
  args: [{ name: 'dir', description: 'project folder (default: the project found from here upward)' }],
  options: [
    {
      flags: '-f, --file <path>',
      description: 'agent JSON file (repeatable; `-` reads stdin); a file of a project pushes that agent',
      parse: repeatable(),
    },
    ENV_OPTION,
    { flags: '--dry-run', description: 'show what would change, send nothing; exit 1 when something differs' },
  ],
  examples: [
    'svc agents push',
    'svc agents push support-bots --env staging --dry-run',
    'svc agents push -f agents/support.json -f agents/sales.json',
    'svc agents pull agent_123 -o agent.json && $EDITOR agent.json && svc agents push -f agent.json',
  ],
  async run(ctx, [dir], opts) {
    const files = opts.file ?? [];
    if (dir !== undefined && files.length > 0)
      throw new UsageError(`${dir} and -f: give a project folder or -f files, not both`);
    const { projectFiles, loneFiles } = sortFiles(files, opts.env);
    if (files.length === 0 || projectFiles) {
      const project = projectFiles?.project ?? requireProject(dir, process.cwd());
      const env = checkEnv(project, projectFiles?.env ?? opts.env);
      const names = projectFiles?.names ?? Object.keys(project.agents);
      const code = await pushProject(ctx, project, env, names, !!opts.dryRun);
      if (loneFiles.length === 0) return code;
    }
    let code = 0;
    for (const f of loneFiles) code = Math.max(code, await pushFile(ctx, f, !!opts.dryRun));
    return code;
  },
});

type Ctx = Parameters<Parameters<typeof defineCommand>[0]['run']>[0];

async function pushProject(ctx: Ctx, project: Project, env: string, names: string[], dryRun: boolean) {
  if (names.length === 0) {
    ctx.out.info(`no agents in ${project.dir} yet: add agents/NAME.json files, or svc agents pull --all`);
    return 0;
  }
  const { http, plans } = await planAll(
    ctx,
    projectTargets(project, env, names, (m) => ctx.out.warn(m)),
  );
  for (const p of plans) for (const l of await planText(p, ctx.out.ce)) ctx.out.info(l);
  const changed = plans.filter(differs);
  const referenced = new Set(plans.flatMap((p) => [...referencedNames(p.target.template)]));
  if (dryRun) {
    if (ctx.out.json) for (const p of changed) ctx.out.printJsonLine(planJson(p));
    ctx.out.info(`dry run: nothing was sent; ${changed.length} of ${plans.length} agents differ`);
    return changed.length > 0 ? 1 : 0;
  }
  if ([...referenced].some((n) => !project.secrets.includes(n))) {
    project.secrets = [...new Set([...project.secrets, ...referenced])];
    await saveProject(project);
  }
  const rows: PushRow[] = [];
  // an agent taking a number another agent of this push gives up comes after that agent (the API refuses a number
  // held elsewhere: 409)
  const order = [...plans].sort((a, b) => Number(a.phoneHolder !== undefined) - Number(b.phoneHolder !== undefined));
  try {
    for (const p of order) {
      const name = p.target.label;
      const id = await applyPlan(http, p, ctx.out, async (newId) => {
        project.agents[name]!.ids[env] = newId;
        await saveProject(project);
      });
      const result = { same: 'unchanged', changed: 'updated', new: 'created', missing: 'created' }[p.state];
      rows.push({ agent: name, env, agent_id: id, result, changed: p.changes.map((c) => c.field) });
    }
  } finally {
    // what was done before a failure is still reported
    await printRows(ctx, rows);
  }
  ctx.out.info(`${changed.length} of ${plans.length} agents changed [${env}]`);
  return 0;
}

interface PushRow {
  agent: string;
  env: string;
  agent_id: string;
  result: string;
  changed: string[];
}

async function printRows(ctx: Ctx, rows: PushRow[]): Promise<void> {
  if (ctx.out.json) for (const r of rows) ctx.out.printJsonLine(r);
  else
    await ctx.out.table(rows, [
      { header: 'AGENT', get: (r) => r.agent },
      { header: 'ENV', get: (r) => r.env },
      { header: 'RESULT', get: (r) => r.result },
      { header: 'CHANGED', get: (r) => r.changed.join(', ') },
      { header: 'ID', get: (r) => r.agent_id },
    ]);
}

/** A lone agent file (the single-agent form: agent_id in the file). */
async function pushFile(ctx: Ctx, file: string, dryRun: boolean): Promise<number> {
  const source = file === '-' ? 'stdin' : file;
  const raw = file === '-' ? parseAgentJson(await ctx.readStdin(), 'stdin') : readAgentFile(file);
  for (const k of Object.keys(raw)) {
    if (!READ_ONLY.has(k) && !(agentFields() as readonly string[]).includes(k))
      ctx.out.warn(`${source}: field "${k}" is not an agent field; ignored`);
  }
  const id = raw.agent_id;
  if (id !== undefined && id !== null && (typeof id !== 'string' || id === ''))
    throw new UsageError(
      `${source}: agent_id: ${JSON.stringify(id)} is not allowed: an agent id (or leave it out to create a ` +
        `new agent)`,
    );
  const desired: AgentInput = {};
  for (const f of agentFields()) if (f in raw) desired[f] = raw[f] as unknown;
  const wanted = checkAgentInput(desired, fileNamer(source));
  const ce = ctx.out.ce;

  if (typeof id !== 'string') return createFromFile(ctx, source, wanted, dryRun);

  const http = await ctx.http();
  let current: Agent;
  try {
    current = await getAgent(http, id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new ApiError(
        404,
        `agent ${id} (from ${source}) does not exist: remove "agent_id" from the file to create it anew. ` +
          `Server said: ${err.message}`,
        err.code,
        err.requestId,
      );
    }
    throw err;
  }
  const changed = agentFields().filter((f) => f in wanted && !sameValue(f, current[f], wanted[f]));
  if (changed.length === 0) {
    ctx.out.info(`agent ${id} already matches ${source}: nothing to send`);
    if (dryRun) return dryRunResult(ctx, source, id, []);
    if (ctx.out.json) ctx.out.printJson(current);
    else ctx.out.line(id);
    return 0;
  }
  ctx.out.info(`${ce.bold(`~ agent ${id}`)}: ${changed.length} field${changed.length > 1 ? 's' : ''} differ`);
  for (const f of changed) ctx.out.info(await describeChange(f, current[f] ?? null, wanted[f] ?? null, ce));
  if (dryRun)
    return dryRunResult(
      ctx,
      source,
      id,
      changed.map((f) => ({ field: f, server: canonical(f, current[f]), local: canonical(f, wanted[f]) })),
    );
  // a field set to null is left out of `agent`: masked and absent means cleared
  const agent: AgentInput = {};
  for (const f of changed) if (wanted[f] !== null) agent[f] = wanted[f];
  const updated = await updateAgent(http, id, { agent, field_mask: { paths: changed } });
  const after = await getAgent(http, id);
  report(ctx, updated, after, changed, wanted);
  ctx.out.info(`updated agent ${id}: ${changed.join(', ')}`);
  if (ctx.out.json) ctx.out.printJson(after);
  else ctx.out.line(id);
  return 0;
}

/** A lone file without agent_id: the agent is created (its id printed, with a hint to add it to the file). */
async function createFromFile(ctx: Ctx, source: string, wanted: AgentInput, dryRun: boolean): Promise<number> {
  const ce = ctx.out.ce;
  if (wanted.name === undefined || wanted.name === null)
    throw new UsageError(`${source}: name is required to create an agent`);
  const fields = agentFields().filter((f) => wanted[f] !== undefined && wanted[f] !== null);
  ctx.out.info(`${ce.bold('+ new agent')} with ${fields.join(', ')}`);
  for (const f of fields) ctx.out.info(await describeChange(f, null, wanted[f], ce));
  if (dryRun)
    return dryRunResult(
      ctx,
      source,
      null,
      fields.map((f) => ({ field: f, server: null, local: canonical(f, wanted[f]) })),
    );
  const http = await ctx.http();
  const created = await createAgent(http, Object.fromEntries(fields.map((f) => [f, wanted[f]])));
  report(ctx, created, await getAgent(http, created.agent_id), fields, wanted);
  ctx.out.info(
    `created agent ${created.agent_id}; add "agent_id": "${created.agent_id}" to ${source} (or pull it ` +
      `again) so the next push updates it`,
  );
  if (ctx.out.json) ctx.out.printJson(created);
  else ctx.out.line(created.agent_id);
  return 0;
}

/** --dry-run of a lone file: the difference as JSON with --json; exit 1 when something differs. */
function dryRunResult(ctx: Ctx, source: string, id: string | null, changes: FieldChange[]): number {
  if (ctx.out.json && changes.length > 0)
    ctx.out.printJsonLine({
      agent: source,
      files: [source],
      agent_id: id,
      state: id === null ? 'new' : 'changed',
      changes,
    });
  ctx.out.info(changes.length > 0 ? 'dry run: nothing was sent' : 'dry run: nothing to send');
  return changes.length > 0 ? 1 : 0;
}

/** Warn about every field sent that the server did not keep as sent (read back after the write). */
function report(ctx: Ctx, _reply: Agent, readBack: Agent, fields: AgentField[], wanted: AgentInput): void {
  for (const f of fields) {
    if (!sameValue(f, readBack[f], wanted[f])) {
      ctx.out.warn(
        `the server did not keep ${f} as sent: sent ${JSON.stringify(canonical(f, wanted[f]))}, now ` +
          `${JSON.stringify(canonical(f, readBack[f]))}`,
      );
    }
  }
}
