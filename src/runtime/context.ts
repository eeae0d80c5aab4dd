// The one object a command runner gets: streams and output, global options, and lazy constructors for
// the config and the HTTP client (nothing is loaded before a command needs it). Core imports nothing above it:
// where requests go with --emulator is decided by cli.ts and handed in as an EndpointResolver.
import { utf8Text } from '../core/input-file.js';
import { didYouMean } from '../core/suggest.js';
import { allowsInsecureHttp, checkBaseUrl, resolveConfig, type ResolvedConfig } from './config.js';
import { HttpClient } from '../net/http.js';
import { type JsonSelection, Output, type Streams } from '../term/output.js';
import type { WsConnection } from '../net/ws.js';
import type { Query } from '../net/http.js';
import { BudgetError, MissingKeyError, UsageError, describeError } from '../core/errors.js';
import type { CallRecorder } from '../apilog/recorder.js';
import {
  DEFAULT_RETENTION_DAYS,
  cachedPrices,
  logDir,
  normalizeUsage,
  priceCost,
  pricesFromCatalogue,
  savePrices,
  spentToday,
  type CallDetails,
  type Prices,
} from '../apilog/log.js';
import type { JqFilter } from '../term/jq.js';
import type { ParsedGlobalFlags } from '../core/global-options.js';

/** The global options (core/global-flags.ts) by key, as parsed: `--no-log` → `log: false`, `--timeout` a number. */
export interface GlobalOptions extends Omit<ParsedGlobalFlags, 'jq'> {
  /** --jq, compiled (term/jq) before the command runs */
  jq?: JqFilter;
  /** `--json FIELD,FIELD`: the fields printed (cmdutil/json-fields.ts) */
  jsonFields?: JsonSelection;
}

export interface Context {
  readonly streams: Streams;
  readonly out: Output;
  readonly globals: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  /** aborted on Ctrl-C */
  readonly signal: AbortSignal;
  readonly version: string;
  /** the command's own flags as typed on the command line, in order */
  readonly givenOptions: readonly GivenOption[];
  config(): ResolvedConfig;
  /**
   * The HTTP client; throws a clear error when no API key is configured (unless requireKey is false).
   * With `apiKey`, a separate client using that key (e.g. to check a key before storing it).
   */
  http(opts?: { requireKey?: boolean; apiKey?: string }): Promise<HttpClient>;
  /** open a WebSocket on the API with the configured key */
  ws(path: string, query?: Query, opts?: { subprotocol?: string; apiKey?: string }): Promise<WsConnection>;
  /**
   * Take Ctrl-C over (a REPL cancels the answer in progress, a server stops cleanly); pass undefined to give it
   * back. Without a handler, Ctrl-C aborts `signal` and the command exits 130.
   */
  setInterruptHandler(fn: (() => void) | undefined): void;
  /** the API key in use (SVC_API_KEY, api_key_cmd run now, the stored one, the emulator's); for `svc auth token` */
  apiKey(): Promise<string>;
  /** read all of stdin (when it is not a terminal) */
  readStdin(): Promise<string>;
  /** all of stdin as bytes (a body sent as it is) */
  readStdinBytes(): Promise<Buffer>;
  now(): number;
  /** add what a text command knows (model, usage, prompt, streamed answer) to the log record of its last call */
  logCall(details: CallDetails): void;
  /**
   * whether this run's calls are logged (known once http() or ws() has been called): streams then ask for their usage
   */
  logsCalls(): boolean;
  /**
   * A context of its own for one run inside this one (a tool call of `svc mcp serve`): other streams, globals and
   * command name, the same endpoint (one --emulator), its own HTTP client and call-log record; run its exit hooks
   * when the run is over.
   */
  derive(over: Pick<ContextInit, 'streams' | 'globals' | 'command' | 'signal' | 'trace'>): Context & {
    runExitHooks(): Promise<void>;
  };
  /** `svc batch`: the batch's id on every call-log record of this run (known once http() has been called) */
  tagCalls(tags: { batch: string }): void;
  /** US dollars a reply's usage costs at the catalogue's prices (for -u where the API sends no figure) */
  costOf(model: string | undefined, usage: unknown): Promise<number | undefined>;
  /**
   * budget.daily: reserve the worst case of a request about to be sent (its path and JSON body), shared with every
   * svc process; throws a BudgetError (exit 8) when it does not fit. Returns what runs the send under the
   * reservation (ended when its call is logged); undefined when nothing was reserved (no budget, an emulator, a call
   * that costs nothing).
   */
  reserveSpend(path: string, body: unknown): Promise<Spend | undefined>;
}

