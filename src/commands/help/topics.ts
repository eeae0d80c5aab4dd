// The help topics for scripts: environment (from the one list the code reads variables through), exit codes (one
// line per ExitCode), and the global options (from the one list every command takes).
import { ENVIRONMENT } from '../../core/environment.js';
import { ExitCode } from '../../core/errors.js';
import { GLOBAL_FLAGS } from '../../core/global-flags.js';
import { helpList, wrapHelpText } from '../../term/wrap.js';

export const EXIT_CODE_MEANINGS: Record<keyof typeof ExitCode, string> = {
  ok: 'done',
  error:
    'error: a failed request not listed below, a stream cut before its end marker, a --jq runtime error, a ' +
    'pending deferred result',
  usage:
    'usage or validation error, nothing was sent (also: a confirmation needed off a terminal without --yes, ' +
    'a bad --jq expression)',
  cancelled: 'cancelled: a confirmation was declined',
  auth: 'authentication or permission (401, 403, no or unknown API key)',
  notFound: 'not found (404)',
  rateLimited: 'rate limited after the retries (429)',
  server: 'server error after the retries (5xx)',
  budget: 'the budget: a call refused, nothing sent (budget.daily), or svc batch stopped at it (--resume goes on)',
  interrupted: 'interrupted (Ctrl-C); what was printed is kept',
  hangup: 'the terminal went away (SIGHUP)',
  terminated: 'terminated (SIGTERM)',
};

export interface Topic {
  name: string;
  summary: string;
  /** rows for --json (one per line) */
  rows(): Record<string, unknown>[];
  /** the text for people, for `columns` columns (default 80) */
  text(columns?: number): string;
}

export const TOPICS: Topic[] = [
  {
    name: 'environment',
    summary: 'every environment variable svc reads',
    rows: () => ENVIRONMENT.map((v) => ({ name: v.name, description: v.description })),
    text: (w = 80) =>
      wrapHelpText(
        `Environment variables svc reads (precedence: flag > environment > profile > ` +
          `default):\n\n${helpList(
            ENVIRONMENT.map((v) => [v.name, v.description]),
            w,
          )}\n`,
        w,
      ),
  },
  {
    name: 'exit-codes',
    summary: 'what each exit code means',
    rows: () =>
      Object.entries(ExitCode).map(([name, code]) => ({
        code,
        name,
        meaning: EXIT_CODE_MEANINGS[name as keyof typeof ExitCode],
      })),
    text: (w = 80) =>
      wrapHelpText(
        `Exit codes:\n\n${helpList(
          Object.entries(ExitCode)
            .sort(([, a], [, b]) => a - b)
            .map(([name, code]) => [String(code), EXIT_CODE_MEANINGS[name as keyof typeof ExitCode]]),
          w,
        )}\n`,
        w,
      ),
  },
  {
    name: 'globals',
    summary: 'the options every command takes',
    rows: () => GLOBAL_FLAGS.map((f) => ({ flags: f.flags, description: f.description })),
    text: (w = 80) =>
      wrapHelpText(
        `Options every command takes (before or after the command's ` +
          `own):\n\n${helpList(
            GLOBAL_FLAGS.map((f) => [f.flags, f.description]),
            w,
          )}\n`,
        w,
      ),
  },
];
