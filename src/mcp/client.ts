// MCP servers lending their tools to a model (`svc chat --mcp 'COMMAND ARGS'`): each server started as a child
// process (no shell; the environment without svc's secrets) and spoken to through the official SDK's client, its
// tools listed and offered as function tools, the model's calls run through it. Every wait (start, listing, a call)
// is bounded by --timeout; a server that exits or hangs is an error naming it and the first error line it wrote on
// stderr. A result over --mcp-max-result is cut (the model and stderr told); a reply too large to read is reported
// as such (stdio-transport.ts), not as a server that exited.
import {
  DEFAULT_MCP_MAX_RESULT_KIB,
  commandWords,
  resolveServers,
  type McpServerSpec,
} from '../cmdutil/mcp-command.js';
import { UsageError } from '../core/errors.js';
import type { Context } from '../runtime/context.js';
import { terminalSafe } from '../term/terminal-safe.js';
import { OVERSIZED_REPLY, StdioServerTransport } from './stdio-transport.js';

/** A tool as the model sees it, and where its calls go. */
export interface LentTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  server: number;
  /** its name on its server */
  original: string;
}

/** A tool's result: its text, and its images (base64) as the API takes them in a message. */
export interface LentResult {
  text: string;
  images: { mimeType: string; data: string }[];
  isError: boolean;
}

type Content = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
};

/** MCP content → text and images: text and text resources as text, images (and image resources) as images. */
export function lentResult(content: Content[], isError: boolean): LentResult {
  const texts: string[] = [];
  const images: LentResult['images'] = [];
  for (const c of content) {
    if (c.type === 'text' && c.text !== undefined) texts.push(c.text);
    else if (c.type === 'image' && c.data) images.push({ mimeType: c.mimeType ?? 'image/png', data: c.data });
    else if (c.type === 'resource' && c.resource?.text !== undefined) texts.push(c.resource.text);
    else if (c.type === 'resource' && c.resource?.blob && c.resource.mimeType?.startsWith('image/'))
      images.push({ mimeType: c.resource.mimeType, data: c.resource.blob });
    else if (c.type === 'resource_link' || c.type === 'resource')
      texts.push(`(resource ${c.uri ?? c.resource?.uri ?? ''}${c.mimeType ? `, ${c.mimeType}` : ''})`);
    else texts.push(`(${c.type} content${c.mimeType ? ` ${c.mimeType}` : ''}, not passed on)`);
  }
  return { text: texts.join('\n'), images, isError };
}

/** The largest reply svc reads from a server: 16 MiB, or 4 times the cap when that is more. */
export const maxMessageBytes = (maxResultBytes: number) => Math.max(16 * 1024 * 1024, 4 * maxResultBytes);

export interface McpClientOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** what of a tool result goes to the model (text and images, in bytes) */
  maxResultBytes: number;
  cwd?: string;
  /** each line a server writes on stderr (-v shows them) */
  onStderr?: (server: string, line: string) => void;
  /** what svc says about a result it cut or refused (stderr) */
  onNotice?: (line: string) => void;
}

type SdkClient = import('@modelcontextprotocol/sdk/client/index.js').Client;

/** The servers of a run, started and listed; close() stops them. */
export class McpServers {
  private constructor(
    private readonly clients: SdkClient[],
    private readonly specs: McpServerSpec[],
    private readonly stderrTails: (() => string)[],
    readonly tools: LentTool[],
    private readonly o: McpClientOptions,
  ) {}

  static async start(specs: McpServerSpec[], o: McpClientOptions): Promise<McpServers> {
    const clients: SdkClient[] = [];
    const tails: (() => string)[] = [];
    const tools: LentTool[] = [];
    const servers = new McpServers(clients, specs, tails, tools, o);
    try {
      for (const [i, spec] of specs.entries()) {
        const { client, tail } = await connect(spec, o);
        clients.push(client);
        tails.push(tail);
        const listed = await servers.bounded(i, 'list its tools', (ro) => client.listTools(undefined, ro));
        for (const t of listed.tools) tools.push(lend(t, i, tools));
      }
    } catch (err) {
      await servers.close();
      throw err;
    }
    return servers;
  }