/** Runs a send under a reservation of budget.daily (Context.reserveSpend). */
export type Spend = <T>(send: () => Promise<T>) => Promise<T>;

/** Where requests go and with which key. */
export interface Endpoint {
  baseUrl: string;
  apiKey?: string;
}

/**
 * Decides the endpoint from the resolved config (called once, on the first request or WebSocket). cli.ts hands in
 * the one for --emulator, which starts the emulator in this process; `onExit` registers its cleanup.
 */
export type EndpointResolver = (
  config: ResolvedConfig,
  onExit: (fn: () => void | Promise<void>) => void,
) => Promise<Endpoint>;

export interface ContextInit {
  streams: Streams;
  setInterruptHandler(fn: (() => void) | undefined): void;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  signal: AbortSignal;
  version: string;
  /** the command's words (`chat`, `models list`), for the call log */
  command?: string;
  /** default: the configured base URL and key */
  endpoint?: EndpointResolver;
  /** the process exits once the command has returned (main): its connections are left to the system to close */
  exitsAfterRun?: boolean;
  /** the endpoint is the emulator (default: whenever `endpoint` is given): not counted toward the budget */
  emulated?: boolean;
  /** where the --verbose trace goes (default: this context's stderr); an MCP tool's goes to the server's stderr */
  trace?: (line: string) => void;
  /** the command's own flags as typed, in order (a flag without a value: no raw) */
  givenOptions?: readonly GivenOption[];
}

export interface GivenOption {
  /** its long name: `temperature`, `no-stream` */
  name: string;
  raw?: string;
}

const emulated = (init: ContextInit): boolean => init.emulated ?? !!init.endpoint;

const NO_KEY = 'no API key: run `svc auth login`, or set SVC_API_KEY (or use --emulator for the local emulator)';

/** All of stdin as text. */
/** The largest stdin read whole (it becomes one JSON request body; docs/scripting.md). */
const MAX_STDIN_BYTES = 32 * 1024 * 1024;

async function readAll(stdin: Streams['stdin']): Promise<Buffer> {
  // the launcher's stream for the null device (bin/svc.cjs): empty, known without reading it (the stream's async
  // iterator, run cold, cost ~1.7 ms of `svc chat hi < /dev/null`)
  if ((stdin as unknown as Record<symbol, unknown>)[Symbol.for('svc.nullDevice')]) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    chunks.push(Buffer.from(chunk));
    size += chunks[chunks.length - 1]!.length;
    // all of it goes into one request body: past the limit the API would refuse it (413) after the upload
    if (size > MAX_STDIN_BYTES)
      throw new UsageError(`stdin: more than ${MAX_STDIN_BYTES / 1024 / 1024} MiB, the largest request body svc sends`);
  }
  return Buffer.concat(chunks);
}

/** Cleanup run before exit, last registered first; a failing hook never changes the exit code. */
function exitHookList() {
  const hooks: (() => void | Promise<void>)[] = [];
  return {
    add(fn: () => void | Promise<void>) {
      hooks.push(fn);
    },
    async run() {
      for (const fn of hooks.splice(0).reverse()) {
        try {
          await fn();
        } catch {
          // cleanup must never change the exit code
        }
      }
    },
  };
}

/**
 * A profile named on the command line or in SVC_PROFILE that the config file does not hold is a typo (exit 2 with
 * the closest name), not "no API key": unless the key comes from the environment, where a profile need not exist.
 */
