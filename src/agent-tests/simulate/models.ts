// The two models of `svc agents simulate` besides the agent: the caller (chat with a JSON Schema: its next line and
// whether it is done) and the judge (chat with a JSON Schema: per criterion a verdict and a one-sentence reason).
// Both answers are structured output, checked against their schema here: a model that answers something else fails
// the call it was for, never the run.
import type { ChatRequest, ChatResponse } from '../../endpoints/chat.js';
import { checkSchema } from '../json-schema.js';
import type { Scenario } from './scenario.js';

/** A line of the call as the caller and the judge see it. */
export interface Line {
  who: 'caller' | 'agent';
  text: string;
}

export interface ToolUse {
  name: string;
  arguments: unknown;
  result: string;
}

/** The caller's cap on tokens a line (a line of speech and its status fit well within it). */
export const CALLER_MAX_TOKENS = 400;
/** Characters of one line handed to the caller or the judge: an agent that talks on does not grow the bill. */
export const LINE_CAP = 1000;
const SAY_MAX = 400;
export const CALLER_STATUSES = ['continue', 'goal_met', 'gave_up'] as const;
export type CallerStatus = (typeof CALLER_STATUSES)[number];
export const VERDICTS = ['pass', 'fail'] as const;

/** Tool calls the judge is shown at most (three a turn): the judge's prompt, and so its cost, stays bounded. */
export const maxToolsJudged = (s: Scenario): number => 3 * s.maxTurns;

/** A model's text as one line: it is shown in a line per call and a JUnit message. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

const cut = (s: string) => (s.length > LINE_CAP ? `${s.slice(0, LINE_CAP)}…` : s);

const CALLER_SCHEMA = {
  type: 'object',
  properties: {
    say: { type: 'string', minLength: 1, maxLength: SAY_MAX, description: 'your next line, as you would say it' },
    status: {
      type: 'string',
      enum: [...CALLER_STATUSES],
      description: 'continue; goal_met when your goal is reached; gave_up when you stop trying',
    },
  },
  required: ['say', 'status'],
  additionalProperties: false,
};

function callerSystem(s: Scenario): string {
  return [
    'You are a caller on the phone with a voice agent. Stay in character; speak one short line at a time, as people',
    'do on the phone. Never say you are an AI or a simulation.',
    `Who you are: ${s.persona}`,
    `Your goal: ${s.goal}`,
    s.facts.length ? `What you know (tell it when asked): ${s.facts.join('; ')}` : '',
    'Answer with your next line and a status: goal_met once the agent has done what you called for, gave_up when',
    'you would hang up without it, else continue.',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The caller's next line: the call so far, the agent's lines as the other party's. */
export function callerRequest(s: Scenario, model: string, lines: Line[], seed?: number): ChatRequest {
  const messages: ChatRequest['messages'] = [{ role: 'system', content: callerSystem(s) }];
  for (const l of lines) messages.push({ role: l.who === 'caller' ? 'assistant' : 'user', content: cut(l.text) });
  if (lines.length === 0) messages.push({ role: 'user', content: '(The agent picks up the phone.)' });
  return {
    model,
    messages,
    max_completion_tokens: CALLER_MAX_TOKENS,
    response_format: { type: 'json_schema', json_schema: { name: 'caller_line', strict: true, schema: CALLER_SCHEMA } },
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** The judge's schema: one property per criterion (so an answer holds exactly one verdict for each). */
export function judgeSchema(criteria: string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [i, c] of criteria.entries())
    properties[`criterion_${i + 1}`] = {
      type: 'object',
      description: c,
      properties: {
        verdict: { type: 'string', enum: [...VERDICTS] },
        reason: { type: 'string', minLength: 10, maxLength: SAY_MAX, description: 'one sentence: why' },
      },
      required: ['verdict', 'reason'],
      additionalProperties: false,
    };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

export function judgeRequest(
  s: Scenario,
  call: { lines: Line[]; tools: ToolUse[]; endedBy: string },
  o: { model: string; maxTokens: number; seed?: number },
): ChatRequest {
  const user = [
    'Criteria:',
    ...s.criteria.map((c, i) => `criterion_${i + 1}: ${c}`),
    '',
    `The caller's goal: ${s.goal}`,
    '',
    'Transcript:',
    ...call.lines.map((l) => `${l.who}: ${cut(l.text)}`),
    '',
    'Tool calls of the agent:',
    ...(call.tools.length
      ? call.tools
          .slice(0, maxToolsJudged(s))
          .map((t) => `- ${cut(t.name)}(${cut(JSON.stringify(t.arguments))}) → ${cut(t.result)}`)
      : ['(none)']),
    ...(call.tools.length > maxToolsJudged(s) ? [`(… ${call.tools.length - maxToolsJudged(s)} more)`] : []),
    '',
    `How the call ended: ${call.endedBy}`,
  ].join('\n');
  return {
    model: o.model,
    messages: [
      {
        role: 'system',
        content:
          'You judge a phone call between a caller and a voice agent. For each criterion, answer pass or fail ' +
          'and one sentence saying why, from the transcript and the tool calls only.',
      },
      { role: 'user', content: user },
    ],
    max_completion_tokens: o.maxTokens,
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'verdicts', strict: true, schema: judgeSchema(s.criteria) },
    },
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
  };
}

/** A structured answer parsed and held to its schema; a problem is said for the call's failures. */
async function structured<T>(
  res: ChatResponse,
  schema: Record<string, unknown>,
  who: string,
): Promise<{ value: T } | { problem: string }> {
  const choice = res.choices?.[0];
  const content = choice?.message?.content;
  const cutShort = choice?.finish_reason === 'length' ? ' (cut short at its token cap)' : '';
  if (typeof content !== 'string')
    return { problem: `${who} answered no text${choice?.message?.refusal ? `: ${choice.message.refusal}` : ''}` };
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (err) {
    return { problem: `${who}'s answer is not valid JSON${cutShort}: ${(err as Error).message}` };
  }
  const why = await checkSchema(schema, value, `${who}'s answer`);
  return why ? { problem: `${why}${cutShort}` } : { value: value as T };
}

export async function callerLine(res: ChatResponse): Promise<{ say: string; status: CallerStatus } | string> {
  const got = await structured<{ say: string; status: CallerStatus }>(res, CALLER_SCHEMA, 'the caller');
  if ('problem' in got) return got.problem;
  return { say: oneLine(got.value.say) || '…', status: got.value.status };
}

export interface Verdict {
  criterion: string;
  verdict: (typeof VERDICTS)[number];
  reason: string;
}

export async function verdicts(res: ChatResponse, criteria: string[]): Promise<Verdict[] | string> {
  type Answer = Record<string, { verdict: Verdict['verdict']; reason: string }>;
  const got = await structured<Answer>(res, judgeSchema(criteria), 'the judge');
  if ('problem' in got) return got.problem;
  return criteria.map((criterion, i) => {
    const v = got.value[`criterion_${i + 1}`]!;
    return { criterion, verdict: v.verdict, reason: oneLine(v.reason) };
  });
}
