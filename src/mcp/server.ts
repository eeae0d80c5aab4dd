// `svc mcp serve`: the API's actions as MCP tools, through the official SDK (@modelcontextprotocol/sdk, loaded only
// here, when the server starts). Over stdio, stdout carries protocol messages only (every note goes to stderr; the
// tools' commands write into buffers of their own); over streamable HTTP, on loopback, with a bearer token.
import type { Context } from '../runtime/context.js';
import { UsageError } from '../core/errors.js';
import { terminalSafe } from '../term/terminal-safe.js';
import type { ToolListing } from './listing.js';
import type { LoadedTool, ToolResult } from './run-tool.js';
/** a tools/call request as the SDK hands it to the handler */
type CallRequest = { params: { name: string; arguments?: Record<string, unknown> } };
import type { Root } from './root.js';
import { TOOLS, TOOL_NAMES, type ToolDef } from './tools.js';

/**
 * Text a peer chose (a client's name, a tool error quoting an agent's argument or the API's reply) as it goes into a
 * note on stderr: one line (a line break shown as ␤), no control character a terminal would act on, at most `max`
 * characters.
 */
export function peerLine(text: string, max = 500): string {
  const line = terminalSafe(text.replace(/\r?\n|[\u2028\u2029\u0085]/g, '\u2424'));
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The tools offered: those named (only so a destructive one), else all but destructive; --read-only: readers */
export function chooseTools(named: string[] | undefined, readOnly: boolean): ToolDef[] {
  for (const n of named ?? [])
    if (!TOOL_NAMES.includes(n))
      throw new UsageError(`--tools: ${n} is not allowed: tool names among ${TOOL_NAMES.join(', ')}`);
  const chosen = TOOLS.filter((t) => (named ? named.includes(t.name) : t.kind !== 'destructive'));
  if (readOnly) {
    const writers = chosen.filter((t) => named && t.kind !== 'read').map((t) => t.name);
    if (writers.length)
      throw new UsageError(`--tools: ${writers.join(', ')} is not allowed together with --read-only (it writes)`);
    return chosen.filter((t) => t.kind === 'read');
  }
  return chosen;
}

/** A tool offered: its tools/list entry, and the command it runs, loaded on its first call. */
export interface OfferedTool {
  def: ToolDef;
  listing: ToolListing;
  load(): Promise<LoadedTool>;
}

export interface ServeOptions {
  tools: OfferedTool[];
  root: Root;
}

/** How the server names itself and what it offers (the SDK's server and the stdio front answer with both). */
const serverInfo = (version: string) => ({ name: 'svc', title: 'svc: the API as tools', version });
const CAPABILITIES = { tools: {} };

/**
 * An SDK server answering tools/list and tools/call (one per stdio or HTTP session); `end` stops the calls still
 * running and waits for them (their temp files removed) when the session ends before they did.
 */
export async function mcpServer(ctx: Context, o: ServeOptions, transport: string) {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server(serverInfo(ctx.version), { capabilities: CAPABILITIES });
  const listed = o.tools.map((t) => t.listing);
  const session = new AbortController();
  const running = new Set<Promise<unknown>>();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
  const call = async (req: CallRequest, extra: { signal: AbortSignal }): Promise<ToolResult> => {
    const offered = o.tools.find((t) => t.def.name === req.params.name);
    if (!offered) return { content: [{ type: 'text', text: `${req.params.name}: no such tool here` }], isError: true };
    const [tool, { callTool }] = await Promise.all([offered.load(), import('./run-tool.js')]);
    // a session that ended while the tool loaded (stdout failed, stdin closed): nothing is started
    if (session.signal.aborted) return { content: [{ type: 'text', text: 'the session ended' }], isError: true };
    const client = peerLine(server.getClientVersion()?.name || transport, 100);
    const started = Date.now();
    const result = await callTool(ctx, tool, (req.params.arguments ?? {}) as Record<string, unknown>, {
      root: o.root,
      signal: AbortSignal.any([ctx.signal, extra.signal, session.signal]),
      origin: `mcp serve ${tool.def.name} (${client})`,
    });
    const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    const first = result.content[0];
    const note = result.isError && first?.type === 'text' ? `refused or failed: ${peerLine(first.text)}` : 'done';
    ctx.out.info(`${tool.def.name} (${client}): ${note} (${took})`);
    return result;
  };
  // each call counted from its arrival, so that the session's end waits for one still loading its command too
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    const work = call(req, extra);
    running.add(work);
    return work.finally(() => running.delete(work));
  });
  const end = async () => {
    session.abort();
    while (running.size) await Promise.allSettled([...running]);
  };
  return { server, end };
}