function checkProfileExists(cfg: ResolvedConfig): void {
  if (cfg.profileExists || cfg.apiKeySource === 'env') return;
  if (cfg.profileSource !== 'flag' && cfg.profileSource !== 'environment') return;
  const flag = cfg.profileSource === 'flag' ? '--profile' : 'SVC_PROFILE';
  throw new UsageError(
    `${flag}: profile ${cfg.profile} does not exist${didYouMean(cfg.profile, cfg.profiles)}; profiles: ` +
      `${cfg.profiles.join(', ') || '(none)'} (svc auth login --profile ${cfg.profile} makes it)`,
  );
}

/** The config (flags over env over file), resolved on first use, and the endpoint it leads to. */
function connection(init: ContextInit, onExit: (fn: () => void | Promise<void>) => void) {
  let config: ResolvedConfig | undefined;
  let endpoint: Promise<Endpoint> | undefined;
  const getConfig = (): ResolvedConfig => {
    const { profile, baseUrl, timeout, maxRetries, proxy } = init.globals;
    config ??= resolveConfig({ env: init.env, flags: { profile, baseUrl, timeout, maxRetries, proxy } });
    return config;
  };
  const keyless = async (cfg: ResolvedConfig): Promise<Endpoint> => {
    checkProfileExists(cfg);
    checkBaseUrl(cfg.baseUrl, init.env);
    return { baseUrl: cfg.baseUrl, apiKey: cfg.apiKey };
  };
  const resolve: EndpointResolver =
    init.endpoint ??
    (async (cfg) => {
      const ep = await keyless(cfg);
      if (ep.apiKey || !cfg.apiKeyCommand) return ep;
      const { keyFromCommand } = await import('./key-command.js');
      return {
        baseUrl: cfg.baseUrl,
        apiKey: await keyFromCommand(cfg.apiKeyCommand, init.env, `profile ${cfg.profile}`),
      };
    });
  /**
   * The endpoint; `needsKey` false (the emulator's admin calls): the base URL without running api_key_cmd — a
   * password manager's prompt for a call that sends no key would be for nothing.
   */
  const getEndpoint = (needsKey = true): Promise<Endpoint> =>
    needsKey || init.endpoint || endpoint ? (endpoint ??= resolve(getConfig(), onExit)) : keyless(getConfig());
  return { getConfig, getEndpoint };
}

export function createContext(init: ContextInit): Context & { runExitHooks(): Promise<void> } {
  const out = new Output(init.streams, {
    json: !!init.globals.json || !!init.globals.jq,
    jq: init.globals.jq,
    fields: init.globals.jsonFields,
    quiet: !!init.globals.quiet,
    verbose: !!init.globals.verbose,
    color: init.globals.color,
    env: init.env,
  });
  const exitHooks = exitHookList();
  const { getConfig, getEndpoint } = connection(init, exitHooks.add);
  let client: Promise<HttpClient> | undefined;
  const wiring: Wiring = {
    init,
    out,
    getConfig,
    getEndpoint,
    log: callLog(init, out, getConfig, exitHooks.add, () => client),
    trace: init.globals.verbose
      ? (init.trace ?? ((line: string) => out.stderrWrite(`${out.ce.dim(line)}\n`)))
      : undefined,
    userAgent: `svc-cli/${init.version} node/${process.versions.node} ${process.platform}`,
    onExit: exitHooks.add,
  };

  return {
    streams: init.streams,
    out,
    globals: init.globals,
    env: init.env,
    signal: init.signal,
    version: init.version,
    givenOptions: init.givenOptions ?? [],
    config: getConfig,
    async http(opts = {}) {
      if (opts.apiKey) return newHttpClient(wiring, opts.apiKey);
      if (opts.requireKey === false && !client) return newHttpClient(wiring, undefined, false);
      const c = await (client ??= newHttpClient(wiring));
      if (opts.requireKey !== false && !c.opts.apiKey) throw new MissingKeyError(NO_KEY);
      return c;
    },
    ws: (path, query, opts = {}) => openWs(wiring, path, query, opts),
    async apiKey() {
      const ep = await getEndpoint();
      if (!ep.apiKey) throw new MissingKeyError(NO_KEY);
      return ep.apiKey;
    },
    setInterruptHandler: init.setInterruptHandler,
    runExitHooks: exitHooks.run,
    // text from stdin is valid UTF-8 or refused (exit 2), never sent with U+FFFD in place of what it could not read
    readStdin: async () => utf8Text(await readAll(init.streams.stdin), 'stdin'),
    readStdinBytes: () => readAll(init.streams.stdin),
    now: () => Date.now(),
    logCall: (details) => wiring.log.recorder?.details(details),
    logsCalls: () => !!wiring.log.recorder,
    derive: (over) =>
      createContext({
        ...init,
        ...over,
        setInterruptHandler: () => {},
        exitsAfterRun: false,
        emulated: emulated(init),
        endpoint: () => getEndpoint(),
      }),
    tagCalls: (tags) => wiring.log.recorder?.tagBatch(tags.batch),
    costOf: (model, usage) => wiring.log.costOf(model, usage),
    reserveSpend: (path, body) => wiring.log.reserve(path, body),
  };
}

