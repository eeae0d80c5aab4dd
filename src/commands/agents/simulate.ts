import { join, resolve } from 'node:path';
import { outputPath, writeFileAtomic } from '../../core/atomic-file.js';
import { defineCommand } from '../../cmdutil/command.js';
import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import { forceFlags, resolveModel, sampling } from '../../cmdutil/flag-sets.js';
import { BudgetError, ExitCode, InterruptedError } from '../../core/errors.js';
import { integer, number, require } from '../../core/validate.js';
import { API_DEFAULT_MAX_OUTPUT_TOKENS } from '../../apilog/budget.js';
import { getAgent, type Agent } from '../../endpoints/agents.js';
import { connectRealtime, sessionFromAgent } from '../../endpoints/realtime.js';
import type { Context } from '../../runtime/context.js';
import { caseLine, junitReport, tapReport } from '../../agent-tests/report.js';
import { readScenarioFiles, type Scenario } from '../../agent-tests/simulate/scenario.js';
import { simulateCall, type CallPlan, type CallRecord, type Mode } from '../../agent-tests/simulate/call.js';
import { schedule } from '../../agent-tests/simulate/schedule.js';
import {
  callFileStem,
  caseOf,
  jsonRecord,
  markdownTranscript,
  recordings,
  summarize,
  summaryLines,
} from '../../agent-tests/simulate/report.js';
import { AGENT_TOOL_OPTIONS, agentArguments, agentFileArgs, agentRunOptions, reportFormatOption } from './shared.js';
import { callCost, callWorstCase, planSeed, speaker } from '../../agent-tests/simulate/money.js';
import { loadPrices } from '../../batch/money.js';
import { makeDirs } from 'svc-formats/make-dirs';

const DEFAULT_JUDGE_MAX_TOKENS = 1000;
/** how a missing argument is explained */
const SAY_ARGUMENTS = { noun: 'scenario file', command: 'svc agents simulate', example: 'scenarios.yaml' };

export const OPTIONS = [
  ...agentRunOptions('simulate calls to', 'scenario file', 'call'),
  { flags: '--voice', description: "the caller's lines spoken with TTS into the session as audio (the default)" },
  { flags: '--text', description: "the caller's lines sent as text (faster; no TTS, no barge-in)" },
  { flags: '--runs <n>', description: 'calls per scenario (1-100, default 1)', parse: integer({ min: 1, max: 100 }) },
  {
    // the shared flag (its group and 32-bit range), said for what it seeds here: every request of a call
    ...sampling(['seed'])[0]!,
    description: "seeds the caller's and the judge's requests of each call: a run repeats on the emulator (32-bit)",
  },
  {
    flags: '--budget <usd>',
    description:
      "the run's spend on the caller and the judge never passes this many dollars: each call's worst case is " +
      'reserved before it starts; a call that cannot fit is not started (exit 8)',
    parse: number({ min: 0, minExclusive: true }),
  },
  { flags: '--dry-run', description: 'print the calls and the most they may cost; send nothing' },
  { flags: '--caller-model <model>', description: "the model that plays the caller (default: the profile's model)" },
  { flags: '--judge-model <model>', description: "the model that judges each call (default: the profile's model)" },
  {
    flags: '--judge-max-tokens <n>',
    description:
      `the judge's cap on output tokens (1-${API_DEFAULT_MAX_OUTPUT_TOKENS}, ` + `default ${DEFAULT_JUDGE_MAX_TOKENS})`,
    parse: integer({ min: 1, max: API_DEFAULT_MAX_OUTPUT_TOKENS }),
  },
  reportFormatOption('call', ' and a summary'),
  {
    flags: '-o, --output <file>',
    description: 'write the report to FILE instead of stdout (written at the end, with the calls finished)',
    parse: outputPath(),
  },
  ...forceFlags('an existing -o file'),
  {
    flags: '--transcripts <dir>',
    description: 'write a Markdown transcript of every call into DIR, as each call ends',
    parse: outputPath({ dir: true }),
  },
  { flags: '--record', description: "with --transcripts: each call's audio of both sides as WAV files beside it" },
  ...AGENT_TOOL_OPTIONS,
] as const satisfies readonly OptionSpec[];
export type SimulateOpts = OptionValues<typeof OPTIONS>;

