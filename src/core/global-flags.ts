// The options every command takes, as plain data (the top-level help reads this without loading any parser).
export const GLOBAL_FLAGS: readonly { flags: string; description: string }[] = [
  { flags: '--profile <name>', description: 'configuration profile to use (env SVC_PROFILE)' },
  { flags: '--base-url <url>', description: 'API base URL (env SVC_BASE_URL)' },
  { flags: '--emulator', description: 'run against the built-in local emulator (state kept between runs)' },
  { flags: '--json', description: 'print every field as the API sent it (lists and streams: one JSON value per line)' },
  {
    flags: '--jq <expr>',
    description: 'filter the JSON output through a jq expression (implies --json; strings print raw)',
  },
  {
    flags: '--timeout <seconds>',
    description: 'seconds to wait for a reply, and for each chunk of a stream (default 60)',
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
  { flags: '--budget-strict', description: "refuse to send (exit 2) once today's spend has reached budget.daily" },
];
