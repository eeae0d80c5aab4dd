// The help topics for scripts: environment (from the one list the code reads variables through), exit codes (one
// line per ExitCode), and the global options (from the one list every command takes).
import { ENVIRONMENT } from '../../core/environment.js';
import { exitCodes } from '../../core/exit-codes.js';
import { GLOBAL_FLAGS } from '../../core/global-flags.js';

export interface Topic {
  name: string;
  summary: string;
  /** rows for --json (one per line) */
  rows(): Record<string, unknown>[];
  /** the text for people */
  text(): string;
}

function columns(rows: [string, string][]): string {
  const pad = Math.max(...rows.map(([a]) => a.length)) + 2;
  return rows.map(([a, b]) => `  ${a.padEnd(pad)}${b}`).join('\n');
}

export const TOPICS: Topic[] = [
  {
    name: 'environment',
    summary: 'every environment variable svc reads',
    rows: () => ENVIRONMENT.map((v) => ({ name: v.name, description: v.description })),
    text: () =>
      `Environment variables svc reads (precedence: flag > environment > profile > ` +
      `default):\n\n${columns(ENVIRONMENT.map((v) => [v.name, v.description]))}\n`,
  },
  {
    name: 'exit-codes',
    summary: 'what each exit code means',
    rows: () => exitCodes().map(({ code, name, meaning }) => ({ code, name, meaning })),
    text: () => `Exit codes:\n\n${columns(exitCodes().map(({ code, meaning }) => [String(code), meaning]))}\n`,
  },
  {
    name: 'globals',
    summary: 'the options every command takes',
    rows: () => GLOBAL_FLAGS.map((f) => ({ flags: f.flags, description: f.description })),
    text: () =>
      `Options every command takes (before or after the command's ` +
      `own):\n\n${columns(GLOBAL_FLAGS.map((f) => [f.flags, f.description]))}\n`,
  },
];