export default defineCommand({
  description:
    'Each scenario (YAML or JSON, docs/agent-simulations.md) is called --runs times, each call in its own realtime ' +
    'session configured like the agent: a caller model (--caller-model) improvises toward the goal of the ' +
    "scenario, its lines spoken with TTS (--voice, the default) or sent as text (--text); the agent's answers are " +
    "read from the session's transcript, tool calls answered from the scenario or --tool-cmd. A judge model " +
    '(--judge-model) gives each criterion a verdict and a reason. The latency of each turn (end of speech to the ' +
    "agent's first audio) is held to the scenario's budget. Exit 1 when a criterion, a latency budget or a call " +
    'fails, 2 on a malformed scenario file (before any connection), 8 when --budget stopped the run, 130 on Ctrl-C ' +
    "(the finished calls' reports kept). Against the emulator the run works offline; its verdicts are not meaningful.",
  args: agentFileArgs({ name: 'scenarios', noun: 'scenario file' }),
  options: OPTIONS,
  examples: [
    'svc agents simulate agent_123 scenarios/booking.yaml --runs 5 -P 3',
    'svc agents simulate --agent-file agent.json scenarios/*.yaml --text --format junit -o sim.xml',
    'svc --emulator agents simulate --agent-file agent.json scenarios/booking.yaml --seed 7 --json',
  ],
  async run(ctx, [first, rest], opts) {
    const { agentId, files, local, agentProblems } = agentArguments(first, rest, opts.agentFile, SAY_ARGUMENTS);
    require(!(opts.voice && opts.text), '--text', 'with --voice', 'one mode: --voice (the default) or --text');
    require(!opts.record || opts.transcripts !== undefined, '--record', 'without --transcripts', '--transcripts DIR');
    require(!opts.record || !opts.text, '--record', 'with --text', '--voice (the recording is the speech)');
    const scenarios = await readScenarioFiles(files, agentProblems);
    const plans = planCalls(scenarios, opts);
    const http = await ctx.http();
    const models = { caller: resolveModel(ctx, opts.callerModel), judge: resolveModel(ctx, opts.judgeModel) };
    const judgeMaxTokens = opts.judgeMaxTokens ?? DEFAULT_JUDGE_MAX_TOKENS;
    const prices = await loadPrices(ctx, http);
    const worst = callWorstCase(prices, models, judgeMaxTokens);
    if (opts.dryRun) return dryRun(ctx, plans, worst);
    if (opts.budget !== undefined)
      for (const s of scenarios)
        if (!Number.isFinite(worst(s).usd))
          throw new BudgetError(
            `--budget $${opts.budget}: a call of "${s.name}" has no bound on its cost (no price is known for ` +
              `${models.caller} or ${models.judge}); nothing was sent`,
          );
    const agent: Agent = local ?? (await getAgent(http, agentId!));
    const mode: Mode = opts.text ? 'text' : 'voice';
    const cost = callCost(prices);
    const transcripts = opts.transcripts === undefined ? undefined : resolve(opts.transcripts);
    if (transcripts) makeDirs(transcripts);
    const live = (opts.format ?? 'text') === 'text' && !ctx.out.json && opts.output === undefined;
    const done: CallRecord[] = [];
    const result = await schedule<CallPlan, CallRecord>(plans, {
      parallel: opts.parallel ?? 1,
      budget: opts.budget,
      worstUsd: (p) => worst(p.scenario).usd,
      costOf: (r) => r.cost_usd,
      signal: ctx.signal,
      run: (plan) =>
        simulateCall(plan, {
          http,
          connect: () => connectRealtime((path, query) => ctx.ws(path, query), {}),
          session: sessionFromAgent(agent),
          mode,
          callerModel: models.caller,
          judgeModel: models.judge,
          judgeMaxTokens,
          commands: new Map((opts.toolCmd ?? []).map((t) => [t.name, t.command])),
          toolTimeoutMs: opts.toolTimeout !== undefined ? opts.toolTimeout * 1000 : undefined,
          speak: speaker(http),
          reserve: (path, body) => ctx.reserveSpend(path, body),
          cost,
          record: !!opts.record,
          signal: ctx.signal,
        }),
      onRecord: async (r, i) => {
        done.push(r);
        if (transcripts) await writeTranscript(transcripts, r, i);
        if (ctx.out.json) ctx.out.printJsonLine(jsonRecord(r));
        else if (live) ctx.out.line(caseLine(caseOf(r), { ok: ctx.out.c.green('ok  '), fail: ctx.out.c.red('FAIL') }));
        else ctx.out.info(caseLine(caseOf(r)));
      },
    });
    const summary = summarize(scenarios, done);
    await report(ctx, done, opts, live);
    if (done.length) for (const l of summaryLines(summary, opts.runs ?? 1)) live ? ctx.out.line(l) : ctx.out.info(l);
    if (transcripts && done.length) ctx.out.info(`transcripts: ${transcripts}`);
    if (result.failure) throw result.failure;
    if (result.stopped === 'interrupted') throw new InterruptedError();
    if (result.stopped === 'budget') {
      ctx.out.warn(
        `stopped at the budget: ${result.budgetNote}; ${plans.length - done.length} call(s) not started ` +
          `(spent $${result.spent.toFixed(6)})`,
      );
      return ExitCode.budget;
    }
    return done.every((r) => r.passed) && summary.every((s) => s.latency_failures.length === 0) ? 0 : 1;
  },
});

