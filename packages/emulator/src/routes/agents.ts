// Agents: POST/GET /v1/agents, GET/PATCH/DELETE /v1/agents/{agent_id}. The key needs agent access (403).
// PATCH follows the field-mask rules of the spec (only masked fields are written; masked and absent means
// cleared; an unknown path is 400) and assigns a v1 phone number atomically with the field update (409 when
// another agent holds it, naming that agent; the empty string unassigns).
import type { Backend } from '../state/backend.js';
import { queryNumber, type EmuRequest, type Handler, type Router } from '../http/router.js';
import { HttpError, invalid, notFound } from '../core/errors.js';
import { agents, type AgentRecord } from '../voice/agents.js';
import { findVoice } from '../voice/voices.js';
import { phoneNumbersV1, phoneNumbersV2 } from '../voice/phone-numbers.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

type Json = Record<string, any>;

/** an agent's writable fields: the paths a PATCH's field mask may name */
const AGENT_PATHS = OPERATIONS.updateAgent.fields['body.field_mask.paths[]'].enum;

/** The agent as the API shows it (no team id). */
export function publicAgent(a: AgentRecord): Json {
  const { team_id: _team, ...rest } = a;
  return rest;
}

/** The agent of the caller's team, or 404. */
export function agentOf(core: Backend, req: EmuRequest, id: string): AgentRecord {
  const a = agents(core).get(id);
  if (!a || a.team_id !== req.key?.team_id) notFound(`Agent ${id} not found`);
  return a;
}

/** Check one writable field (400 naming the field and the rule). */
/**
 * Check one writable field (400 naming the field and the rule). Types, lengths, item counts, tool kinds, a tool's
 * type and the VAD ranges are the document's (request-check.ts); here: a blank name, a function tool's name (required
 * of function tools only) and whether a voice exists for the team.
 */
function checkField(core: Backend, teamId: string, field: (typeof AGENT_PATHS)[number], v: unknown): void {
  switch (field) {
    case 'name':
      if (typeof v !== 'string' || v.trim() === '') invalid('Invalid value for `name`: a non-empty string is required');
      return;
    case 'tools':
      if (!Array.isArray(v)) return;
      v.forEach((t: Json, i) => {
        if (t.type === 'function' && (typeof t.function?.name !== 'string' || !t.function.name))
          invalid(`Invalid value for \`tools[${i}]\`: a function tool needs \`function.name\``);
      });
      return;
    case 'voice': {
      const voiceId = (v as Json | null)?.voice_id;
      if (
        voiceId !== undefined &&
        voiceId !== null &&
        (typeof voiceId !== 'string' || !findVoice(core, voiceId, teamId))
      )
        invalid(
          `Invalid value for \`voice.voice_id\`: ${JSON.stringify(voiceId)} is not a built-in voice ` +
            `(${SCHEMAS.BuiltinVoiceId.$.enum.join(', ')}) or a custom voice of the team`,
        );
      return;
    }
  }
}

/** Stored form of a field: built-in voice ids lowercase; none → null (collection_ids → []). */
function stored(core: Backend, teamId: string, field: (typeof AGENT_PATHS)[number], v: unknown): unknown {
  if (v === undefined || v === null) return field === 'collection_ids' ? [] : null;
  if (field === 'voice') {
    const voice = { ...(v as Json) };
    if (typeof voice.voice_id === 'string') voice.voice_id = findVoice(core, voice.voice_id, teamId)!.voice_id;
    return voice;
  }
  return v;
}

function limitOf(req: EmuRequest): number {
  return queryNumber(req, 'limit', 100);
}

const createAgent: Handler = async (req, res, core) => {
  const body = await req.json<Json>();
  const team = req.key!.team_id;
  for (const f of AGENT_PATHS) if (body[f] !== undefined) checkField(core, team, f, body[f]);
  const now = new Date().toISOString();
  const rec: AgentRecord = {
    agent_id: core.id('agent'),
    team_id: team,
    name: body.name,
    instructions: stored(core, team, 'instructions', body.instructions) as string | null,
    tools: stored(core, team, 'tools', body.tools) as unknown[] | null,
    voice: stored(core, team, 'voice', body.voice) as Json | null,
    collection_ids: stored(core, team, 'collection_ids', body.collection_ids) as string[],
    created_at: now,
    updated_at: now,
  };
  agents(core).set(rec.agent_id, rec);
  core.store.save();
  res.json(200, { agent: publicAgent(rec) });
};

