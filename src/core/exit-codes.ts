// What each exit code means, once: `svc --help`'s footer (label), `svc help exit-codes` (meaning); the README and
// docs/scripting.md are checked against it (test/core/exit-codes.test.ts).
/** The exit codes (core/errors.ts maps errors to them); kept here so that help loads no error class. */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  cancelled: 3,
  auth: 4,
  notFound: 5,
  rateLimited: 6,
  server: 7,
  /**
   * a call refused, or a batch stopped sending, at its budget (--budget, budget.daily with --budget-strict, MCP):
   * nothing more was sent; a batch keeps what was done and --resume goes on
   */
  budget: 8,
  interrupted: 130,
  /** 128 + the signal's number */
  hangup: 129,
  terminated: 143,
} as const;

type ExitName = keyof typeof ExitCode;

const EXIT_CODE_TEXT: Record<ExitName, { label: string; meaning: string }> = {
  ok: { label: 'ok', meaning: 'done' },
  error: {
    label: 'error',
    meaning:
      'error: a failed request not listed below, a stream cut before its end marker, a --jq runtime error, a ' +
      'pending deferred result',
  },
  usage: {
    label: 'usage',
    meaning:
      'usage or validation error, nothing was sent (also: a confirmation needed off a terminal without --yes, ' +
      'a bad --jq expression)',
  },
  cancelled: { label: 'cancelled', meaning: 'cancelled: a confirmation was declined' },
  auth: { label: 'auth', meaning: 'authentication or permission (401, 403, no or unknown API key)' },
  notFound: { label: 'not found', meaning: 'not found (404)' },
  rateLimited: { label: 'rate limited', meaning: 'rate limited after the retries (429)' },
  server: { label: 'server error', meaning: 'server error after the retries (5xx)' },
  budget: {
    label: 'budget',
    meaning: 'the budget: a call refused, nothing sent (budget.daily), or svc batch stopped at it (--resume goes on)',
  },
  interrupted: { label: 'interrupted', meaning: 'interrupted (Ctrl-C); what was printed is kept' },
  hangup: { label: 'hangup', meaning: 'the terminal went away (SIGHUP)' },
  terminated: { label: 'terminated', meaning: 'terminated (SIGTERM)' },
};

/** Every exit code, in numeric order, with its name, short label and meaning. */
export function exitCodes(): { code: number; name: ExitName; label: string; meaning: string }[] {
  return (Object.entries(ExitCode) as [ExitName, number][])
    .sort(([, a], [, b]) => a - b)
    .map(([name, code]) => ({ code, name, ...EXIT_CODE_TEXT[name] }));
}
