// The options every command takes, as plain data (the top-level help reads this without loading any parser), and
// the names and types of their values derived from it: a flag added here is a typed global option everywhere.
export const GLOBAL_FLAGS = [
  { flags: '--profile <name>', description: 'configuration profile to use (env SVC_PROFILE)' },
  { flags: '--base-url <url>', description: 'API base URL (env SVC_BASE_URL)' },
  { flags: '--emulator', description: 'run against the built-in local emulator (state kept between runs)' },
  {
    flags: '--json',
    description:
      'print every field as the API sent it (lists and streams: one JSON value per line); --json a,b: those fields',
  },
  {
    flags: '--jq <expr>',
    description: 'filter the JSON output through a jq expression (implies --json; strings print raw)',
  },
  {
    flags: '--timeout <seconds>',
    description: 'seconds to wait for a reply, and for each chunk of a stream (default 60)',
  },
  {
    flags: '--proxy <url>',
    description: "proxy for every connection (http://[user:pass@]host:port; '' for none), before HTTPS_PROXY",
  },
  { flags: '--max-retries <n>', description: 'retries on 429 (and on 408/409/5xx for GET) (default 2)' },
  { flags: '-q, --quiet', description: 'no progress or notes on stderr' },
  { flags: '-v, --verbose', description: 'trace requests and replies on stderr (secrets redacted)' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR=1)' },
  {
    flags: '--no-input',
    description:
      'never ask: a command that would prompt fails with exit 2 (also SVC_NO_INPUT=1; implied when CI is set)',
  },
  {
    flags: '--no-log',
    description: 'do not record this run in the call log (svc logs; `svc config set log false` for always)',
  },
  {
    flags: '--with-stdin',
    description: "join piped stdin to the prompt words even where it seems a loop's (docs/scripting.md)",
  },
  {
    flags: '--no-stdin',
    description: 'never read stdin, as if it were /dev/null (for loops and pipes left open; docs/scripting.md)',
  },
  {
    flags: '--budget-strict',
    description: 'refuse a paid call (exit 8) whose worst case does not fit in what budget.daily has left today',
  },
] as const satisfies readonly { flags: string; description: string }[];

/** A global flag as written in GLOBAL_FLAGS: '--max-retries <n>', '-q, --quiet', '--no-color' … */
export type GlobalFlag = (typeof GLOBAL_FLAGS)[number]['flags'];

/** '-q, --quiet' → 'quiet', '--max-retries <n>' → 'max-retries' */
type LongName<F extends string> = F extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/**
 * The key of a flag's value, as commander names it: '--max-retries <n>' → maxRetries, '--no-color' → color (at run
 * time option-spec's attributeName(flagName(flags)), the one reading of every flag's key).
 */
export type FlagKey<F extends string> = CamelCase<LongName<F> extends `no-${infer Name}` ? Name : LongName<F>>;

/**
 * The global options' values by key: `Parsed` gives the type a flag's parser returns (core/global-options.ts);
 * without one a flag that takes a value gives its word, any other a boolean (false for a --no- flag).
 */
export type GlobalFlagValues<Parsed extends { [F in GlobalFlag]?: unknown } = Record<never, never>> = {
  [F in GlobalFlag as FlagKey<F>]?: F extends keyof Parsed
    ? Parsed[F]
    : F extends `${string}<${string}`
      ? string
      : boolean;
};
