import { defineCommand } from '../../cmdutil/command.js';
import { ApiError, UsageError } from '../../core/errors.js';
import { oneOf, repeatable } from '../../core/validate.js';
import { getAgent, updateAgent, type AgentField, type AgentInput, type AgentPatch } from '../../endpoints/agents.js';
import { getNumber } from '../../endpoints/phone.js';
import { AGENT_FIELD_OPTIONS, checkAgentInput, flagNamer, printAgent, readToolFiles, textOrFile } from './shared.js';
import { OPERATIONS } from 'svc-formats/api-facts';

/** the writable fields (the document's, as agentFields() reads them) but the name, which cannot be cleared */
const CLEARABLE = OPERATIONS.updateAgent.fields['body.field_mask.paths[]'].enum.filter(
  (f): f is Exclude<AgentField, 'name'> => f !== 'name',
);

export default defineCommand({
  description:
    'Only the fields given are written; the others stay as they are. --tool and --collection replace the whole list. ' +
    'A VAD flag alone keeps the current voice (the voice is read first and merged). --clear FIELD empties one field. ' +
    '--phone-number assigns a number to this agent (409 when another agent holds it); --unassign-phone frees it.',
  args: [{ name: 'id', description: 'agent id', required: true }],
  options: [
    ...AGENT_FIELD_OPTIONS,
    {
      flags: '--clear <field>',
      description: `clear a field: ${CLEARABLE.join(', ')} (repeatable)`,
      parse: repeatable(oneOf(CLEARABLE)),
      choices: CLEARABLE,
    },
    { flags: '--phone-number <id>', description: 'assign this phone number to the agent' },
    { flags: '--unassign-phone', description: 'unassign the phone number of the agent' },
  ],
  examples: [
    'svc agents update agent_123 --name "front desk" --voice ara',
    'svc agents update agent_123 --clear tools',
    'svc agents update agent_123 --phone-number pn_456',
    'svc agents update agent_123 --unassign-phone',
  ],
  async run(ctx, [id], opts) {
    const input: AgentInput = {};
    const paths = new Set<AgentField>();
    if (opts.name !== undefined) input.name = opts.name;
    if (opts.instructions !== undefined) input.instructions = textOrFile('--instructions', opts.instructions);
    if (opts.tool !== undefined) input.tools = readToolFiles(opts.tool);
    if (opts.collection !== undefined) input.collection_ids = opts.collection;
    const voiceGiven = opts.voice !== undefined || opts.vadThreshold !== undefined || opts.vadSilenceMs !== undefined;
    const given: Partial<Record<string, unknown>> = {};
    if (opts.voice !== undefined) given.voice_id = opts.voice;
    if (opts.vadThreshold !== undefined) given.vad_threshold = opts.vadThreshold;
    if (opts.vadSilenceMs !== undefined) given.vad_silence_duration_ms = opts.vadSilenceMs;
    if (voiceGiven) input.voice = given;
    for (const f of Object.keys(input) as AgentField[]) paths.add(f);

    const flagOf: Record<(typeof CLEARABLE)[number], boolean> = {
      instructions: opts.instructions !== undefined,
      tools: opts.tool !== undefined,
      voice: voiceGiven,
      collection_ids: opts.collection !== undefined,
    };
    for (const f of opts.clear ?? []) {
      if (flagOf[f]) throw new UsageError(`--clear ${f}: cannot both set and clear ${f}`);
      paths.add(f);
    }
    if (opts.phoneNumber !== undefined && opts.unassignPhone)
      throw new UsageError('--phone-number and --unassign-phone: give one or the other');
    if (opts.phoneNumber !== undefined && opts.phoneNumber.trim() === '')
      throw new UsageError('--phone-number: "" is not allowed: a phone number id (use --unassign-phone to unassign)');
    const phone = opts.unassignPhone ? '' : opts.phoneNumber;
    if (paths.size === 0 && phone === undefined)
      throw new UsageError(
        'nothing to update: give at least one field flag, --clear, --phone-number or --unassign-phone',
      );
    const checked = checkAgentInput(input, flagNamer);

    const http = await ctx.http();
    // The mask writes the whole voice object: merge the flags given into the current voice.
    if (voiceGiven) {
      const current = await getAgent(http, id);
      const cur = current.voice && typeof current.voice === 'object' ? current.voice : {};
      checked.voice = { ...cur, ...(checked.voice as Record<string, unknown>) };
    }
    const patch: AgentPatch = { agent: checked, field_mask: { paths: [...paths] } };
    if (phone !== undefined) patch.phone_number_id = phone;

    let agent;
    try {
      agent = await updateAgent(http, id, patch);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && phone) throw await explainConflict(http, err, phone, id);
      throw err;
    }
    if (ctx.out.json) ctx.out.printJson(agent);
    else printAgent(ctx.out, agent);
    const notes: string[] = [];
    if (paths.size) notes.push(`updated ${[...paths].join(', ')}`);
    if (phone) notes.push(`assigned phone number ${phone}`);
    if (phone === '') notes.push('unassigned its phone number');
    ctx.out.info(`agent ${agent.agent_id}: ${notes.join('; ')}`);
    return 0;
  },
});

/** A 409 on assignment: name the agent that holds the number, and how to free it. */
async function explainConflict(
  http: Awaited<ReturnType<import('../../runtime/context.js').Context['http']>>,
  err: ApiError,
  phone: string,
  id: string,
): Promise<ApiError> {
  let holder: string | undefined;
  try {
    const pn = await getNumber(http, phone);
    holder = typeof pn.agent_id === 'string' && pn.agent_id !== '' ? pn.agent_id : undefined;
  } catch {
    // keep the server's message
  }
  const who = holder ? `agent ${holder}` : 'another agent';
  const hint = holder ? `; unassign it first: svc agents update ${holder} --unassign-phone` : '';
  return new ApiError(
    409,
    `phone number ${phone} is already assigned to ${who}, so it was not assigned to ${id} (nothing ` +
      `changed)${hint}. Server said: ${err.message}`,
    err.code,
    err.requestId,
  );
}