/** What the context's HTTP clients and sockets are made from. */
interface Wiring {
  init: ContextInit;
  out: Output;
  getConfig(): ResolvedConfig;
  getEndpoint(needsKey?: boolean): Promise<Endpoint>;
  log: ReturnType<typeof callLog>;
  /** the --verbose trace sink */
  trace: ((line: string) => void) | undefined;
  userAgent: string;
  onExit(fn: () => void | Promise<void>): void;
}

/** An HTTP client on the endpoint (with the endpoint's key, or `apiKey`), its calls logged. */
async function newHttpClient(w: Wiring, apiKey?: string, needsKey = true): Promise<HttpClient> {
  const cfg = w.getConfig();
  const ep = await w.getEndpoint(needsKey);
  await w.log.start();
  const c = new HttpClient({
    onCall: w.log.recorder?.onCall,
    onReply: w.log.recorder?.onReply,
    onStreamEvent: w.log.recorder?.onStreamEvent,
    onCallFailed: w.log.recorder?.onCallFailed,
    baseUrl: ep.baseUrl,
    apiKey: apiKey ?? ep.apiKey,
    userAgent: w.userAgent,
    timeoutMs: cfg.timeoutSec * 1000,
    maxRetries: cfg.maxRetries,
    trace: w.trace,
    signal: w.init.signal,
    allowInsecureHttp: allowsInsecureHttp(w.init.env),
    // without --verbose (whose trace says it already) a retry's wait is a note on stderr, silenced by -q
    onRetry: w.trace ? undefined : (note) => w.out.info(note),
    network: cfg.network,
    onWarn: (note) => w.out.warn(note),
  });
  // --budget-strict refuses a call that may cost before it is sent; reads and deletions cost nothing
  const request = c.request.bind(c);
  // and, with a daily budget, reserves the worst case of each such call before it goes, across processes
  c.request = async (req) => {
    w.log.refuseBillable(req.method);
    const strict = w.init.globals.budgetStrict && req.method !== 'GET' && req.method !== 'HEAD';
    const spend = strict ? await w.log.reserve(new URL(req.path, 'http://x').pathname, req.json) : undefined;
    return spend ? spend(() => request(req)) : request(req);
  };
  // a process about to exit leaves its sockets to the system: closing undici's pool cost ~1.5 ms CPU per command
  if (!w.init.exitsAfterRun) w.onExit(() => c.close());
  return c;
}

