// The help topics for scripts: environment (from the one list the code reads variables through), exit codes (one
// line per ExitCode), and the global options (from the one list every command takes).
import { ENVIRONMENT } from '../../core/environment.js';
import { exitCodes } from '../../core/exit-codes.js';
import { GLOBAL_FLAGS } from '../../core/global-flags.js';
import { helpList, wrapHelpText } from '../../term/wrap.js';

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
    rows: () => exitCodes().map(({ code, name, meaning }) => ({ code, name, meaning })),
    text: (w = 80) =>
      wrapHelpText(
        `Exit codes:\n\n${helpList(
          exitCodes().map(({ code, meaning }) => [String(code), meaning]),
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