/**
 * Serve on stdin/stdout until the client closes stdin or Ctrl-C: initialize, ping and tools/list answered from the
 * build's tool table (stdio-front.ts), the SDK's server made for the first other request.
 */
export async function serveStdio(ctx: Context, o: ServeOptions): Promise<void> {
  const [{ LineTransport, Front }, { BUILT_PROTOCOL }] = await Promise.all([
    import('./stdio-front.js'),
    import('./built-listing.js'),
  ]);
  const stdin = ctx.streams.stdin as NodeJS.ReadableStream;
  const transport = new LineTransport(stdin, ctx.streams.stdout as NodeJS.WritableStream);
  let sdk: Awaited<ReturnType<typeof mcpServer>> | undefined;
  // stdin ending (a host that wrote its requests and closed the pipe) ends the session once every request read has
  // been answered
  let asked = 0;
  let answered = 0;
  let drained: (() => void) | undefined;
  // a stdout that fails (a full disk, EIO, a closed pipe) ends the session: no answer could reach the client, and a
  // write waiting for 'drain' would wait for ever (cli.ts then reports the failure, exit 1; a closed pipe quietly)
  const stdout = ctx.streams.stdout as NodeJS.WritableStream;
  const broken = new Promise<void>((resolve) => stdout.once('error', () => resolve()));
  const closed = new Promise<void>((resolve) => {
    void broken.then(resolve);
    const ended = () => {
      drained = resolve;
      if (answered >= asked) resolve();
    };
    transport.onclose = () => resolve();
    stdin.once('end', ended);
    stdin.once('close', ended);
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const send = transport.send.bind(transport);
  transport.send = async (m) => {
    try {
      await Promise.race([send(m), broken]);
    } finally {
      if ('id' in m && !('method' in m) && ++answered >= asked) drained?.();
    }
  };
  const answers = BUILT_PROTOCOL && {
    serverInfo: serverInfo(ctx.version),
    capabilities: CAPABILITIES,
    tools: o.tools.map((t) => t.listing),
    protocol: BUILT_PROTOCOL,
  };
  let making: ReturnType<typeof mcpServer> | undefined;
  const front = new Front(transport, answers, async () => {
    making ??= mcpServer(ctx, o, 'stdio');
    sdk = await making;
    return sdk.server;
  });
  // counted as read: a request read at once, in the first chunk of stdin, is counted before it is answered
  transport.onmessage = (m) => {
    if ('id' in m && 'method' in m) asked++;
    front.receive(m);
  };
  await transport.start();
  ctx.out.info(`svc MCP server on stdio: ${o.tools.map((t) => t.def.name).join(', ')}; root ${o.root.dir}`);
  // run by hand: say what it waits for (an MCP host starts it and speaks on its stdin)
  if (ctx.streams.stdin.isTTY)
    ctx.out.info('waiting for an MCP client on stdin (MCP hosts start this command: docs/mcp.md); Ctrl-C ends');
  await closed;
  // a server still being made when the session ended (its first tool call just read) is ended too
  sdk ??= await making?.catch(() => undefined);
  await sdk?.end();
  await sdk?.server.close();
  await transport.close();
}
