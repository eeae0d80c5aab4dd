// `svc mcp serve` over stdio without the SDK until a request needs it: JSON-RPC lines on stdin and stdout (what the
// SDK's StdioServerTransport reads and writes, without its schema check, which loads the SDK's types: ~180 KB of zod
// schemas, most of the server's start), and the answers a session starts with (initialize, ping, tools/list) given
// here from the tool table and the SDK's protocol versions as the build read them (built-listing.ts). The first other
// request (tools/call …) makes the SDK's server, which is told the session's initialize again (its answer not sent:
// the client had it) and gets every message from then on, in order.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolListing } from './listing.js';

/** The longest JSON-RPC line svc mcp serve reads from its client. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

type Message = JSONRPCMessage & { id?: string | number; method?: string; params?: Record<string, unknown> };

/** JSON lines on a pair of streams, read and written as the SDK's StdioServerTransport does. */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private buffer?: Buffer;
  /** dropping the rest of a line over the cap, up to its newline */
  private skipping = false;
  private readonly ondata = (data: Buffer) => {
    let chunk = data;
    if (this.skipping) {
      const end = chunk.indexOf(10);
      if (end === -1) return;
      chunk = chunk.subarray(end + 1);
      this.skipping = false;
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (let end = this.buffer.indexOf(10); end !== -1; end = this.buffer.indexOf(10)) {
      const line = this.buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.buffer = this.buffer.subarray(end + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (err) {
        this.onerror?.(err as Error);
        continue;
      }
      // (the SDK's server checks each message's shape itself: a front answer needs only its method and id)
      if (message && typeof message === 'object' && (message as { jsonrpc?: unknown }).jsonrpc === '2.0')
        this.onmessage?.(message as JSONRPCMessage);
      else this.onerror?.(new Error('not a JSON-RPC 2.0 message'));
    }
    if (this.buffer.length > this.maxLineBytes) {
      // a client that never ends its line must not grow svc's memory: the line is dropped, the session goes on
      this.buffer = undefined;
      this.skipping = true;
      this.onerror?.(new Error(`a message over ${this.maxLineBytes} bytes: dropped`));
    }
  };
  private readonly onfailure = (err: Error) => this.onerror?.(err);

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
    /** the longest message read: tool arguments are small, a file travels by path under --root */
    private readonly maxLineBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onfailure);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onfailure);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.buffer = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}

/** What the front answers with: the server's own description, the tools, the protocol versions it speaks. */
export interface FrontAnswers {
  serverInfo: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  tools: ToolListing[];
  protocol: { supported: readonly string[]; latest: string };
}

/** The SDK's server's side of the session: what it sends goes out, but for its answer to the replayed initialize. */
class InnerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  constructor(private readonly out: Transport) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    if ((message as Message).id === REPLAYED_INITIALIZE) return;
    return this.out.send(message);
  }
}
const REPLAYED_INITIALIZE = 'svc-replayed-initialize';

/**
 * The session's messages, in order: answered here while they are initialize, ping or tools/list (`answers` is
 * undefined without the build's tool table and versions: then everything goes to the SDK's server, made at once).
 */
export class Front {
  private initialize?: Message;
  private initialized?: Message;
  private inner?: InnerTransport;
  private queue?: Message[];

  constructor(
    private readonly out: Transport,
    private readonly answers: FrontAnswers | undefined,
    private readonly makeServer: () => Promise<{ connect(t: Transport): Promise<void> }>,
  ) {}

  receive(message: JSONRPCMessage): void {
    const m = message as Message;
    if (this.inner) return this.inner.onmessage?.(m);
    if (this.queue) {
      this.queue.push(m);
      return;
    }
    if (this.answers && this.answerEarly(m, this.answers)) return;
    this.queue = [m];
    void this.handOver().catch((err) => this.out.onerror?.(err as Error));
  }

  private answerEarly(m: Message, a: FrontAnswers): boolean {
    const answer = (result: Record<string, unknown>) => {
      void this.out.send({ jsonrpc: '2.0', id: m.id!, result } as JSONRPCMessage);
      return true;
    };
    if (m.method === 'notifications/initialized') {
      this.initialized = m;
      return true;
    }
    if (m.id === undefined || m.method === undefined) return false;
    if (m.method === 'initialize') {
      this.initialize = m;
      const asked = m.params?.protocolVersion;
      const protocolVersion =
        typeof asked === 'string' && a.protocol.supported.includes(asked) ? asked : a.protocol.latest;
      return answer({ protocolVersion, capabilities: a.capabilities, serverInfo: a.serverInfo });
    }
    if (m.method === 'ping') return answer({});
    if (m.method === 'tools/list') return answer({ tools: a.tools });
    return false;
  }

  /** The SDK's server made and connected, told the initialize again, then handed what waited and what follows. */
  private async handOver(): Promise<void> {
    const server = await this.makeServer();
    const inner = new InnerTransport(this.out);
    await server.connect(inner);
    if (this.initialize) inner.onmessage?.({ ...this.initialize, id: REPLAYED_INITIALIZE } as JSONRPCMessage);
    if (this.initialized) inner.onmessage?.(this.initialized);
    this.inner = inner;
    for (const m of this.queue ?? []) inner.onmessage?.(m);
    this.queue = undefined;
  }
}
