// The scenario files of `svc agents simulate` (docs/agent-simulations.md, docs/agent-simulation.schema.json): YAML
// or JSON, one scenario or a list of them (`scenarios:`), each a caller (persona, goal, facts, opening line), the
// call's limits, tool results, the judge's criteria in words and the latency budget. Read and checked whole before
// any connection: every problem of every file at once, a UsageError (exit 2) naming the file and the path inside it.
import { UsageError } from '../../core/errors.js';
import { FileProblem, isObject, parseDocument, refuseProblems, strings, unknownKeys } from '../test-file.js';

export interface LatencyBudget {
  /** the median time from the caller's end of speech to the agent's first audio, at most (ms) */
  p50_ms?: number;
  /** the 95th percentile of the same, at most (ms) */
  p95_ms?: number;
}

export interface Scenario {
  name: string;
  /** the file the scenario comes from */
  file: string;
  persona: string;
  goal: string;
  /** what the caller knows and may tell (a name, a booking number, …) */
  facts: string[];
  /** the caller's first line; the caller model makes one up when absent */
  opening?: string;
  /** the caller's lines at most: the call ends there */
  maxTurns: number;
  /** voice: seconds of the agent's speech after which the caller cuts in (a barge-in), on every turn */
  interruptAfter?: number;
  /** scripted tool results: tool name → the JSON (or text) answered to every call of it */
  tools: Record<string, unknown>;
  criteria: string[];
  latency: LatencyBudget;
}

/** The scenario file's own limits (local: they bound what a run may send and cost). */
export const SCENARIO_LIMITS = {
  scenarios: 100,
  maxTurns: 50,
  defaultTurns: 8,
  criteria: 20,
  text: 4000,
  facts: 50,
  interruptSeconds: 60,
  latencyMs: 60_000,
};

const KEYS = [
  'name',
  'persona',
  'goal',
  'facts',
  'opening',
  'max_turns',
  'interrupt_after',
  'tools',
  'criteria',
  'latency',
];
type Json = Record<string, unknown>;

/** Read every scenario file; all problems of all files are reported at once (after `before`: the agent's). */
export async function readScenarioFiles(paths: string[], before: string[] = []): Promise<Scenario[]> {
  const scenarios: Scenario[] = [];
  const report = [...before];
  const seen = new Map<string, string>();
  for (const path of paths) {
    const p = new FileProblem(path);
    const doc = await parseDocument(path, p);
    const list = doc === undefined ? [] : scenarioList(doc, p);
    for (const [i, s] of list.entries()) {
      const got = checkScenario(s, list.length > 1 || !isObject(doc) || 'scenarios' in doc ? `scenarios[${i}]` : '', p);
      if (!got) continue;
      const where = seen.get(got.name);
      if (where !== undefined) p.add(`scenario "${got.name}"`, `also in ${where}: scenario names must be unique`);
      seen.set(got.name, path);
      scenarios.push(got);
    }
    report.push(...p.problems.map((x) => `${path}: ${x}`));
  }
  refuseProblems('scenario file', report);
  if (scenarios.length === 0) throw new UsageError(`no scenarios in ${paths.join(', ')}`);
  return scenarios;
}

/** A file is one scenario, a list of them, or `{scenarios: [...]}`. */
function scenarioList(doc: unknown, p: FileProblem): unknown[] {
  if (Array.isArray(doc)) return doc;
  if (isObject(doc) && 'scenarios' in doc) {
    for (const k of Object.keys(doc))
      if (k !== 'scenarios' && k !== '$schema') p.add(k, 'unknown key (allowed: scenarios)');
    if (!Array.isArray(doc.scenarios) || doc.scenarios.length === 0)
      return (p.add('scenarios', 'must be a list of at least one scenario'), []);
    if (doc.scenarios.length > SCENARIO_LIMITS.scenarios)
      p.add('scenarios', `${doc.scenarios.length} scenarios: at most ${SCENARIO_LIMITS.scenarios} per file`);
    return doc.scenarios;
  }
  if (isObject(doc)) {
    const { $schema: _, ...rest } = doc;
    return [rest];
  }
  return (p.add('file', 'must be a scenario (an object), a list of them, or {scenarios: [...]}'), []);
}

