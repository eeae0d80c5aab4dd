// Tools of a voice session: definitions from `--tool FILE` (one tool or an array; flat or nested form) and
// from a stored agent, bound to local commands with `--tool-cmd NAME=COMMAND` (src/cmdutil/local-tools.ts).
import type { ToolCommand } from '../cmdutil/local-tools.js';
import { readFunctionToolFile } from '../cmdutil/tool-file.js';
import { flatTool } from '../endpoints/realtime.js';

/**
 * The `--tool FILE` parser: repeatable; each file holds one function tool or an array (cmdutil/tool-file), sent flat.
 */
export function toolFileParser(
  raw: string,
  flag: string,
  previous: Record<string, any>[] | undefined,
): Record<string, any>[] {
  const list = readFunctionToolFile(raw, flag).map((t) => flatTool(t as unknown as Record<string, any>));
  return [...(previous ?? []), ...list];
}

/**
 * The session's tool list: the agent's tools, then `--tool` files (a file replaces an agent tool of the same
 * name), then a generic definition for every `--tool-cmd` name that has none.
 */
export function sessionTools(
  agentTools: Record<string, any>[],
  fileTools: Record<string, any>[],
  commands: ToolCommand[],
): Record<string, any>[] {
  const out = new Map<string, Record<string, any>>();
  const others: Record<string, any>[] = [];
  for (const t of [...agentTools, ...fileTools]) {
    if (t?.type === 'function' && typeof t.name === 'string') out.set(t.name, t);
    else others.push(t);
  }
  for (const c of commands) {
    if (!out.has(c.name)) {
      out.set(c.name, {
        type: 'function',
        name: c.name,
        description: `Runs the local command bound to ${c.name}; pass its input as the arguments object`,
        parameters: { type: 'object', properties: {}, additionalProperties: true },
      });
    }
  }
  return [...out.values(), ...others];
}
