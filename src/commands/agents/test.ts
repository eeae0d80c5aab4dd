import { outputPath } from '../../core/atomic-file.js';
import { join, resolve } from 'node:path';
import { getAgent, type Agent } from '../../endpoints/agents.js';
import { connectRealtime, sessionFromAgent, type SessionUpdate } from '../../endpoints/realtime.js';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { defineCommand } from '../../cmdutil/command.js';
import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import type { Context } from '../../runtime/context.js';
import { InterruptedError } from '../../core/errors.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { readTestFiles, type TestCase } from '../../agent-tests/test-file.js';
import { caseLine, junitReport, tapReport, transcriptName } from '../../agent-tests/report.js';
import { runCase, type CaseResult } from '../../agent-tests/run-case.js';
import { AGENT_TOOL_OPTIONS, agentArguments, agentFileArgs, agentRunOptions, reportFormatOption } from './shared.js';
import { checkSchema, schemaValidator } from '../../agent-tests/json-schema.js';
import { makeDirs } from 'svc-formats/make-dirs';

const DEFAULT_TRANSCRIPTS = 'agent-test-transcripts';

const OPTIONS = [
  ...agentRunOptions('test', 'test file', 'case'),
  reportFormatOption('case'),
  {
    flags: '-o, --output <file>',
    description: 'write the report to FILE instead of stdout (written only when complete)',
    parse: outputPath(),
  },
  ...forceFlags('an existing -o file'),
  {
    flags: '--transcripts <dir>',
    description: `where the transcripts of failed cases go (default ./${DEFAULT_TRANSCRIPTS})`,
    parse: outputPath({ dir: true }),
  },
  ...AGENT_TOOL_OPTIONS,
] as const satisfies readonly OptionSpec[];
type Opts = OptionValues<typeof OPTIONS>;

export default defineCommand({
  description:
    'Each case of the test files (YAML or JSON, docs/agent-tests.md) runs in its own realtime session configured ' +
    'like the agent (instructions, voice, tools, knowledge base): user turns as text or audio files, and per turn ' +
    "expectations on the reply text and the tools called. Tool calls are answered from the case's scripted " +
    'results or by --tool-cmd commands. A line per case (or TAP / JUnit XML with --format); the transcript of ' +
    'each failed case is written to --transcripts DIR. Exit 1 when a case fails, 2 on a malformed test file ' +
    '(before any connection). Works against the API and the emulator alike.',
  args: agentFileArgs({ name: 'files', noun: 'test file' }),
  options: OPTIONS,
  examples: [
    'svc agents test agent_123 tests/support.yaml',
    'svc agents test --agent-file agent.json tests/*.yaml -P 4 --format junit -o report.xml',
    'svc --emulator agents test --agent-file agent.json tests/booking.yaml --tool-cmd book_table=./fake-booking.sh',
  ],
  async run(ctx, [first, rest], opts) {
    const { agentId, files, local, agentProblems } = agentArguments(first, rest, opts.agentFile, {
      noun: 'test file',
      command: 'svc agents test',
      example: 'tests.yaml',
    });
    const cases = await readTestFiles(files, { before: agentProblems, schemaProblem });
    const http = await ctx.http();
    const agent: Agent = local ?? (await getAgent(http, agentId!));
    const session = sessionFromAgent(agent);
    const results = await runAll(ctx, cases, session, opts);
    await report(ctx, results, opts);
    return results.every((r) => r.passed) ? 0 : 1;
  },
});

/** Why a tool expectation's JSON Schema does not compile (checked with the files, before anything is sent). */
async function schemaProblem(schema: Record<string, unknown>): Promise<string | undefined> {
  try {
    await schemaValidator(schema);
    return undefined;
  } catch (err) {
    return `not a valid JSON Schema: ${(err as Error).message}`;
  }
}

async function readAudio(ctx: Context, file: string): Promise<Buffer> {
  const { openSource } = await import('../../audio/source.js');
  const source = await openSource(file, {
    sampleRate: 24_000,
    channels: 1,
    realtime: false,
    env: ctx.env,
    signal: ctx.signal,
    flag: 'audio',
  });
  const parts: Buffer[] = [];
  try {
    for await (const frame of source.frames(100)) parts.push(frame);
  } finally {
    await source.close();
  }
  return Buffer.concat(parts);
}

/** Run every case, `--parallel` at a time; a line per case as it finishes (terminal and text format). */
async function runAll(ctx: Context, cases: TestCase[], session: SessionUpdate, opts: Opts): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array(cases.length);
  const commands = new Map((opts.toolCmd ?? []).map((t) => [t.name, t.command]));
  const live = (opts.format ?? 'text') === 'text' && !ctx.out.json && opts.output === undefined;
  const c = ctx.out.c;
  const mark = { ok: c.green('ok  '), fail: c.red('FAIL') };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length && !ctx.signal.aborted) {
      const i = next++;
      const r = await runCase(cases[i]!, {
        connect: () => connectRealtime((path, query) => ctx.ws(path, query), {}),
        session,
        commands,
        toolTimeoutMs: opts.toolTimeout !== undefined ? opts.toolTimeout * 1000 : undefined,
        readAudio: (file) => readAudio(ctx, file),
        checkSchema,
        signal: ctx.signal,
      });
      results[i] = r;
      if (ctx.out.json)
        ctx.out.printJsonLine({
          name: r.name,
          file: r.file,
          passed: r.passed,
          failures: r.failures,
          duration_ms: Math.round(r.ms),
        });
      else if (live) ctx.out.line(caseLine(r, mark));
      else ctx.out.info(caseLine(r));
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.parallel ?? 1, cases.length) }, worker));
  if (ctx.signal.aborted) throw new InterruptedError();
  return results;
}

async function report(ctx: Context, results: CaseResult[], opts: Opts): Promise<void> {
  const failed = results.filter((r) => !r.passed);
  if (failed.length) {
    const dir = resolve(opts.transcripts ?? DEFAULT_TRANSCRIPTS);
    makeDirs(dir);
    for (const r of failed) {
      const path = join(dir, transcriptName(r, results.indexOf(r)));
      await writeFileAtomic(path, `# ${r.name} (${r.file})\n${r.transcript.join('\n')}\n`);
    }
    ctx.out.info(`transcripts of the failed case${failed.length > 1 ? 's' : ''}: ${dir}`);
  }
  const format = opts.format ?? 'text';
  const text =
    format === 'tap'
      ? tapReport(results)
      : format === 'junit'
        ? junitReport(results)
        : opts.output !== undefined
          ? `${results.map((r) => caseLine(r)).join('\n')}\n`
          : undefined;
  if (text !== undefined) {
    if (opts.output !== undefined) await writeFileAtomic(opts.output, text, { replace: !!opts.force });
    else if (!ctx.out.json) ctx.out.write(text);
  }
  ctx.out.info(
    `${results.length - failed.length} passed, ${failed.length} failed (${results.length} ` +
      `case${results.length === 1 ? '' : 's'})`,
  );
}