/** Every scenario --runs times, in order; each call seeded from --seed, its scenario and its run. */
function planCalls(scenarios: Scenario[], opts: SimulateOpts): CallPlan[] {
  const runs = opts.runs ?? 1;
  const plans: CallPlan[] = [];
  for (const scenario of scenarios)
    for (let run = 1; run <= runs; run++)
      plans.push({
        scenario,
        run,
        seed: opts.seed === undefined ? undefined : planSeed(opts.seed, scenario.name, run),
      });
  return plans;
}

async function writeTranscript(dir: string, r: CallRecord, index: number): Promise<void> {
  const stem = callFileStem(r, index);
  const audio = recordings(r);
  const files = audio ? { caller: `${stem}.caller.wav`, agent: `${stem}.agent.wav` } : undefined;
  if (audio && files) {
    await writeFileAtomic(join(dir, files.caller), audio.caller);
    await writeFileAtomic(join(dir, files.agent), audio.agent);
  }
  await writeFileAtomic(join(dir, `${stem}.md`), markdownTranscript(r, files));
}

async function report(ctx: Context, records: CallRecord[], opts: SimulateOpts, live: boolean): Promise<void> {
  const format = opts.format ?? 'text';
  const cases = records.map(caseOf);
  const text =
    format === 'tap'
      ? tapReport(cases)
      : format === 'junit'
        ? junitReport(cases, 'svc agents simulate')
        : opts.output !== undefined
          ? `${cases.map((c) => caseLine(c)).join('\n')}\n`
          : undefined;
  if (text === undefined || live) return;
  if (opts.output !== undefined) await writeFileAtomic(opts.output, text, { replace: !!opts.force });
  else if (!ctx.out.json) ctx.out.write(text);
}

function dryRun(ctx: Context, plans: CallPlan[], worst: (s: Scenario) => { usd: number; what: string }): number {
  const per = new Map<Scenario, number>();
  for (const p of plans) per.set(p.scenario, (per.get(p.scenario) ?? 0) + 1);
  const rows = [...per].map(([s, calls]) => ({ scenario: s.name, calls, ...worstOf(worst(s)) }));
  const total = rows.reduce((t, r) => t + r.calls * (r.cost_usd_at_most ?? Number.NaN), 0);
  const known = Number.isFinite(total);
  if (ctx.out.json) {
    ctx.out.printJson({ calls: plans.length, scenarios: rows, ...(known ? { cost_usd_at_most: total } : {}) });
    return 0;
  }
  for (const r of rows)
    ctx.out.line(
      `${r.scenario}: ${r.calls} call(s), each ` +
        `${r.cost_usd_at_most === undefined ? 'of unknown cost' : `at most $${r.cost_usd_at_most.toFixed(6)}`} ` +
        `(${r.worst_case})`,
    );
  ctx.out.line(
    `${plans.length} call(s)${known ? `, at most $${total.toFixed(6)}` : ''} for the caller and the judge ` +
      '(the realtime session and TTS are priced by the API, not in this estimate)',
  );
  return 0;
}

const worstOf = (w: { usd: number; what: string }) => ({
  ...(Number.isFinite(w.usd) ? { cost_usd_at_most: Number(w.usd.toFixed(8)) } : {}),
  worst_case: w.what,
});
