// `svc mcp serve` driven by the official MCP SDK's client: over stdio (the SDK spawns the built CLI, through
// throughHelper like every CLI process of the suite, its stderr scanned for keys) and over streamable HTTP.
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT } from './files.js';
import { LAUNCHER, svcEnv, throughHelper, type RunOptions } from './run-env.js';
import { assertNoSecrets, captureOutput } from './secrets.js';

export interface McpSession {
  client: Client;
  /** errors the client's transport met (a line on stdout that is not a protocol message is one) */
  errors: Error[];
  stderr(): string;
  close(): Promise<void>;
}

const definedOnly = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

/** `svc ARGS` (e.g. ['mcp', 'serve']) as an MCP server on stdio, connected and initialized. */
export async function mcpStdio(args: string[], opts: RunOptions & { clientName?: string } = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [LAUNCHER, ...args],
    env: definedOnly(svcEnv(opts)),
    cwd: opts.cwd ?? ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const start = transport.start.bind(transport);
  transport.start = () => throughHelper(start);
  const client = new Client({ name: opts.clientName ?? 'svc-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return {
    client,
    errors,
    stderr: () => stderr,
    async close() {
      await client.close();
      captureOutput(args, stderr);
      assertNoSecrets(stderr, args);
    },
  };
}

/** A client of `svc mcp serve --http` at `url` with the bearer token. */
export async function mcpHttp(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'svc-test-http', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The URL `svc mcp serve --http 0` says on stderr once it listens (a process from spawnSvc). */
export function mcpHttpUrl(child: { stderr: NodeJS.ReadableStream | null } & PromiseLike<unknown>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen);
      if (m) resolve(m[1]!);
    });
    child.then(() => reject(new Error(`svc mcp serve --http ended before listening: ${seen}`)), reject);
  });
}

/** Call i of a mix of tools: text, embeddings, speech written under the root, uploads of a.txt (in the root), lists. */
export function manyCalls(i: number): { name: string; arguments: Record<string, unknown> } {
  const calls = [
    { name: 'generate_text', arguments: { prompt: `hello ${i}` } },
    { name: 'embed', arguments: { texts: [`text ${i}`] } },
    { name: 'text_to_speech', arguments: { text: `hi ${i}`, output: `speech-${i}.mp3` } },
    { name: 'upload_file', arguments: { path: 'a.txt' } },
    { name: 'list_models', arguments: {} },
    { name: 'list_files', arguments: {} },
  ];
  return calls[i % calls.length]!;
}

/** stderr of svc mcp serve: one `TOOL (CLIENT): done (…)` note per call and its start line, nothing of Node's. */
export function expectOnlyNotes(stderr: string, calls: number): void {
  expect(stderr, stderr).not.toMatch(/\(node:\d+\)|Warning|MaxListeners/);
  const lines = stderr.split('\n').filter(Boolean);
  const notes = lines.filter((l) => /^[a-z_]+ \([^)]*\): done \(/.test(l));
  expect(notes.length, stderr).toBe(calls);
  expect(
    lines.filter((l) => !notes.includes(l) && !/^svc MCP server on |^tools: .*; root /.test(l)),
    stderr,
  ).toEqual([]);
}