/** A WebSocket on the endpoint, its session logged (ctx.ws). */
async function openWs(
  w: Wiring,
  path: string,
  query: Query | undefined,
  opts: { subprotocol?: string; apiKey?: string },
): Promise<WsConnection> {
  const cfg = w.getConfig();
  const ep = await w.getEndpoint();
  const apiKey = opts.apiKey ?? ep.apiKey;
  if (!apiKey) throw new MissingKeyError(NO_KEY);
  await w.log.start();
  w.log.refuseBillable('WS');
  await w.log.recorder?.readySessions();
  const { connectWs } = await import('../net/ws.js');
  return connectWs({
    baseUrl: ep.baseUrl,
    path,
    query,
    apiKey,
    subprotocol: opts.subprotocol,
    userAgent: w.userAgent,
    signal: w.init.signal,
    trace: w.trace,
    handshakeTimeoutMs: cfg.timeoutSec * 1000,
    idleTimeoutMs: cfg.timeoutSec * 1000,
    watch: w.log.recorder?.onWsOpen,
    maxRetries: cfg.maxRetries,
    onRetry: w.trace ? undefined : (note) => w.out.info(note),
    network: cfg.network,
    onWarn: (note) => w.out.warn(note),
    allowInsecureHttp: allowsInsecureHttp(w.init.env),
  });
}

/**
 * The call log of this run (unless --no-log or `log false`): started before the first request or socket (the daily
 * budget is checked then, before anything is sent), written at exit, costs priced from the catalogue when needed.
 */
/** The catalogue's prices, for records whose usage the API did not price (a request of its own, not logged). */
async function catalogueOf(
  client: () => Promise<HttpClient> | undefined,
  onEmulated: () => void = () => {},
): Promise<unknown> {
  const c = await client();
  if (!c) return undefined;
  const catalogue = new HttpClient({
    ...c.opts,
    onCall: (call) => void (call.emulated && onEmulated()),
    onReply: undefined,
    onStreamEvent: undefined,
    onCallFailed: undefined,
    maxRetries: 0,
  });
  try {
    // every kind that bills: tokens (language, embedding), images and seconds of video; only the first is required
    const [language, ...others] = await Promise.all([
      catalogue.json<{ models?: unknown[] }>('GET', '/v1/language-models'),
      ...['embedding-models', 'image-generation-models', 'video-generation-models'].map((kind) =>
        catalogue.json<{ models?: unknown[] }>('GET', `/v1/${kind}`).catch(() => undefined),
      ),
    ]);
    return { models: [language, ...others].flatMap((l) => (Array.isArray(l?.models) ? l.models : [])) };
  } finally {
    await catalogue.close();
  }
}

/**
 * The records still held by runs of this process, written by one `exit` listener however many run at once (each
 * call of svc mcp serve is a run: a listener each went past Node's 10 and warned on the user's stderr).
 */
const heldRecords = new Set<() => void>();
const flushHeldRecords = () => {
  for (const flush of heldRecords) flush();
  heldRecords.clear();
};
function flushAtExit(flushNow: () => void): () => void {
  if (!heldRecords.size) process.once('exit', flushHeldRecords);
  heldRecords.add(flushNow);
  return () => {
    if (heldRecords.delete(flushNow) && !heldRecords.size) process.removeListener('exit', flushHeldRecords);
  };
}

/**
 * budget.daily's reservations (apilog/budget): a request's worst case, from the catalogue's prices (cached, else
 * fetched: a catalogue an emulator answered makes the calls free), reserved before it is sent.
 */