const text = (v: unknown, at: string, p: FileProblem, required: boolean): string | undefined => {
  if (v === undefined) return required ? (p.add(at, 'required: non-empty text'), undefined) : undefined;
  if (typeof v !== 'string' || !v.trim()) return (p.add(at, 'must be non-empty text'), undefined);
  if (v.length > SCENARIO_LIMITS.text)
    return (p.add(at, `${v.length} characters: at most ${SCENARIO_LIMITS.text}`), undefined);
  return v.trim();
};

function checkScenario(s: unknown, path: string, p: FileProblem): Scenario | undefined {
  const at = (k: string) => (path ? `${path}.${k}` : k);
  if (!isObject(s))
    return (p.add(path || 'file', 'must be an object with name, persona, goal and criteria'), undefined);
  unknownKeys(s, KEYS, path || 'scenario', p);
  const before = p.problems.length;
  const name = text(s.name, at('name'), p, true);
  const persona = text(s.persona, at('persona'), p, true);
  const goal = text(s.goal, at('goal'), p, true);
  const opening = text(s.opening, at('opening'), p, false);
  const criteria = textList(s.criteria, at('criteria'), p, SCENARIO_LIMITS.criteria);
  if (s.criteria === undefined) p.add(at('criteria'), 'required: what the judge checks, in words (a list)');
  const facts = isObject(s.facts)
    ? Object.entries(s.facts).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    : s.facts === undefined
      ? []
      : textList(s.facts, at('facts'), p, SCENARIO_LIMITS.facts);
  const maxTurns = whole(s.max_turns, at('max_turns'), p, 1, SCENARIO_LIMITS.maxTurns) ?? SCENARIO_LIMITS.defaultTurns;
  let interruptAfter: number | undefined;
  if (s.interrupt_after !== undefined) {
    const n = s.interrupt_after;
    if (typeof n !== 'number' || !(n > 0) || n > SCENARIO_LIMITS.interruptSeconds)
      p.add(at('interrupt_after'), `must be seconds, more than 0 and at most ${SCENARIO_LIMITS.interruptSeconds}`);
    else interruptAfter = n;
  }
  const tools = s.tools ?? {};
  if (!isObject(tools)) p.add(at('tools'), 'must be an object: tool name → the result to answer');
  const latency = checkLatency(s.latency, at('latency'), p);
  if (p.problems.length > before || !name || !persona || !goal) return undefined;
  return {
    name,
    file: p.file,
    persona,
    goal,
    facts,
    opening,
    maxTurns,
    interruptAfter,
    tools: tools as Json,
    criteria,
    latency,
  };
}

function textList(v: unknown, at: string, p: FileProblem, max: number): string[] {
  const list = strings(v);
  if (v === undefined) return [];
  if (!list || list.length === 0 || list.some((x) => !x.trim()))
    return (p.add(at, 'must be non-empty text or a list of it'), []);
  if (list.length > max) p.add(at, `${list.length} entries: at most ${max}`);
  for (const [i, x] of list.entries())
    if (x.length > SCENARIO_LIMITS.text)
      p.add(`${at}[${i}]`, `${x.length} characters: at most ${SCENARIO_LIMITS.text}`);
  return list.map((x) => x.trim());
}

function whole(v: unknown, at: string, p: FileProblem, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    return (p.add(at, `must be a whole number from ${min} to ${max}`), undefined);
  return v;
}

function checkLatency(v: unknown, at: string, p: FileProblem): LatencyBudget {
  if (v === undefined) return {};
  if (!isObject(v)) return (p.add(at, 'must be an object: {p50_ms, p95_ms}'), {});
  unknownKeys(v, ['p50_ms', 'p95_ms'], at, p);
  const out: LatencyBudget = {};
  for (const k of ['p50_ms', 'p95_ms'] as const) {
    const n = whole(v[k], `${at}.${k}`, p, 1, SCENARIO_LIMITS.latencyMs);
    if (n !== undefined) out[k] = n;
  }
  if (out.p50_ms !== undefined && out.p95_ms !== undefined && out.p50_ms > out.p95_ms)
    p.add(`${at}.p50_ms`, `${out.p50_ms} is more than p95_ms ${out.p95_ms}: a median cannot pass the 95th percentile`);
  return out;
}
