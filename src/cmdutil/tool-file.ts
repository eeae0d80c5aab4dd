// Tool definitions read from JSON files (`--tool FILE`), in any of the conventions' shapes, and the checks of a
// tool list and a tool choice. Commands turn the neutral definitions into their convention's shape.
import { readInputText } from '../core/input-file.js';
import { fail, require } from '../core/validate.js';

/** A function tool in chat's nested form (endpoints/chat's ChatTool has this shape). */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

/** A file's JSON, or a usage error naming the flag (unreadable file, invalid JSON). */
export function readJsonFile(flag: string, path: string): unknown {
  const text = readInputText(flag, path);
  try {
    return JSON.parse(text);
  } catch (err) {
    return fail(flag, path, `a file of valid JSON (${(err as Error).message})`);
  }
}

/** A tool of a type the server runs itself (e.g. `{"type": "web_search"}`), passed on as written. */
export interface HostedTool {
  type: string;
  [field: string]: unknown;
}

export type ToolEntry = ChatTool | HostedTool;

export interface ToolParseOptions {
  /** hosted tool types this convention accepts besides functions */
  hosted?: readonly string[];
}

export const MAX_TOOLS = 128;

export function isFunctionTool(t: ToolEntry): t is ChatTool {
  return t.type === 'function' && typeof (t as ChatTool).function === 'object';
}

/**
 * One tool or an array of them. A function tool may be written in chat's nested form
 * (`{type: function, function: {name, parameters}}`), the flat form (`{type?: function, name, parameters}`) or the
 * messages form (`{name, description, input_schema}`); all become chat's nested form.
 */
export function readToolFile(raw: string, flag: string, opts: ToolParseOptions = {}): ToolEntry[] {
  const data = readJsonFile(flag, raw);
  const list = Array.isArray(data) ? data : [data];
  if (!list.length) fail(flag, raw, 'a file holding a tool or a non-empty array of tools (it holds [])');
  return list.map((t: any, i): ToolEntry => {
    if (t && typeof t === 'object' && typeof t.type === 'string' && t.type !== 'function') {
      if (opts.hosted?.includes(t.type)) return t as HostedTool;
      const allowed = ['function', ...(opts.hosted ?? [])].join(', ');
      return fail(flag, `${raw}[${i}]`, `a tool of type ${allowed} (got ${JSON.stringify(t.type)})`);
    }
    const fn = t?.type === 'function' && t.function ? t.function : t;
    if (!fn || typeof fn.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
      fail(
        flag,
        `${raw}[${i}]`,
        'a function tool {type: "function", name, description, parameters} with a name of letters, digits, _ ' +
          'or - (at most 64)',
      );
    }
    const parameters = fn.parameters ?? fn.input_schema ?? { type: 'object', properties: {} };
    if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
      fail(flag, `${raw}[${i}]`, 'parameters (or input_schema) that is a JSON schema object');
    return {
      type: 'function',
      function: {
        name: fn.name,
        description: fn.description,
        parameters,
        ...(fn.strict !== undefined ? { strict: fn.strict } : {}),
      },
    };
  });
}

/** Function tools only (conventions without hosted tools). */
export function readFunctionToolFile(raw: string, flag: string): ChatTool[] {
  return readToolFile(raw, flag) as ChatTool[];
}

/** The name a tool choice can force: a function's name, or a hosted tool's type. */
export function toolName(t: ToolEntry): string {
  return isFunctionTool(t) ? t.function.name : t.type;
}

/**
 * The tools of all --tool files: at most 128, unique names; and a --tool-choice that is one of `keywords` (read only
 * when a choice is given: they may load api-facts) or the name of a given function. `needsTools` is the keyword that
 * requires at least one tool (required / any).
 */
export function checkTools(
  files: ToolEntry[][] | undefined,
  choice: string | undefined,
  keywords: () => readonly string[],
  needsTools: string,
): ToolEntry[] {
  const tools = (files ?? []).flat();
  require(tools.length <= MAX_TOOLS, '--tool', `${tools.length} tools`, `at most ${MAX_TOOLS} tools in all`);
  const names = new Set<string>();
  for (const t of tools) {
    if (!isFunctionTool(t)) continue;
    require(!names.has(t.function.name), '--tool', t.function.name, 'tool names that are unique');
    names.add(t.function.name);
  }
  if (choice !== undefined) {
    require(keywords().includes(choice) ||
      names.has(choice), '--tool-choice', choice, `${keywords().join(', ')}, or the name of a --tool ` +
      `function${names.size ? ` (${[...names].join(', ')})` : ''}`);
    require(choice !== needsTools ||
      tools.length > 0, '--tool-choice', choice, `${needsTools} needs at least one --tool`);
  }
  return tools;
}
