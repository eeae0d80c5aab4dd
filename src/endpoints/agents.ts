// Agents: POST/GET /v1/agents, GET/PATCH/DELETE /v1/agents/{agent_id}.
import type { JsonBody, Schema } from './api-shapes.js';
import { seg, type HttpClient } from '../net/http.js';
import { ProtocolError } from '../core/errors.js';
import { expectFields } from './guard.js';
import { withReply } from '../term/reply.js';
import { apiFacts } from '../core/lazy-api-facts.js';
import type { OPERATIONS } from 'svc-formats/api-facts';

export type Agent = Schema<'Agent'>;

type FieldMaskPaths = (typeof OPERATIONS)['updateAgent']['fields']['body.field_mask.paths[]']['enum'];
export type AgentField = FieldMaskPaths[number];
/** The fields a client may write: the document's field-mask paths of PATCH /v1/agents/{id} (AgentFields' properties,
 * packages/emulator/test/contract.test.ts), which the emulator reads too. */
export const agentFields = (): FieldMaskPaths =>
  apiFacts().OPERATIONS.updateAgent.fields['body.field_mask.paths[]'].enum;
export type AgentInput = Partial<Record<AgentField, unknown>>;

/** An agent's limits, as the document states them (read when an agent is checked, not when this module loads). */
export function agentLimits() {
  const fields = apiFacts().SCHEMAS.AgentFields;
  const range = (f: { minimum: number; maximum: number }) => [f.minimum, f.maximum] as const;
  return {
    name: fields['$.name'].maxLength,
    instructions: fields['$.instructions'].maxLength,
    tools: fields['$.tools'].maxItems,
    collections: fields['$.collection_ids'].maxItems,
    vadThreshold: range(fields['$.voice.vad_threshold']),
    vadSilenceMs: range(fields['$.voice.vad_silence_duration_ms']),
  };
}

/** Get / create / update reply: `{agent}`; a bare agent is accepted too. */
function unwrap(raw: unknown, what: string): Agent {
  const obj = raw as Record<string, unknown> | undefined;
  const agent = obj && typeof obj.agent === 'object' && obj.agent !== null ? obj.agent : obj;
  return withReply(expectFields(agent as Agent, ['agent_id'], what), raw);
}

export async function createAgent(http: HttpClient, body: AgentInput): Promise<Agent> {
  return unwrap(await http.json('POST', '/v1/agents', { json: body }), 'create agent');
}

/** The list reply as the API sent it, checked to hold an `agents` list. */
export async function listAgents(
  http: HttpClient,
  limit?: number,
): Promise<{ agents: Agent[] } & Record<string, unknown>> {
  const raw = (await http.json('GET', '/v1/agents', { query: { limit } })) as Record<string, unknown> | undefined;
  if (!raw || typeof raw !== 'object' || !Array.isArray(raw.agents))
    throw new ProtocolError('the agent list reply has no `agents` list');
  return raw as { agents: Agent[] } & Record<string, unknown>;
}

export async function getAgent(http: HttpClient, id: string): Promise<Agent> {
  return unwrap(await http.json('GET', `/v1/agents/${seg(id)}`), 'agent');
}

/** the document's body, its agent's fields as svc holds them: checked at run time (checkAgentInput), unknown here */
export type AgentPatch = Omit<JsonBody<'updateAgent'>, 'agent'> & { agent: AgentInput };

export async function updateAgent(http: HttpClient, id: string, patch: AgentPatch): Promise<Agent> {
  return unwrap(await http.json('PATCH', `/v1/agents/${seg(id)}`, { json: patch }), 'update agent');
}

export async function deleteAgent(http: HttpClient, id: string): Promise<void> {
  const res = await http.request({ method: 'DELETE', path: `/v1/agents/${seg(id)}` });
  await res.body.dump();
}
