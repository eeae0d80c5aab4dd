import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { repeatable } from '../../core/validate.js';
import { agentFields } from '../../endpoints/agents.js';
import { checkEnv, ENV_OPTION, managedKeys, requireProject, sortFiles } from './project.js';
import { readAgentFile } from './shared.js';
import { differs, planAll, planJson, planText, projectTargets, type Target } from './sync.js';

export default defineCommand({
  description:
    'Compares what the files say (each agent file with its overlay for --env, ${env:NAME} references resolved) ' +
    'with the agents on the server, field by field (server-only fields such as agent_id and updated_at are not ' +
    'compared; null, an empty list and an absent field are alike), and prints the difference on stdout: ' +
    '`-` the server, `+` the files. Exits 1 when something differs and 0 when all is in sync, like ' +
    '`git diff --exit-code`; other failures exit 2 and up. --json prints one JSON object per differing agent ' +
    '({agent, env, files, agent_id, state, changes: [{field, server, local}]}). Nothing is sent but reads.',
  args: [{ name: 'dir', description: 'project folder (default: the project found from here upward)' }],
  options: [
    {
      flags: '-f, --file <path>',
      description: 'compare only this agent file (repeatable): of a project, or a lone file with agent_id',
      parse: repeatable(),
    },
    ENV_OPTION,
    {
      flags: '--exit-code',
      description: 'exit 1 when something differs: always so; accepted as `git diff --exit-code` spells it',
    },
  ],
  examples: [
    'svc agents diff',
    'svc agents diff --env staging --json',
    'svc agents diff --env production --exit-code',
    'svc agents diff -f agent.json || echo "agent.json and the server differ"',
  ],
  async run(ctx, [dir], opts) {
    const files = opts.file ?? [];
    if (dir !== undefined && files.length > 0)
      throw new UsageError(`${dir} and -f: give a project folder or -f files, not both`);
    const targets: Target[] = [];
    if (files.length === 0) {
      const project = requireProject(dir, process.cwd());
      const env = checkEnv(project, opts.env);
      targets.push(...projectTargets(project, env, Object.keys(project.agents), (m) => ctx.out.warn(m)));
    }
    const { projectFiles, loneFiles } = sortFiles(files, opts.env);
    if (projectFiles) {
      const { project, names } = projectFiles;
      targets.push(...projectTargets(project, checkEnv(project, projectFiles.env), names, (m) => ctx.out.warn(m)));
    }
    for (const f of loneFiles) targets.push(loneTarget(f, (m) => ctx.out.warn(m)));
    const { plans } = await planAll(ctx, targets);
    for (const p of plans) {
      if (ctx.out.json) {
        if (differs(p)) ctx.out.printJsonLine(planJson(p));
        continue;
      }
      if (differs(p)) for (const l of await planText(p, ctx.out.c)) ctx.out.line(l);
      else ctx.out.info(`${p.target.label}: in sync`);
    }
    const n = plans.filter(differs).length;
    ctx.out.info(n === 0 ? `all ${plans.length} in sync` : `${n} of ${plans.length} differ`);
    return n > 0 ? 1 : 0;
  },
});

/** A lone agent file: its agent_id names the agent. */
function loneTarget(f: string, warn: (m: string) => void): Target {
  if (f === '-') throw new UsageError('-f: - is not allowed here: a file (diff reads no stdin)');
  const raw = readAgentFile(f);
  const id = raw.agent_id;
  if (typeof id !== 'string' || id === '')
    throw new UsageError(`${f}: agent_id is required to compare a lone agent file with the server`);
  const template = managedKeys(raw, f, warn);
  for (const k of Object.keys(template)) if (!(agentFields() as readonly string[]).includes(k)) delete template[k];
  return { label: f, files: [f], id, template, literal: true };
}
