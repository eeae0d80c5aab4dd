// `svc mcp serve --http PORT`: the SDK's streamable HTTP transport on loopback only, a server and a transport per
// session (the session's `initialize` names the client for the call log and the notes; at most MAX_SESSIONS, the
// oldest ended for a new one), every request carrying `Authorization: Bearer TOKEN`
// (SVC_MCP_TOKEN, else a new token printed on stderr at start), the Host header checked against the loopback names
// (a web page cannot rebind a name to this port and talk to it).
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from '../runtime/context.js';
import { readEnv } from '../core/environment.js';
import { mcpServer, peerLine, type ServeOptions } from './server.js';

const PATH = '/mcp';
/** sessions kept at once: a client that never says goodbye (DELETE) costs a server's memory until then */
const MAX_SESSIONS = 64;

type Transport = import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
type Sessions = Map<string, Transport>;

function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function refuse(res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** One HTTP request: to its session's transport, or (an `initialize`) to a new session's server and transport. */
async function handle(
  ctx: Context,
  o: ServeOptions,
  req: IncomingMessage,
  res: ServerResponse,
  allowedHosts: string[],
  sessions: Sessions,
): Promise<void> {
  const id = req.headers['mcp-session-id'];
  if (typeof id === 'string') {
    const known = sessions.get(id);
    if (!known) return refuse(res, 404, 'no such session (it ended, or the server restarted): initialize again');
    return known.handleRequest(req, res);
  }
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { server, end } = await mcpServer(ctx, o, 'http');
  const transport: Transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedHosts,
    onsessioninitialized: (sid) => {
      if (sessions.size >= MAX_SESSIONS) void sessions.values().next().value?.close();
      sessions.set(sid, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    void end().then(() => server.close());
  };
  // a request that opened no session (anything but initialize, refused by the transport) leaves nothing behind
  res.on('close', () => {
    if (!transport.sessionId) void transport.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** Listen on 127.0.0.1:PORT until Ctrl-C (or the signal), then stop. */
export async function serveHttp(ctx: Context, o: ServeOptions, port: number): Promise<void> {
  const { createServer } = await import('node:http');
  const given = readEnv(ctx.env, 'SVC_MCP_TOKEN');
  const token = given || randomBytes(24).toString('base64url');
  let allowedHosts: string[] = [];
  const sessions: Sessions = new Map();
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== PATH) return refuse(res, 404, `not found: the MCP endpoint is ${PATH}`);
    if (!authorized(req, token))
      return refuse(res, 401, 'a bearer token is required (SVC_MCP_TOKEN)', { 'www-authenticate': 'Bearer' });
    handle(ctx, o, req, res, allowedHosts, sessions).catch((err: unknown) => {
      ctx.out.warn(`mcp: ${peerLine(err instanceof Error ? err.message : String(err))}`);
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (http.address() as { port: number }).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  ctx.out.stderrWrite(`svc MCP server on http://127.0.0.1:${bound}${PATH}\n`);
  ctx.out.info(`tools: ${o.tools.map((t) => t.def.name).join(', ')}; root ${o.root.dir}`);
  // the token is the user's to copy into the host's config; it never goes to stdout (data) nor into the log
  if (!given) ctx.out.stderrWrite(`token: ${token} (set SVC_MCP_TOKEN to choose it)\n`);
  await new Promise<void>((resolve) => {
    ctx.setInterruptHandler(() => resolve());
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  ctx.setInterruptHandler(undefined);
  await Promise.all([...sessions.values()].map((t) => t.close()));
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}
