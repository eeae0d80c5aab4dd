// The stdio transport of `--mcp` (in place of the SDK's, which starts the server in svc's own process group, ends
// only that one process, and reads any message whole): the server runs in a process group of its own (POSIX; its
// tree on Windows) that is ended on every way out of svc — close(), and a process 'exit' hook for a crash or the
// forced exit after Ctrl-C — and a message over the size svc reads is skipped as it streams in, the request it
// answers failed with an error that says its size.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { childEnvironment } from '../core/environment.js';
import { ownProcessGroup, stopTree, type TreeKiller } from '../core/signals.js';

type Message = import('@modelcontextprotocol/sdk/types.js').JSONRPCMessage;

/** The JSON-RPC error code of a reply svc did not read for its size (the server error range, -32000 to -32099). */
export const OVERSIZED_REPLY = -32090;

export interface StdioServerOptions {
  command: string;
  args: string[];
  /** svc's environment: the server gets it without svc's secrets */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** a message longer than this is not read */
  maxMessageBytes: number;
  /** what it writes on stderr, from its first byte */
  onStderr?: (chunk: Buffer) => void;
  platform?: NodeJS.Platform;
  killer?: TreeKiller;
}

/** The servers running now, ended by the 'exit' hook if svc leaves without closing them. */
const running = new Set<StdioServerTransport>();
let exitHook = false;

/** A reply being skipped: its size so far, and its first and last bytes (where its id is). */
interface Skipped {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

export class StdioServerTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: Message) => void;
  private child?: ChildProcessWithoutNullStreams;
  private exited = false;
  private parts: Buffer[] = [];
  private size = 0;
  private skipped?: Skipped;
  /** ids of the requests sent and not yet answered */
  private readonly pending = new Set<string | number>();
  private deserialize?: (line: string) => Message;

  constructor(private readonly o: StdioServerOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    this.deserialize = (await import('@modelcontextprotocol/sdk/shared/stdio.js')).deserializeMessage;
    const platform = this.o.platform ?? process.platform;
    // cross-spawn, as the SDK's transport and execa start programs: on Windows `npx` is npx.cmd, which Node's
    // spawn runs only through a shell it would have to quote for
    const spawn = (await import('cross-spawn')).default.spawn;
    const child = spawn(this.o.command, this.o.args, {
      env: childEnvironment(this.o.env),
      cwd: this.o.cwd,
      stdio: 'pipe',
      detached: ownProcessGroup(platform),
      windowsHide: true,
    }) as ChildProcessWithoutNullStreams;
    this.child = child;
    if (this.o.onStderr) child.stderr.on('data', this.o.onStderr);
    else child.stderr.resume();
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const t of running) t.kill('SIGKILL');
      });
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        running.add(this);
        resolve();
      });
      child.once('error', reject);
    });
    child.on('error', (err) => this.onerror?.(err));
    child.stdin.on('error', (err) => this.onerror?.(err));
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.once('close', () => {
      this.exited = true;
      this.onclose?.();
    });
  }

  send(message: Message): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exited) return Promise.reject(new Error('Not connected'));
    if ('method' in message && 'id' in message) this.pending.add(message.id);
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** stdin closed (a server's cue to end), then its whole group ended: TERM, and KILL for what is left. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || !running.has(this)) return;
    child.stdin.end();
    await this.exit(300);
    this.kill('SIGTERM');
    await this.exit(1000);
    this.kill('SIGKILL');
    running.delete(this);
  }

  private kill(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid) stopTree(pid, signal, this.o.platform, this.o.killer);
  }

  private exit(ms: number): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.child!.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** stdout split into lines; a line longer than maxMessageBytes is counted, not kept. */
  private read(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  }

  private take(piece: Buffer): void {
    const s = this.skipped;
    if (s) {
      s.bytes += piece.length;
      s.tail = Buffer.concat([s.tail, piece]).subarray(-256);
    } else if (this.size + piece.length > this.o.maxMessageBytes) {
      const all = Buffer.concat([...this.parts, piece]);
      this.skipped = { bytes: all.length, head: all.subarray(0, 256), tail: all.subarray(-256) };
      this.parts = [];
      this.size = 0;
    } else {
      this.parts.push(piece);
      this.size += piece.length;
    }
  }

  private endLine(): void {
    if (this.skipped) {
      const s = this.skipped;
      this.skipped = undefined;
      return this.oversized(s);
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (!line.trim()) return;
    let message: Message;
    try {
      message = this.deserialize!(line);
    } catch (err) {
      return this.onerror?.(err as Error);
    }
    if ('id' in message && message.id !== undefined && !('method' in message)) this.pending.delete(message.id);
    this.onmessage?.(message);
  }

  /** The request a skipped reply answers (its id, at its end or start, else the one request waiting) failed. */
  private oversized(s: Skipped): void {
    const ids = [s.tail, s.head].flatMap((b) =>
      [...b.toString('latin1').matchAll(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/g)].map((m) => jsonOrUndefined(m[1]!)),
    );
    const waiting = [...this.pending];
    const id =
      (ids.find((i) => this.pending.has(i as string)) as string | number | undefined) ??
      (waiting.length === 1 ? waiting[0] : undefined);
    const why = `a reply of ${s.bytes} bytes, over the ${this.o.maxMessageBytes} bytes svc reads of one`;
    if (id === undefined) return this.onerror?.(new Error(`the MCP server sent ${why}`));
    this.pending.delete(id);
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: OVERSIZED_REPLY, message: why, data: { bytes: s.bytes } } });
  }
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