const listAgents: Handler = (req, res, core) => {
  const limit = limitOf(req);
  const list = [...agents(core).values()].filter((a) => a.team_id === req.key!.team_id).slice(0, limit);
  res.json(200, { agents: list.map(publicAgent) });
};

const updateAgent: Handler = async (req, res, core) => {
  const current = agentOf(core, req, req.params.id!);
  // required fields and the mask's paths: the document's (request-check.ts)
  const body = await req.json<Json>();
  if (!body.agent || typeof body.agent !== 'object' || Array.isArray(body.agent))
    invalid('Invalid value for `agent`: expected an object');
  const masked = maskedPaths(body.field_mask?.paths);
  const team = req.key!.team_id;
  for (const f of masked) {
    const v = body.agent[f];
    if (f === 'name' && (v === undefined || v === null))
      invalid('Invalid value for `name`: the name cannot be cleared');
    if (v !== undefined) checkField(core, team, f, v);
  }
  // phone number assignment: checked before anything is written, so the whole PATCH is atomic
  const phoneId = body.phone_number_id;
  if (phoneId !== undefined && phoneId !== null && typeof phoneId !== 'string')
    invalid('Invalid value for `phone_number_id`: expected a string');
  const target =
    typeof phoneId === 'string' && phoneId !== '' ? numberToAssign(core, team, phoneId, current) : undefined;
  const now = new Date().toISOString();
  const next: AgentRecord = { ...current, updated_at: now };
  for (const f of masked) (next as unknown as Json)[f] = stored(core, team, f, body.agent[f]);
  if (typeof phoneId === 'string') {
    // an agent holds at most one number: assigning replaces, the empty string unassigns
    const numbers = phoneNumbersV1(core);
    for (const pn of numbers.values()) {
      if (pn.agent_id === current.agent_id && pn.phone_number_id !== phoneId)
        numbers.set(pn.phone_number_id, { ...pn, agent_id: null, updated_at: now });
    }
    if (target && target.agent_id !== current.agent_id)
      numbers.set(target.phone_number_id, { ...target, agent_id: current.agent_id, updated_at: now });
  }
  agents(core).set(next.agent_id, next);
  core.store.save();
  res.json(200, { agent: publicAgent(next) });
};

/** The field mask's paths (each a writable field: the document's enum), without repeats. */
function maskedPaths(paths: unknown): (typeof AGENT_PATHS)[number][] {
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string'))
    invalid('Invalid value for `field_mask.paths`: expected an array of strings');
  return [...new Set(paths as (typeof AGENT_PATHS)[number][])];
}

/** The team's v1 number a PATCH assigns to the agent: 404 when there is none, 409 when another agent holds it. */
function numberToAssign(core: Backend, team: string, phoneId: string, current: AgentRecord) {
  const target = phoneNumbersV1(core).get(phoneId);
  if (!target || target.team_id !== team) notFound(`Phone number ${phoneId} not found`);
  if (target.agent_id && target.agent_id !== current.agent_id) {
    const holder = agents(core).get(target.agent_id);
    throw new HttpError(
      409,
      `Phone number ${phoneId} (${target.phone_number}) is already assigned to agent ` +
        `${target.agent_id}${holder ? ` ("${holder.name}")` : ''}; unassign it from that agent first`,
    );
  }
  return target;
}

/** The agent is deleted; the numbers assigned to it (v1 and v2) are unassigned. */
const deleteAgent: Handler = (req, res, core) => {
  const a = agentOf(core, req, req.params.id!);
  agents(core).delete(a.agent_id);
  const now = new Date().toISOString();
  for (const pn of phoneNumbersV1(core).values())
    if (pn.agent_id === a.agent_id)
      phoneNumbersV1(core).set(pn.phone_number_id, { ...pn, agent_id: null, updated_at: now });
  for (const pn of phoneNumbersV2(core).values())
    if (pn.agent_id === a.agent_id) phoneNumbersV2(core).set(pn.phone_number_id, { ...pn, agent_id: null });
  core.store.save();
  res.empty(204);
};

export function register(router: Router): void {
  const opts = { agentAccess: true } as const;
  router.post('/v1/agents', createAgent, opts);
  router.get('/v1/agents', listAgents, opts);
  router.get(
    '/v1/agents/:id',
    (req, res, core) => res.json(200, { agent: publicAgent(agentOf(core, req, req.params.id!)) }),
    opts,
  );
  router.patch('/v1/agents/:id', updateAgent, opts);
  router.delete('/v1/agents/:id', deleteAgent, opts);
}
