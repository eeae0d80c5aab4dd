// Reports of `svc agents simulate`: the JSON record of a call, its Markdown transcript, a JUnit test case per call
// (agents test's JUnit writer), and the summary per scenario: runs, pass rate, latency against the budget, cost.
import { encodeWav } from 'svc-formats/audio-codecs';
import type { CaseResult } from '../run-case.js';
import { fileStem } from '../report.js';
import { latencyFailures, percentile, type CallRecord } from './call.js';
import type { Scenario } from './scenario.js';

/** A call as --json prints it: everything but the recorded audio (written beside its transcript instead). */
export function jsonRecord(r: CallRecord): Omit<CallRecord, 'audio'> {
  const { audio: _, ...rest } = r;
  return { ...rest, cost_usd: Number(r.cost_usd.toFixed(8)) };
}

const callName = (r: CallRecord) => `${r.scenario} #${r.run}`;

/** A call as a JUnit test case: its scenario file the suite, its failures, its transcript as the system-out. */
export function caseOf(r: CallRecord): CaseResult {
  return {
    name: callName(r),
    file: r.file,
    passed: r.passed,
    failures: r.failures,
    ms: r.duration_ms,
    transcript: transcriptLines(r),
  };
}

function transcriptLines(r: CallRecord): string[] {
  const out: string[] = [];
  for (const t of r.turns) {
    out.push(`caller: ${t.caller}`);
    if (t.heard !== undefined && t.heard !== t.caller) out.push(`  (heard: ${t.heard})`);
    for (const c of t.tool_calls) out.push(`tool ${c.name}(${JSON.stringify(c.arguments)}) → ${c.result}`);
    const latency = t.latency_ms === undefined ? 'no audio' : `${t.latency_ms} ms`;
    out.push(`agent (${latency}${t.interrupted ? ', interrupted' : ''}): ${t.agent}`);
  }
  if (r.caller_goodbye !== undefined) out.push(`caller (hangs up): ${r.caller_goodbye}`);
  out.push(`ended: ${r.ended_by}`);
  for (const v of r.verdicts) out.push(`${v.verdict}: ${v.criterion}: ${v.reason}`);
  for (const f of r.failures) out.push(`✘ ${f}`);
  return out;
}

/** The call's Markdown transcript (--transcripts DIR), naming the recordings beside it when there are any. */
export function markdownTranscript(r: CallRecord, audioFiles?: { caller: string; agent: string }): string {
  const md = [`# ${callName(r)}`, '', `- scenario file: ${r.file}`, `- mode: ${r.mode}`, `- ended: ${r.ended_by}`];
  md.push(
    `- result: ${r.passed ? 'passed' : 'failed'}`,
    `- latency p50/p95: ${ms(r.latency.p50_ms)} / ${ms(r.latency.p95_ms)}`,
  );
  if (audioFiles) md.push(`- recordings: [caller](${audioFiles.caller}), [agent](${audioFiles.agent})`);
  md.push('', '## Transcript', '');
  for (const [i, t] of r.turns.entries()) {
    md.push(`**Caller** (turn ${i + 1}): ${t.caller}`, '');
    if (t.heard !== undefined && t.heard !== t.caller) md.push(`> heard by the session: ${t.heard}`, '');
    for (const c of t.tool_calls) md.push(`- tool \`${c.name}\` \`${JSON.stringify(c.arguments)}\` → \`${c.result}\``);
    if (t.tool_calls.length) md.push('');
    const note = [t.latency_ms === undefined ? 'no audio' : `${t.latency_ms} ms`, t.interrupted ? 'interrupted' : '']
      .filter(Boolean)
      .join(', ');
    md.push(`**Agent** (${note}): ${t.agent}`, '');
  }
  if (r.caller_goodbye !== undefined) md.push(`**Caller** (hangs up): ${r.caller_goodbye}`, '');
  md.push('## Verdicts', '');
  for (const v of r.verdicts) md.push(`- **${v.verdict}** ${v.criterion}: ${v.reason}`);
  if (r.failures.length) md.push('', '## Failures', '', ...r.failures.map((f) => `- ${f}`));
  return `${md.join('\n')}\n`;
}

/** The recorded speech of each side, as WAV files (24 kHz mono). */
export function recordings(r: CallRecord): { caller: Buffer; agent: Buffer } | undefined {
  if (!r.audio) return undefined;
  const format = { sampleRate: 24_000, channels: 1 };
  return {
    caller: encodeWav(Buffer.concat(r.audio.caller), format),
    agent: encodeWav(Buffer.concat(r.audio.agent), format),
  };
}

/** A file name stem for a call: its index, scenario and run. */
export const callFileStem = (r: CallRecord, index: number): string => fileStem(`${r.scenario} run${r.run}`, index);

const ms = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)} ms`);

export interface ScenarioSummary {
  scenario: string;
  calls: number;
  passed: number;
  p50_ms?: number;
  p95_ms?: number;
  budget: Scenario['latency'];
  /** the budgets the scenario's turns together missed, each named */
  latency_failures: string[];
  cost_usd: number;
}

/** Per scenario: its calls, how many passed, the latency of all their turns against its budget, the cost. */
export function summarize(scenarios: Scenario[], records: CallRecord[]): ScenarioSummary[] {
  return scenarios.map((s) => {
    const mine = records.filter((r) => r.scenario === s.name);
    const figures = mine.flatMap((r) => r.turns.flatMap((t) => (t.latency_ms === undefined ? [] : [t.latency_ms])));
    return {
      scenario: s.name,
      calls: mine.length,
      passed: mine.filter((r) => r.passed).length,
      p50_ms: percentile(figures, 50),
      p95_ms: percentile(figures, 95),
      budget: s.latency,
      latency_failures: latencyFailures(figures, s.latency),
      cost_usd: mine.reduce((t, r) => t + r.cost_usd, 0),
    };
  });
}

/** The summary for people: a line per scenario, then the whole run's. */
export function summaryLines(rows: ScenarioSummary[], runs: number): string[] {
  const out: string[] = [];
  for (const r of rows) {
    const budget = [r.budget.p50_ms, r.budget.p95_ms].some((v) => v !== undefined)
      ? ` (budget ${ms(r.budget.p50_ms)} / ${ms(r.budget.p95_ms)})`
      : '';
    const rate = r.calls ? Math.round((100 * r.passed) / r.calls) : 0;
    out.push(
      `${r.scenario}: ${r.passed}/${r.calls} passed (${rate}%), latency p50 ${ms(r.p50_ms)} p95 ${ms(r.p95_ms)}` +
        `${budget}, $${r.cost_usd.toFixed(4)}${r.latency_failures.length ? ` — ${r.latency_failures.join('; ')}` : ''}`,
    );
  }
  const calls = rows.reduce((t, r) => t + r.calls, 0);
  const passed = rows.reduce((t, r) => t + r.passed, 0);
  const cost = rows.reduce((t, r) => t + r.cost_usd, 0);
  out.push(
    `${rows.length} scenario${rows.length === 1 ? '' : 's'} × ${runs} run${runs === 1 ? '' : 's'}: ` +
      `${passed}/${calls} ` +
      `calls passed, $${cost.toFixed(4)} (the caller and the judge)`,
  );
  return out;
}
