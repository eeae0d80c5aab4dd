// The --mcp flag's values: command lines split into words as a shell would split plain words and quotes (the server
// is started without a shell), or the NAME of a server kept in the profile as the config key mcp.NAME. Loaded with
// the command's flags; the SDK's client (client.ts) only when a server starts.
import { UsageError } from '../core/errors.js';

export interface McpServerSpec {
  /** how it is named in messages: the config key's name, or the command line */
  label: string;
  command: string;
}

/** --mcp-max-result's default, in KiB: what of one tool result goes to the model. */
export const DEFAULT_MCP_MAX_RESULT_KIB = 1024;

/** A config key naming an MCP server: `mcp.NAME` (its value the command line). */
export const MCP_KEY = /^mcp\.([A-Za-z0-9_-]{1,64})$/;

/** Split a command line into words as a shell would for plain words and quotes (no expansion, no operators). */
export function commandWords(line: string, flag = '--mcp'): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) word = (word ?? '') + line[++i]!;
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (quote) throw new UsageError(`${flag}: ${line} is not allowed: a command line whose quotes close`);
  if (word !== undefined) words.push(word);
  if (!words.length) throw new UsageError(`${flag}: '' is not allowed: a command line that starts an MCP server`);
  return words;
}

/** The repeatable --mcp: each value a command line, or the NAME of a server kept in the config (mcp.NAME). */
export function mcpParser(raw: string, _flag: string, previous: string[] | undefined): string[] {
  commandWords(raw);
  return [...(previous ?? []), raw];
}

/** `--mcp NAME` is the configured server mcp.NAME, anything else a command line. */
export function resolveServers(given: string[], profile: Record<string, string | undefined>): McpServerSpec[] {
  return given.map((g) => {
    const configured = /^[A-Za-z0-9_-]+$/.test(g) ? profile[`mcp.${g}`] : undefined;
    return configured ? { label: g, command: configured } : { label: g, command: g };
  });
}
