// The stdio front of `svc mcp serve` (src/mcp/stdio-front.ts) against the SDK's own server: the answers it gives a
// session's start are the SDK's, byte for byte as JSON, for a supported and an unknown protocol version; the first
// other request hands the session to the SDK's server, which answers it (and what follows) as if it had answered
// the start itself.
import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListToolsRequestSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { Front, LineTransport } from '../../src/mcp/stdio-front.js';

const INFO = { name: 'svc', title: 'svc: the API as tools', version: '9.9.9' };
const TOOLS = [{ name: 'echo', description: 'says it back', inputSchema: { type: 'object', properties: {} } }];

/** A session over a pair of streams: the lines written in, the answers read out. */
async function session(lines: object[], front: boolean) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new LineTransport(stdin, stdout);
  let made = 0;
  const makeServer = async () => {
    made++;
    const server = new Server(INFO, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS as never }));
    server.setRequestHandler((await import('@modelcontextprotocol/sdk/types.js')).CallToolRequestSchema, async (r) => ({
      content: [{ type: 'text', text: `${r.params.name} for ${server.getClientVersion()?.name}` }],
    }));
    return server;
  };
  const answers = front
    ? {
        serverInfo: INFO,
        capabilities: { tools: {} },
        tools: TOOLS as never,
        protocol: { supported: SUPPORTED_PROTOCOL_VERSIONS, latest: LATEST_PROTOCOL_VERSION },
      }
    : undefined;
  const f = new Front(transport, answers, makeServer);
  transport.onmessage = (m) => f.receive(m);
  await transport.start();
  const out: string[] = [];
  stdout.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
  stdin.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const asked = lines.filter((l) => 'id' in l).length;
  for (let i = 0; i < 100 && out.length < asked; i++) await new Promise((r) => setTimeout(r, 10));
  await transport.close();
  return { replies: out.map((l) => JSON.parse(l)), made };
}

const init = (version: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'agent', version: '1' } },
});
const start = (version: string) => [
  init(version),
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'ping' },
];

describe('the stdio front of svc mcp serve', () => {
  for (const version of ['2025-06-18', '1999-01-01'])
    it(`answers a session's start as the SDK's server does, without it (protocol ${version})`, async () => {
      const own = await session(start(version), true);
      const sdk = await session(start(version), false);
      expect(own.made).toBe(0);
      expect(sdk.made).toBe(1);
      expect(own.replies).toEqual(sdk.replies);
      expect(own.replies.map((r) => r.id)).toEqual([1, 2, 3]);
    });

  it('hands the session to the SDK at the first other request, which knows the client; no answer twice', async () => {
    const call = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } };
    const list = { jsonrpc: '2.0', id: 5, method: 'tools/list' };
    const r = await session([...start('2025-06-18'), call, list], true);
    expect(r.made).toBe(1);
    expect(r.replies.map((x) => x.id)).toEqual([1, 2, 3, 4, 5]);
    expect(r.replies[3].result.content[0].text).toBe('echo for agent');
    expect(r.replies[4].result.tools).toEqual(TOOLS);
  });
});

describe('the line transport of svc mcp serve', () => {
  it('drops a message over its cap (a client that never ends a line) and goes on with the next', async () => {
    const stdin = new PassThrough();
    const transport = new LineTransport(stdin, new PassThrough(), 1024);
    const got: unknown[] = [];
    const errors: string[] = [];
    transport.onmessage = (m) => got.push(m);
    transport.onerror = (e) => errors.push(e.message);
    await transport.start();
    for (let i = 0; i < 8; i++) stdin.write('x'.repeat(512));
    stdin.write(`${'x'.repeat(100)}\n${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual(['a message over 1024 bytes: dropped']);
    expect(got).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect((transport as unknown as { buffer?: Buffer }).buffer?.length ?? 0).toBe(0);
    await transport.close();
  });
});
