// What each exit code means, once: `svc --help`'s footer (label), `svc help exit-codes` (meaning); the README and
// docs/scripting.md are checked against it (test/core/exit-codes.test.ts).
import { ExitCode } from './errors.js';

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
