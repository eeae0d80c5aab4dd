// Agents as code, many at once: what the files want (references resolved, limits checked — all before anything is
// sent), how the server differs (a plan per agent), and the writes that make it match.
import { ApiError, UsageError } from '../../core/errors.js';
import {
  agentFields,
  createAgent,
  getAgent,
  updateAgent,
  type Agent,
  type AgentField,
  type AgentInput,
  type AgentPatch,
} from '../../endpoints/agents.js';
import type { PhoneNumber } from '../../endpoints/phone.js';
import type { HttpClient } from '../../net/http.js';
import type { Output } from '../../term/output.js';
import type { Context } from '../../runtime/context.js';
import {
  PHONE_KEY,
  hideSecrets,
  readTemplate,
  referencedNames,
  resolveReferences,
  secretValues,
  type Project,
} from './project.js';
import { findNumber, numberRef, teamNumbers } from './phones.js';
import { canonical, checkAgentInput, describeChange, fileNamer, sameValue } from './shared.js';

/** One agent to compare: from a project (name, environment) or a lone file (its path). */
export interface Target {
  label: string;
  env?: string;
  files: string[];
  id?: string;
  /** the file keys as written (references unresolved) */
  template: Record<string, unknown>;
  /** a lone file: its text is sent as written (`${env:…}` is resolved in project files only) */
  literal?: boolean;
}

export interface Prepared extends Target {
  wanted: AgentInput;
  /** the phone_number key when the files manage it (null: no number) */
  phone?: unknown;
  secrets: [string, string][];
}

/** Resolve references and check every limit, offline: a bad file is exit 2 with nothing sent. */
export function prepare(t: Target, env: NodeJS.ProcessEnv): Prepared {
  const where = t.files.join(' + ');
  const resolved = t.literal
    ? t.template
    : Object.fromEntries(Object.entries(t.template).map(([k, v]) => [k, resolveReferences(v, env, `${where}: ${k}`)]));
  const input: AgentInput = {};
  for (const f of agentFields()) if (f in resolved) input[f] = resolved[f];
  const wanted = checkAgentInput(input, fileNamer(where));
  if (t.id === undefined && (wanted.name === undefined || wanted.name === null))
    throw new UsageError(`${where}: name is required to create agent ${t.label}`);
  const secrets = t.literal ? [] : secretValues(referencedNames(t.template), env);
  const p: Prepared = { ...t, wanted, secrets };
  if (PHONE_KEY in resolved) p.phone = resolved[PHONE_KEY];
  return p;
}

export type PlanState = 'same' | 'changed' | 'new' | 'missing';

export interface FieldChange {
  field: string;
  /** the values as shown: secrets written as their references */
  server: unknown;
  local: unknown;
}

export interface Plan {
  target: Prepared;
  state: PlanState;
  agentId?: string;
  current?: Agent;
  fields: AgentField[];
  changes: FieldChange[];
  /** phone_number_id to send: a number id, '' to unassign */
  phoneId?: string;
  /** the agent now holding the wanted number, when it is another */
  phoneHolder?: string;
}

/** The team's v1 numbers, read once per run and only when a file names a phone number. */
export function numbersOnce(http: HttpClient): () => Promise<PhoneNumber[]> {
  let p: Promise<PhoneNumber[]> | undefined;
  return () => (p ??= teamNumbers(http));
}

export async function makePlan(http: HttpClient, t: Prepared, numbers: () => Promise<PhoneNumber[]>): Promise<Plan> {
  let current: Agent | undefined;
  let state: PlanState = 'new';
  if (t.id !== undefined) {
    try {
      current = await getAgent(http, t.id);
      state = 'same';
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      state = 'missing';
    }
  }
  const shown = (f: AgentField, v: unknown) => hideSecrets(canonical(f, v), t.secrets);
  const fields = agentFields().filter((f) =>
    current
      ? f in t.wanted && !sameValue(f, current[f], t.wanted[f])
      : t.wanted[f] !== undefined && t.wanted[f] !== null,
  );
  const changes: FieldChange[] = fields.map((f) => ({
    field: f,
    server: current ? shown(f, current[f]) : null,
    local: shown(f, t.wanted[f]),
  }));
  const plan: Plan = { target: t, state, agentId: current?.agent_id ?? t.id, current, fields, changes };
  if ('phone' in t) await planPhone(plan, await numbers());
  if (state === 'same' && plan.changes.length > 0) plan.state = 'changed';
  return plan;
}

async function planPhone(plan: Plan, numbers: PhoneNumber[]): Promise<void> {
  const t = plan.target;
  const wanted = t.phone === null ? null : findNumber(numbers, t.phone, `${t.files.join(' + ')}: ${PHONE_KEY}`);
  const held = plan.current ? numbers.filter((n) => n.agent_id === plan.current!.agent_id) : [];
  const same =
    wanted === null ? held.length === 0 : held.length === 1 && held[0]!.phone_number_id === wanted.phone_number_id;
  if (same || (wanted === null && !plan.current)) return;
  plan.phoneId = wanted === null ? '' : wanted.phone_number_id;
  if (wanted && typeof wanted.agent_id === 'string' && wanted.agent_id !== '' && wanted.agent_id !== plan.agentId)
    plan.phoneHolder = wanted.agent_id;
  const serverRef =
    held.length === 0 ? null : held.length === 1 ? numberRef(held[0]!, t.phone) : held.map((n) => numberRef(n, null));
  plan.changes.push({
    field: PHONE_KEY,
    server: serverRef,
    local: wanted === null ? null : numberRef(wanted, t.phone),
  });
}