function budgetReserver(
  init: ContextInit,
  getConfig: () => ResolvedConfig,
  client: () => Promise<HttpClient> | undefined,
  recorder: () => CallRecorder | undefined,
) {
  /** the prices the budget's reservations are worked out with, and whether the endpoint is an emulator (free) */
  let budgetPrices: Promise<{ prices?: Prices; emulator: boolean }> | undefined;
  const pricesForBudget = async () => {
    const cached = cachedPrices(init.env, Date.now());
    if (cached) return { prices: cached, emulator: false };
    let emulator = false;
    try {
      const prices = pricesFromCatalogue(await catalogueOf(client, () => (emulator = true)), Date.now());
      if (!emulator) savePrices(init.env, prices);
      return { prices, emulator };
    } catch {
      return { emulator }; // no prices: a call that bills a model is refused, its cost having no bound
    }
  };
  return async (path: string, body: unknown): Promise<Spend | undefined> => {
    const budget = getConfig().profileData['budget.daily'];
    const rec = recorder();
    if (budget === undefined || emulated(init) || !rec || !body || typeof body !== 'object') return undefined;
    const { prices, emulator } = await (budgetPrices ??= pricesForBudget());
    const ledger = await import('../apilog/budget.js');
    const cost = emulator ? undefined : ledger.worstCase(prices, path, body);
    if (!cost) return undefined;
    const id = ledger.reserve(logDir(init.env), Number(budget), cost);
    return (send) => rec.spend(id, ledger.release, send);
  };
}

function callLog(
  init: ContextInit,
  out: Output,
  getConfig: () => ResolvedConfig,
  onExit: (fn: () => void | Promise<void>) => void,
  client: () => Promise<HttpClient> | undefined,
) {
  let recorder: CallRecorder | undefined;
  /** --budget-strict over the budget: why a billable call is refused (free ones, like listing files, still go) */
  let refusal: string | undefined;
  const checkBudget = async (budget: string | undefined): Promise<void> => {
    // emulated calls cost nothing
    if (budget === undefined || emulated(init)) return;
    const spent = spentToday(logDir(init.env), new Date());
    if (spent < Number(budget)) return;
    const msg = `today's spend $${spent.toFixed(4)} has reached budget.daily $${budget}`;
    if (init.globals.budgetStrict)
      refusal = `--budget-strict: ${msg}; nothing was sent (raise it with \`svc config set budget.daily N\`)`;
    else out.warn(msg);
  };
  const fetchCatalogue = () => catalogueOf(client);
  const start = async (): Promise<void> => {
    if (recorder || init.globals.log === false) return;
    const cfg = getConfig();
    if (cfg.profileData.log === 'false') return;
    const { CallRecorder } = await import('../apilog/recorder.js');
    await checkBudget(cfg.profileData['budget.daily']);
    const rec = (recorder = new CallRecorder(
      init.env,
      init.command ?? '',
      Number(cfg.profileData['log.retention_days'] ?? DEFAULT_RETENTION_DAYS),
      emulated(init),
    ));
    // the run's outcome stands when its record cannot be written (a full disk, no folder for it), but it is said
    const unlogged = (err: unknown) => out.warn(`this run is not in the call log: ${describeError(err)}`);
    // a process that ends before the exit hooks finish (a second Ctrl-C) still writes what it holds
    const done = flushAtExit(() => {
      try {
        rec.flushNow();
      } catch (err) {
        unlogged(err);
      }
    });
    onExit(async () => {
      try {
        await rec.flush(fetchCatalogue);
      } catch (err) {
        unlogged(err);
      } finally {
        done();
      }
    });
  };
  return {
    start,
    get recorder(): CallRecorder | undefined {
      return recorder;
    },
    /** the catalogue's price of a usage: the cached prices (not an emulator's run), else the catalogue asked */
    async costOf(model: string | undefined, usage: unknown): Promise<number | undefined> {
      const u = normalizeUsage(usage);
      if (!u) return undefined;
      let prices = init.endpoint ? undefined : cachedPrices(init.env, Date.now());
      try {
        prices ??= pricesFromCatalogue(await fetchCatalogue(), Date.now());
      } catch {
        return undefined;
      }
      return priceCost(prices, model, { usage: u });
    },
    /** budget.daily: the worst case of a request reserved; what runs its send under the reservation */
    reserve: budgetReserver(init, getConfig, client, () => recorder),
    /** throws the --budget-strict refusal for a call that may cost (a body sent, a session opened) */
    refuseBillable(method: string): void {
      if (refusal && method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') throw new BudgetError(refusal);
    },
  };
}