  has(name: string): boolean {
    return this.tools.some((t) => t.name === name);
  }

  /** Run a call of the model on its server; a tool's own error comes back as an error result for the model. */
  async call(name: string, argumentsJson: string): Promise<LentResult> {
    const tool = this.tools.find((t) => t.name === name)!;
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(argumentsJson || '{}');
    } catch {
      return { text: `the arguments are not JSON: ${argumentsJson.slice(0, 200)}`, images: [], isError: true };
    }
    const client = this.clients[tool.server]!;
    const r = await this.bounded(tool.server, `answer a call of ${tool.original}`, async (ro) => {
      try {
        return { reply: await client.callTool({ name: tool.original, arguments: args }, undefined, ro) };
      } catch (err) {
        if ((err as { code?: unknown }).code !== OVERSIZED_REPLY) throw err;
        return { oversized: (err as { data?: { bytes?: number } }).data?.bytes ?? 0 };
      }
    });
    const cap = this.o.maxResultBytes;
    if (r.oversized !== undefined) {
      const text =
        `the result of ${tool.original} was ${size(r.oversized)}, more than svc reads of one reply ` +
        `(${size(maxMessageBytes(cap))}); nothing of it was passed on`;
      this.o.onNotice?.(`--mcp ${this.specs[tool.server]!.label}: ${text}`);
      return { text, images: [], isError: true };
    }
    const lent = lentResult((r.reply.content ?? []) as Content[], !!r.reply.isError);
    const capped = capResult(lent, cap);
    if (capped !== lent)
      this.o.onNotice?.(
        `--mcp ${this.specs[tool.server]!.label}: the result of ${tool.original} was ${size(resultBytes(lent))}; ` +
          `the model gets its first ${size(cap)} (--mcp-max-result)`,
      );
    return capped;
  }

  /** A request to server i within --timeout; its failure named (the server exited, did not answer in time). */
  private async bounded<T>(i: number, what: string, run: (ro: { timeout: number; signal: AbortSignal }) => Promise<T>) {
    try {
      return await run({ timeout: this.o.timeoutMs, signal: this.o.signal });
    } catch (err) {
      if (this.o.signal.aborted) throw err;
      throw serverError(this.specs[i]!, what, err, this.o.timeoutMs, this.stderrTails[i]!());
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close().catch(() => {})));
  }
}

/** The model's name for a tool: its own, unless an earlier server took it (then SERVER_INDEX__NAME). */
function lend(t: { name: string; description?: string; inputSchema: unknown }, server: number, taken: LentTool[]) {
  const clash = taken.some((x) => x.name === t.name);
  const name = clash ? `s${server + 1}__${t.name}`.slice(0, 64) : t.name;
  return {
    name,
    description: t.description ?? '',
    parameters: t.inputSchema as Record<string, unknown>,
    server,
    original: t.name,
  };
}

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1 << 20
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / (1 << 20)).toFixed(1)} MiB`;

const resultBytes = (r: LentResult) =>
  Buffer.byteLength(r.text) + r.images.reduce((n, i) => n + i.data.length + i.mimeType.length, 0);

/** A result within `cap` bytes: its text cut (on a character), the images that no longer fit left out; said in it. */
export function capResult(r: LentResult, cap: number): LentResult {
  const total = resultBytes(r);
  if (total <= cap) return r;
  const text = Buffer.from(r.text)
    .subarray(0, cap)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  let room = cap - Buffer.byteLength(text);
  const images = r.images.filter((i) => {
    const fits = i.data.length + i.mimeType.length <= room;
    if (fits) room -= i.data.length + i.mimeType.length;
    return fits;
  });
  const note =
    `[svc: the tool's result was ${size(total)}; cut to its first ${size(cap)} (--mcp-max-result)` +
    `${images.length < r.images.length ? `, ${r.images.length - images.length} image(s) left out` : ''}]`;
  return { text: `${text}\n${note}`, images, isError: r.isError };
}

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

