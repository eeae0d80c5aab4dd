// The one object a command runner gets: streams and output, global options, and lazy constructors for
// the config and the HTTP client (nothing is loaded before a command needs it).
import { resolveConfig, type ResolvedConfig } from './config.js';
import { HttpClient } from './http.js';
import { Output, type Streams } from './output.js';
import { connectWs, type WsConnection } from './ws.js';
import type { Query } from './http.js';
import { UsageError } from './errors.js';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  emulator?: boolean;
  json?: boolean;
  timeout?: number;
  maxRetries?: number;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export interface Context {
  readonly streams: Streams;
  readonly out: Output;
  readonly globals: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  /** aborted on Ctrl-C */
  readonly signal: AbortSignal;
  readonly version: string;
  readonly userAgent: string;
  config(): ResolvedConfig;
  /**
   * The HTTP client; throws a clear error when no API key is configured (unless requireKey is false).
   * With `apiKey`, a separate client using that key (e.g. to check a key before storing it).
   */
  http(opts?: { requireKey?: boolean; apiKey?: string }): Promise<HttpClient>;
  /** open a WebSocket on the API with the configured key */
  ws(path: string, query?: Query, opts?: { subprotocol?: string; apiKey?: string }): Promise<WsConnection>;
  /** --verbose trace sink (already redacted by the caller's client) */
  trace?: (line: string) => void;
  /**
   * Take Ctrl-C over (a REPL cancels the answer in progress, a server stops cleanly); pass undefined to give it
   * back. Without a handler, Ctrl-C aborts `signal` and the command exits 130.
   */
  setInterruptHandler(fn: (() => void) | undefined): void;
  /** register cleanup run before exit (e.g. stop the in-process emulator) */
  onExit(fn: () => void | Promise<void>): void;
  /** read all of stdin (when it is not a terminal) */
  readStdin(): Promise<string>;
  now(): number;
}

export interface ContextInit {
  streams: Streams;
  setInterruptHandler(fn: (() => void) | undefined): void;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  signal: AbortSignal;
  version: string;
}

export function createContext(init: ContextInit): Context & { runExitHooks(): Promise<void> } {
  const out = new Output(init.streams, {
    json: !!init.globals.json,
    quiet: !!init.globals.quiet,
    verbose: !!init.globals.verbose,
    color: init.globals.color,
    env: init.env,
  });
  const exitHooks: (() => void | Promise<void>)[] = [];
  let config: ResolvedConfig | undefined;
  let client: Promise<HttpClient> | undefined;
  let emulatorStarted: Promise<{ baseUrl: string; apiKey: string }> | undefined;
  const trace = init.globals.verbose ? (line: string) => init.streams.stderr.write(`${out.ce.dim(line)}\n`) : undefined;
  const userAgent = `svc-cli/${init.version} node/${process.versions.node} ${process.platform}`;

  const getConfig = () => {
    config ??= resolveConfig({
      env: init.env,
      flags: { profile: init.globals.profile, baseUrl: init.globals.baseUrl, timeout: init.globals.timeout, maxRetries: init.globals.maxRetries },
    });
    return config;
  };

  /** With --emulator: start the emulator in this process (state persisted in the data dir) and use it. */
  const endpoint = async (): Promise<{ baseUrl: string; apiKey?: string }> => {
    const cfg = getConfig();
    if (!init.globals.emulator) return { baseUrl: cfg.baseUrl, apiKey: cfg.apiKey };
    emulatorStarted ??= (async () => {
      const { startEmulator } = await import('../emulator/server.js');
      const { emulatorStateDir } = await import('./paths.js');
      const emu = await startEmulator({ port: 0, host: '127.0.0.1', stateDir: emulatorStateDir(init.env), quietLog: true, tokenDelayMs: Number(init.env.SVC_EMULATOR_TOKEN_DELAY_MS ?? 12) });
      exitHooks.push(() => emu.close());
      return { baseUrl: emu.url, apiKey: emu.defaultKey };
    })();
    return emulatorStarted;
  };

  const ctx: Context & { runExitHooks(): Promise<void> } = {
    streams: init.streams,
    out,
    globals: init.globals,
    env: init.env,
    signal: init.signal,
    version: init.version,
    userAgent,
    trace,
    config: getConfig,
    async http(opts = {}) {
      const make = async (apiKey?: string) => {
        const cfg = getConfig();
        const ep = await endpoint();
        const c = new HttpClient({
          baseUrl: ep.baseUrl,
          apiKey: apiKey ?? ep.apiKey,
          userAgent,
          timeoutMs: cfg.timeoutSec * 1000,
          maxRetries: cfg.maxRetries,
          trace,
          signal: init.signal,
        });
        exitHooks.push(() => c.close());
        return c;
      };
      if (opts.apiKey) return make(opts.apiKey);
      client ??= make();
      const c = await client;
      if (opts.requireKey !== false && !c.opts.apiKey) {
        throw new UsageError('no API key: run `svc auth login`, or set SVC_API_KEY (or use --emulator for the local emulator)');
      }
      return c;
    },
    async ws(path, query, opts = {}) {
      const cfg = getConfig();
      const ep = await endpoint();
      const apiKey = opts.apiKey ?? ep.apiKey;
      if (!apiKey) throw new UsageError('no API key: run `svc auth login`, or set SVC_API_KEY (or use --emulator for the local emulator)');
      return connectWs({
        baseUrl: ep.baseUrl,
        path,
        query,
        apiKey,
        subprotocol: opts.subprotocol,
        userAgent,
        signal: init.signal,
        trace,
        handshakeTimeoutMs: cfg.timeoutSec * 1000,
      });
    },
    setInterruptHandler: init.setInterruptHandler,
    onExit(fn) {
      exitHooks.push(fn);
    },
    async runExitHooks() {
      for (const fn of exitHooks.splice(0).reverse()) {
        try {
          await fn();
        } catch {
          // cleanup must never change the exit code
        }
      }
    },
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of init.streams.stdin as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    },
    now: () => Date.now(),
  };
  return ctx;
}