export const differs = (p: Plan) => p.state !== 'same';

/** The JSON diff of one agent (one line of `agents diff --json`). */
export function planJson(p: Plan): Record<string, unknown> {
  const out: Record<string, unknown> = { agent: p.target.label };
  if (p.target.env !== undefined) out.env = p.target.env;
  out.files = p.target.files;
  out.agent_id = p.agentId ?? null;
  out.state = p.state;
  out.changes = p.changes.map((c) => (c.field === PHONE_KEY && p.phoneHolder ? { ...c, held_by: p.phoneHolder } : c));
  return out;
}

type Colors = Parameters<typeof describeChange>[3];

/** The human diff of one agent: a heading, then each field's difference. */
export async function planText(p: Plan, color: Colors): Promise<string[]> {
  const where = p.target.env !== undefined ? ` [${p.target.env}]` : '';
  const id = p.agentId ? ` (${p.agentId})` : '';
  const n = p.changes.length;
  const heading =
    p.state === 'same'
      ? `= ${p.target.label}${where}${id}: in sync`
      : p.state === 'new'
        ? `+ ${p.target.label}${where}: not on the server yet (pushing creates it)`
        : p.state === 'missing'
          ? `+ ${p.target.label}${where}${id}: no longer on the server (pushing creates it anew)`
          : `~ ${p.target.label}${where}${id}: ${n} field${n > 1 ? 's' : ''} differ`;
  const lines = [color.bold(heading)];
  for (const c of p.changes) {
    let text = await describeChange(c.field, c.server, c.local, color);
    if (c.field === PHONE_KEY && p.phoneHolder) text += color.dim(` (now held by agent ${p.phoneHolder})`);
    lines.push(text);
  }
  return lines;
}

/** Make the server match one plan; returns the agent's id (new when created). */
export async function applyPlan(
  http: HttpClient,
  p: Plan,
  out: Output,
  created: (id: string) => Promise<void>,
): Promise<string> {
  const t = p.target;
  let id = p.agentId;
  if (p.state === 'new' || p.state === 'missing') {
    if (t.wanted.name === undefined || t.wanted.name === null)
      throw new UsageError(`${t.files.join(' + ')}: name is required to create agent ${t.label}`);
    const body = Object.fromEntries(p.fields.map((f) => [f, t.wanted[f]]));
    id = (await createAgent(http, body)).agent_id;
    await created(id); // recorded before anything else can fail
    if (p.phoneId) await patch(http, id, { agent: {}, field_mask: { paths: [] }, phone_number_id: p.phoneId }, p);
    return id;
  }
  if (p.state === 'same') return id!;
  const agent: AgentInput = {};
  for (const f of p.fields) if (t.wanted[f] !== null) agent[f] = t.wanted[f];
  const body: AgentPatch = { agent, field_mask: { paths: p.fields } };
  if (p.phoneId !== undefined) body.phone_number_id = p.phoneId;
  await patch(http, id!, body, p);
  if (p.fields.length > 0) {
    const after = await getAgent(http, id!);
    for (const f of p.fields)
      if (!sameValue(f, after[f], t.wanted[f]))
        out.warn(
          `${t.label}: the server did not keep ${f} as sent: sent ` +
            `${JSON.stringify(hideSecrets(canonical(f, t.wanted[f]), t.secrets))}, now ` +
            `${JSON.stringify(hideSecrets(canonical(f, after[f]), t.secrets))}`,
        );
  }
  return id!;
}

async function patch(http: HttpClient, id: string, body: AgentPatch, p: Plan): Promise<void> {
  try {
    await updateAgent(http, id, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409 && body.phone_number_id) {
      const who = p.phoneHolder ? `agent ${p.phoneHolder}` : 'another agent';
      throw new ApiError(
        409,
        `${p.target.label}: phone number ${body.phone_number_id} is held by ${who}, so it was not assigned to ` +
          `${id} and no field of ${id} changed (free it first, e.g. set its ${PHONE_KEY} to null and push). ` +
          `Server said: ${err.message}`,
        err.code,
        err.requestId,
      );
    }
    throw err;
  }
}

/** The targets of a project in one environment: every agent, or those named. */
export function projectTargets(project: Project, env: string, names: string[], warn: (m: string) => void): Target[] {
  return names.map((name) => {
    const t = readTemplate(project, name, env, warn);
    return { label: name, env, files: t.files, id: project.agents[name]!.ids[env], template: t.template };
  });
}

const READS_AT_ONCE = 4;

/** Every target prepared (offline checks first), then compared with the server. */
export async function planAll(ctx: Context, targets: Target[]): Promise<{ http: HttpClient; plans: Plan[] }> {
  const prepared = targets.map((t) => prepare(t, ctx.env));
  // the values sent in place of ${env:…} never reach stderr (the --verbose trace shows the bodies)
  ctx.out.hideOnStderr(prepared.flatMap((t) => t.secrets.map(([, value]) => value)));
  const http = await ctx.http();
  const numbers = numbersOnce(http);
  // a few reads at once (a project of 50 agents is 50 GETs), the plans in the project's order
  const plans: Plan[] = new Array(prepared.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < prepared.length; i = next++) plans[i] = await makePlan(http, prepared[i]!, numbers);
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, prepared.length) }, worker));
  return { http, plans };
}
