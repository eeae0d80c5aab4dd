// Local tools: `--tool-cmd NAME=COMMAND` binds a function tool the model may call to a shell command on this
// machine. The call's arguments (JSON) go to the command's stdin; its stdout (trimmed) is the result sent back.
// Shared by `svc chat`, `svc responses create` and the realtime voice commands. execa is imported lazily.
import { InterruptedError, UsageError } from '../core/errors.js';
import { ownProcessGroup, stopTree } from '../core/signals.js';
import { childEnvironment } from '../core/environment.js';

export interface ToolCommand {
  name: string;
  command: string;
}

export interface RunToolOptions {
  signal?: AbortSignal;
  /** default 60 s */
  timeoutMs?: number;
  /** working directory (default: the current one) */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Parse `NAME=COMMAND`; the name is a function name (letters, digits, `_`, `-`, at most 64). */
export function parseToolCmd(raw: string): ToolCommand {
  const i = raw.indexOf('=');
  const name = i > 0 ? raw.slice(0, i).trim() : '';
  const command = i > 0 ? raw.slice(i + 1).trim() : '';
  if (!name || !command)
    throw new UsageError(`--tool-cmd: ${raw} is not allowed: NAME=COMMAND (e.g. get_weather='./weather.sh')`);
  if (!NAME.test(name))
    throw new UsageError(
      `--tool-cmd: ${name} is not allowed: a tool name of letters, digits, _ or - (at most 64 characters)`,
    );
  return { name, command };
}

/** The commander `parse` form: repeatable, one entry per tool, a name given twice is an error. */
export function toolCmdParser(raw: string, _flag: string, previous: ToolCommand[] | undefined): ToolCommand[] {
  const t = parseToolCmd(raw);
  const list = previous ? [...previous] : [];
  if (list.some((x) => x.name === t.name))
    throw new UsageError(`--tool-cmd: ${t.name} is given twice: one command per tool name`);
  list.push(t);
  return list;
}

/**
 * Run COMMAND in a shell with the arguments JSON on its stdin. Resolves with its stdout (trimmed). A non-zero
 * exit, a timeout or a command that cannot start resolve with an error result (a JSON object with `error`), so
 * the model is told what went wrong and the conversation can continue. Rejects only when `signal` aborts.
 */
export async function runToolCommand(
  command: string,
  argumentsJson: string,
  opts: RunToolOptions = {},
): Promise<string> {
  const { execa } = await import('execa');
  const timeoutMs = opts.timeoutMs ?? 60_000;
  if (opts.signal?.aborted) throw new InterruptedError();
  // Its own process group, so a timeout or Ctrl-C stops everything the shell started (a grandchild keeping the
  // output pipe open would otherwise hold the result until it ends on its own).
  const sub = execa(command, {
    shell: true,
    input: argumentsJson,
    reject: false,
    detached: ownProcessGroup(),
    cwd: opts.cwd,
    env: childEnvironment(opts.env ?? process.env),
    extendEnv: false,
    stripFinalNewline: false,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const stop = () => {
    const kill = (sig: NodeJS.Signals) => {
      if (sub.pid) stopTree(sub.pid, sig);
    };
    kill('SIGTERM');
    setTimeout(() => kill('SIGKILL'), 2000).unref();
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  opts.signal?.addEventListener('abort', stop, { once: true });
  let r: Awaited<typeof sub>;
  try {
    r = await sub;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', stop);
  }
  if (opts.signal?.aborted) throw new InterruptedError();
  const stdout = String(r.stdout ?? '').trim();
  if (timedOut)
    return JSON.stringify({
      error:
        `the tool command timed out after ` +
        `${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`,
      output: stdout,
    });
  if (r.exitCode !== 0 || r.failed) {
    const stderr = String(r.stderr ?? '').trim();
    const why =
      r.exitCode !== undefined
        ? `exited with status ${r.exitCode}`
        : r.signal
          ? `was stopped by ${r.signal}`
          : 'could not be run';
    return JSON.stringify({
      error: `the tool command ${why}${stderr ? `: ${stderr.slice(0, 2000)}` : ''}`,
      output: stdout,
    });
  }
  return stdout;
}

/** What a call declined at --approve's question sends back to the model as the tool's output. */
export const DECLINED = JSON.stringify({ error: 'the user declined this call' });

/** A call the model made, in any convention's terms. */
export interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/** The function definition used for a --tool-cmd that has no --tool schema: any JSON object is accepted. */
export function defaultToolDefinition(name: string): {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
} {
  return {
    name,
    description: `Runs the local command bound to ${name}; pass its arguments as a JSON object.`,
    parameters: { type: 'object', properties: {}, additionalProperties: true },
  };
}

/** The tools the model may call but that have no local command (their calls end the loop). */
export function unboundCalls(calls: PendingCall[], commands: ToolCommand[]): PendingCall[] {
  return calls.filter((c) => !commands.some((t) => t.name === c.name));
}

/** Run each call's command in turn; results come back in call order. */
export async function runCalls(
  calls: PendingCall[],
  commands: ToolCommand[],
  opts: RunToolOptions & { onRun?(call: PendingCall): void; onResult?(call: PendingCall, output: string): void } = {},
): Promise<{ id: string; output: string }[]> {
  const results: { id: string; output: string }[] = [];
  for (const call of calls) {
    const cmd = commands.find((t) => t.name === call.name);
    if (!cmd) throw new Error(`no --tool-cmd for the tool ${call.name}`);
    opts.onRun?.(call);
    const output = await runToolCommand(cmd.command, call.arguments || '{}', opts);
    opts.onResult?.(call, output);
    results.push({ id: call.id, output });
  }
  return results;
}

/** model turns of a local tool loop (chat and responses --tool-cmd, --mcp) when --max-turns is not given */
export const DEFAULT_MAX_TURNS = 8;

/** Too many model turns: a clear message and a non-zero exit (1). */
export class MaxTurnsError extends Error {
  override name = 'MaxTurnsError';
  constructor(maxTurns: number, pending: PendingCall[]) {
    super(
      `stopped after ${maxTurns} model turn${maxTurns === 1 ? '' : 's'} (--max-turns ${maxTurns}): the model ` +
        `still wanted to call ${[...new Set(pending.map((c) => c.name))].join(', ')}; raise --max-turns to let ` +
        `it continue`,
    );
  }
}
