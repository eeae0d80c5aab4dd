import { defineCommand } from '../../cmdutil/command.js';
import { ApiError, UsageError } from '../../core/errors.js';
import {
  AGENT_FIELDS,
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

const READ_ONLY = new Set(['agent_id', 'created_at', 'updated_at']);

export default defineCommand<{ file: string; dryRun?: boolean }>({
  description:
    'Without "agent_id" in the file the agent is created. With it, the agent is read and only the fields that ' +
    'differ are sent (the field mask holds exactly those); the difference is shown on stderr first. A field set to ' +
    'null is cleared; a field left out of the file is left as it is. Afterwards the agent is read back and every ' +
    'field the server did not keep as sent is reported. --dry-run shows the difference and sends nothing.',
  options: [
    { flags: '-f, --file <path>', description: 'agent JSON (`-` reads stdin)' },
    { flags: '--dry-run', description: 'show what would change; send nothing' },
  ],
  examples: [
    'svc agents pull agent_123 -o agent.json && $EDITOR agent.json && svc agents push -f agent.json',
    'svc agents push -f agent.json --dry-run',
  ],
  async run(ctx, _args, opts) {
    if (opts.file === undefined) throw new UsageError('-f, --file is required: the agent JSON to push');
    const source = opts.file === '-' ? 'stdin' : opts.file;
    const raw = opts.file === '-' ? parseAgentJson(await ctx.readStdin(), 'stdin') : readAgentFile(opts.file);
    for (const k of Object.keys(raw)) {
      if (!READ_ONLY.has(k) && !(AGENT_FIELDS as readonly string[]).includes(k))
        ctx.out.warn(`${source}: field "${k}" is not an agent field; ignored`);
    }
    const id = raw.agent_id;
    if (id !== undefined && id !== null && (typeof id !== 'string' || id === ''))
      throw new UsageError(
        `${source}: agent_id: ${JSON.stringify(id)} is not allowed: an agent id (or leave it out to create a ` +
          `new agent)`,
      );
    const desired: AgentInput = {};
    for (const f of AGENT_FIELDS) if (f in raw) desired[f] = raw[f] as unknown;
    const wanted = checkAgentInput(desired, fileNamer(source));
    const ce = ctx.out.ce;

    if (typeof id !== 'string') {
      if (wanted.name === undefined || wanted.name === null)
        throw new UsageError(`${source}: name is required to create an agent`);
      const fields = AGENT_FIELDS.filter((f) => wanted[f] !== undefined && wanted[f] !== null);
      ctx.out.info(`${ce.bold('+ new agent')} with ${fields.join(', ')}`);
      for (const f of fields) ctx.out.info(await describeChange(f, null, wanted[f], ce));
      if (opts.dryRun) {
        ctx.out.info('dry run: nothing was sent');
        return 0;
      }
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
    const changed = AGENT_FIELDS.filter((f) => f in wanted && !sameValue(f, current[f], wanted[f]));
    if (changed.length === 0) {
      ctx.out.info(`agent ${id} already matches ${source}: nothing to send`);
      if (ctx.out.json) ctx.out.printJson(current);
      else ctx.out.line(id);
      return 0;
    }
    ctx.out.info(`${ce.bold(`~ agent ${id}`)}: ${changed.length} field${changed.length > 1 ? 's' : ''} differ`);
    for (const f of changed) ctx.out.info(await describeChange(f, current[f] ?? null, wanted[f] ?? null, ce));
    if (opts.dryRun) {
      ctx.out.info('dry run: nothing was sent');
      return 0;
    }
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
  },
});

/** Warn about every field sent that the server did not keep as sent (read back after the write). */
function report(
  ctx: Parameters<Parameters<typeof defineCommand>[0]['run']>[0],
  _reply: Agent,
  readBack: Agent,
  fields: AgentField[],
  wanted: AgentInput,
): void {
  for (const f of fields) {
    if (!sameValue(f, readBack[f], wanted[f])) {
      ctx.out.warn(
        `the server did not keep ${f} as sent: sent ${JSON.stringify(canonical(f, wanted[f]))}, now ` +
          `${JSON.stringify(canonical(f, readBack[f]))}`,
      );
    }
  }
}