function serverError(spec: McpServerSpec, what: string, err: unknown, timeoutMs: number, stderr: string): Error {
  const message = err instanceof Error ? err.message : String(err);
  const why = /timed out|timeout/i.test(message)
    ? `did not ${what} within ${seconds(timeoutMs)} (--timeout)`
    : /closed/i.test(message)
      ? `exited before it could ${what}`
      : `could not ${what}: ${message}`;
  const said = stderr.trim() ? `; it said: ${terminalSafe(firstErrorLine(stderr)).slice(0, 800)}` : '';
  return new McpServerError(`--mcp ${spec.label}: the MCP server ${why}${said}`);
}

/**
 * What a server's stderr says went wrong: its first line that reads as an error ("Error: Cannot find module …"),
 * not the tail of a stack trace; else its last lines.
 */
export function firstErrorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (
    lines.find((l) => /\b(error|exception|fatal|panic|cannot|can't|could not|failed|not found)\b/i.test(l)) ??
    lines.slice(-5).join(' | ')
  );
}

export class McpServerError extends Error {
  override name = 'McpServerError';
}

/** Start one server (no shell; in a process group of its own) and initialize it within the timeout. */
async function connect(spec: McpServerSpec, o: McpClientOptions): Promise<{ client: SdkClient; tail: () => string }> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const [command, ...args] = commandWords(spec.command);
  // its first and last 4000 characters: the first error line is at the start, the end says how it ended
  let head = '';
  let tail = '';
  let partial = '';
  const onData = (d: Buffer) => {
    const text = d.toString('utf8');
    if (head.length < 4000) head += text.slice(0, 4000 - head.length);
    tail = (tail + text).slice(-4000);
    if (!o.onStderr) return;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) o.onStderr(spec.label, line);
  };
  const said = () => (head.length < 4000 ? head : `${head}\n${tail}`);
  const transport = new StdioServerTransport({
    command: command!,
    args,
    env: o.env,
    cwd: o.cwd,
    maxMessageBytes: maxMessageBytes(o.maxResultBytes),
    onStderr: onData,
  });
  const client = new Client({ name: 'svc', version: '1' });
  try {
    await client.connect(transport, { timeout: o.timeoutMs, signal: o.signal });
  } catch (err) {
    await client.close().catch(() => {});
    await transport.close();
    if (o.signal.aborted) throw err;
    throw serverError(spec, 'start', err, o.timeoutMs, said());
  }
  return { client, tail: said };
}

/**
 * --mcp of a command: its servers started (within --timeout) and their tools, refused when a name is one the command
 * already offers (`taken`: --tool, --tool-cmd).
 */
export async function startServers(
  ctx: Context,
  given: string[],
  taken: string[],
  maxResultKib = DEFAULT_MCP_MAX_RESULT_KIB,
): Promise<McpServers> {
  const cfg = ctx.config();
  const servers = await McpServers.start(resolveServers(given, cfg.profileData as Record<string, string>), {
    env: ctx.env,
    timeoutMs: cfg.timeoutSec * 1000,
    signal: ctx.signal,
    maxResultBytes: maxResultKib * 1024,
    onNotice: (line) => ctx.out.warn(line),
    // what a server writes is made safe on a terminal, as any text from elsewhere
    onStderr: ctx.globals.verbose
      ? (server, line) => ctx.out.info(ctx.out.ce.dim(`[${server}] ${ctx.out.stderrIsTTY ? terminalSafe(line) : line}`))
      : undefined,
  });
  const twice = servers.tools.find((t) => taken.includes(t.name));
  if (twice) {
    await servers.close();
    throw new UsageError(
      `--mcp: the tool ${twice.name} is also given by --tool or --tool-cmd; one definition per name`,
    );
  }
  return servers;
}
