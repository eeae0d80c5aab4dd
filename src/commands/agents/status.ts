import { defineCommand } from '../../cmdutil/command.js';
import { checkEnv, ENV_OPTION, requireProject } from './project.js';
import { differs, planAll, projectTargets, type Plan } from './sync.js';

const STATE_TEXT = {
  same: 'in sync',
  changed: 'changed',
  new: 'not pushed',
  missing: 'gone from server',
} as const;

export default defineCommand({
  description:
    'One row per agent of the project: whether the server matches its files in the environment of --env ' +
    '(in sync; changed, with the fields that differ; not pushed: no agent id for this environment yet; gone ' +
    'from server: its recorded agent no longer exists). Rows are a table on a terminal, tab-separated in a pipe ' +
    '(agent, env, state, fields, id), one JSON object per agent with --json. Exits 0 whatever the state ' +
    '(`svc agents diff` exits 1 on a difference).',
  args: [{ name: 'dir', description: 'project folder (default: the project found from here upward)' }],
  options: [ENV_OPTION],
  examples: ['svc agents status', 'svc agents status --env staging --json'],
  async run(ctx, [dir], opts) {
    const project = requireProject(dir, process.cwd());
    const env = checkEnv(project, opts.env);
    const names = Object.keys(project.agents);
    if (names.length === 0) {
      ctx.out.info(`no agents in ${project.dir} yet: add agents/NAME.json files, or svc agents pull --all`);
      return 0;
    }
    const { plans } = await planAll(
      ctx,
      projectTargets(project, env, names, (m) => ctx.out.warn(m)),
    );
    if (ctx.out.json) {
      for (const p of plans) ctx.out.printJsonLine(statusJson(p));
    } else {
      await ctx.out.table(plans, [
        { header: 'AGENT', get: (p) => p.target.label },
        { header: 'ENV', get: (p) => p.target.env },
        { header: 'STATE', get: (p) => STATE_TEXT[p.state] },
        { header: 'FIELDS', get: (p) => p.changes.map((x) => x.field).join(', ') },
        { header: 'ID', get: (p) => p.agentId ?? '' },
      ]);
    }
    const n = plans.filter(differs).length;
    ctx.out.info(n === 0 ? `all ${plans.length} agents in sync [${env}]` : `${n} of ${plans.length} differ [${env}]`);
    return 0;
  },
});

function statusJson(p: Plan): Record<string, unknown> {
  return {
    agent: p.target.label,
    env: p.target.env,
    files: p.target.files,
    agent_id: p.agentId ?? null,
    state: p.state,
    fields: p.changes.map((x) => x.field),
  };
}
