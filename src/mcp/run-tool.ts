// One tool call of `svc mcp serve`: the agent's arguments become the command's arguments and option values (each
// through its flag's check, paths confined to the root), and the command runs in a context of its own (its own
// call-log record named after the tool and the agent, the budget enforced as --budget-strict does, output captured).
import { lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { CommandSpec } from '../cmdutil/command.js';
import type { OptionSpec } from '../core/option-spec.js';
import { UsageError, describeError } from '../core/errors.js';
import type { Context } from '../runtime/context.js';
import { applyFlag, flagSchema, longFlag, optionDefaults, propertyName, type JsonSchema } from './schema.js';
import type { Held, Root } from './root.js';
import type { ToolDef } from './tools.js';

/** A tool as offered: its definition, the command's spec, and the flags it exposes by property. */
export interface LoadedTool {
  def: ToolDef;
  spec: CommandSpec;
  flags: { property: string; spec: OptionSpec; tool: ToolDef['flags'][number] }[];
}

/** What the SDK's tools/call answers with (the MCP CallToolResult). */
export interface ToolResult {
  [key: string]: unknown;
  content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[];
  isError?: boolean;
}

export function loadTool(def: ToolDef, spec: CommandSpec): LoadedTool {
  const flags = def.flags.map((tool) => {
    const found = (spec.options ?? []).find((o) => longFlag(o.flags) === tool.flag);
    if (!found) throw new Error(`the MCP tool ${def.name}: svc ${def.command.join(' ')} has no ${tool.flag}`);
    return { property: propertyName(found.flags), spec: found, tool };
  });
  return { def, spec, flags };
}

/** The tool's input schema: its arguments, then its flags (with their checks' ranges and choices). */
export function inputSchema(t: LoadedTool): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const a of t.def.args) {
    properties[a.property] = a.list
      ? { type: 'array', items: { type: 'string' }, minItems: 1, description: a.description }
      : { type: 'string', description: a.description };
    if (a.required) required.push(a.property);
  }
  for (const f of t.flags) {
    const own = f.tool.description ?? f.spec.description;
    const description = f.tool.note ? `${own} ${f.tool.note}` : own;
    properties[f.property] = f.tool.schema ? { ...f.tool.schema, description } : flagSchema(f.spec, description);
    if (f.tool.required) required.push(f.property);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The command line's positional values and options for a call, and the files it holds open while it runs. */
interface Invocation {
  args: unknown[];
  opts: Record<string, unknown>;
  /** the command's text with the paths it was handed said as the agent knows them */
  shown(text: string, json: boolean): string;
  cleanup: () => void;
}

function checkProperties(t: LoadedTool, input: Record<string, unknown>): void {
  const known = new Set([...t.def.args.map((a) => a.property), ...t.flags.map((f) => f.property)]);
  for (const k of Object.keys(input))
    if (!known.has(k))
      throw new UsageError(`${k}: not an argument of ${t.def.name} (it takes ${[...known].join(', ')})`);
  for (const p of [...t.def.args, ...t.flags.map((f) => ({ property: f.property, required: f.tool.required }))])
    if (p.required && (input[p.property] === undefined || input[p.property] === ''))
      throw new UsageError(`${p.property}: required by ${t.def.name}`);
}

/** A free name for a file the agent did not name (`speech-N.mp3`), or the root itself for a folder. */
function defaultOutput(t: LoadedTool, root: Root): { path: string; folder: boolean } {
  const name = t.def.defaultOutput?.name;
  if (!name) return { path: root.real, folder: true };
  for (let n = 1; ; n++) {
    const p = join(root.real, name(n));
    if (!lstatSync(p, { throwIfNoEntry: false })) return { path: p, folder: false };
  }
}

function invocation(t: LoadedTool, input: Record<string, unknown>, root: Root): Invocation {
  checkProperties(t, input);
  const held: Held[] = [];
  const temp: string[] = [];
  const cleanup = () => {
    for (const h of held.splice(0)) h.close();
    for (const d of temp.splice(0)) rmSync(d, { recursive: true, force: true });
  };
  try {
    const shown = (text: string, json: boolean) => held.reduce((s, h) => h.shown(s, json), text);
    return { ...commandLine(t, input, root, { held, temp }), shown, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

interface OpenOpts {
  /** a folder to write in */
  folder?: boolean;
  /** a file read into memory: at most this many bytes */
  maxBytes?: number;
}

/** A path argument opened (and checked) once; the command is handed what was opened. */
function openPath(root: Root, held: Held[], value: string, what: string, mode: 'read' | 'write', o: OpenOpts = {}) {
  const h = mode === 'read' ? root.openRead(value, what, o.maxBytes) : root.openWrite(value, what, !!o.folder);
  held.push(h);
  return h.path;
}

/** The positional values and options of a call (a schema given as an object written to a file in `temp`). */
function commandLine(t: LoadedTool, input: Record<string, unknown>, root: Root, o: { held: Held[]; temp: string[] }) {
  const opts = { ...optionDefaults(t.spec.options ?? []), ...t.def.fixed };
  for (const f of t.flags) {
    let value = input[f.property];
    if (value === undefined && t.def.defaultOutput?.flag === f.tool.flag) {
      const d = defaultOutput(t, root);
      value = openPath(root, o.held, d.path, f.property, 'write', { folder: d.folder });
    } else if (value === undefined) continue;
    else if (f.property === 'schema' && value && typeof value === 'object' && !Array.isArray(value)) {
      const json = JSON.stringify(input[f.property]);
      if (f.tool.maxBytes !== undefined && Buffer.byteLength(json) > f.tool.maxBytes)
        throw new UsageError(
          `${f.property}: a JSON object of ${Buffer.byteLength(json)} bytes is not allowed: at most ${f.tool.maxBytes}`,
        );
      const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-'));
      o.temp.push(dir);
      value = join(dir, 'schema.json');
      writeFileSync(value as string, json, { mode: 0o600 });
    } else if (f.tool.path && typeof value === 'string')
      value = openPath(root, o.held, value, f.property, f.tool.path, { maxBytes: f.tool.maxBytes });
    applyFlag(opts, f.spec, value);
  }
  const args = t.def.args.map((a) => {
    const v = input[a.property];
    if (v === undefined) return a.list ? [] : undefined;
    if (a.list) {
      if (!Array.isArray(v) || !v.length || v.some((x) => typeof x !== 'string' || x === ''))
        throw new UsageError(`${a.property}: ${JSON.stringify(v)} is not allowed: a list of one or more texts`);
      return v;
    }
    if (typeof v !== 'string') throw new UsageError(`${a.property}: ${JSON.stringify(v)} is not allowed: a string`);
    const isUrl = a.path === 'path-or-url' && /^https?:\/\//i.test(v);
    const value = a.path && !isUrl ? openPath(root, o.held, v, a.property, 'read') : v;
    // a variadic argument of the command (a prompt's words) takes the whole text as one word
    return t.spec.args?.[t.def.args.indexOf(a)]?.variadic ? [value] : value;
  });
  return { args, opts };
}

/** A stream that keeps what is written (and passes it on: the command's notes reach the server's stderr). */
class Capture extends Writable {
  readonly isTTY = false;
  private readonly chunks: Buffer[] = [];
  constructor(forward?: (text: string) => void) {
    super({
      write: (chunk: Buffer | string, _enc, done) => {
        this.chunks.push(Buffer.from(chunk));
        forward?.(String(chunk));
        done();
      },
    });
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

function present(t: LoadedTool, stdout: string): ToolResult {
  const text = stdout.replace(/\n$/, '');
  if (t.def.result === 'chat') {
    const reply = JSON.parse(text) as { choices?: { message?: { content?: string | null } }[] };
    const answer = reply.choices?.[0]?.message?.content;
    return { content: [{ type: 'text', text: typeof answer === 'string' ? answer : text }] };
  }
  if (t.def.result === 'images') {
    const paths = text.split('\n').filter(Boolean);
    return {
      content: [
        { type: 'text', text: paths.join('\n') },
        ...paths.map((p) => ({
          type: 'image' as const,
          data: readFileSync(p).toString('base64'),
          mimeType: MIME[extname(p).toLowerCase()] ?? 'image/png',
        })),
      ],
    };
  }
  if (t.def.result === 'list') {
    // one JSON object per line → a list (an empty one when there is nothing), as text and as structured content
    const items = text ? text.split('\n').map((l) => JSON.parse(l) as unknown) : [];
    return { content: [{ type: 'text', text: JSON.stringify(items) }], structuredContent: { items } };
  }
  return { content: [{ type: 'text', text: text || '(done)' }] };
}

export interface CallOptions {
  root: Root;
  signal: AbortSignal;
  /** who called, for the call log: `mcp serve generate_text (claude-code)` */
  origin: string;
}

/**
 * A check's message in the agent's words: the checks name the command's flags, the agent knows them as properties
 * (`temperature (--temperature): 9 is not allowed…`; `… only together with language`).
 */
function asArguments(t: LoadedTool, why: string): string {
  const lead = t.flags.find((f) => why.startsWith(`${f.tool.flag}:`));
  const rest = lead ? why.slice(lead.tool.flag.length + 1) : why;
  const named = t.flags.reduce(
    (text, f) => text.replace(new RegExp(`${f.tool.flag}(?![a-z0-9-])`, 'g'), f.property),
    rest,
  );
  return lead ? `${lead.property} (${lead.tool.flag}):${named}` : named;
}

/** Run the tool's command; a refusal or a failure is a tool error (isError) whose text says why. */
export async function callTool(
  parent: Context,
  t: LoadedTool,
  input: Record<string, unknown>,
  o: CallOptions,
): Promise<ToolResult> {
  let inv: Invocation | undefined;
  const stdout = new Capture();
  const out = parent.out;
  // with -v the command's notes go on to the server's stderr (made safe there when it is a terminal)
  const stderr = new Capture(parent.globals.verbose ? (t) => out.stderrWrite(t) : undefined);
  const stdin = Object.assign(Readable.from([]), { isTTY: false, [Symbol.for('svc.nullDevice')]: true });
  const ctx = parent.derive({
    streams: { stdin, stdout, stderr },
    // the budget is a hard limit here (a call over it is refused, nothing sent); no notes, nothing asked
    globals: { ...parent.globals, json: t.def.json, jq: undefined, quiet: !parent.globals.verbose, budgetStrict: true },
    command: o.origin,
    signal: o.signal,
    // -v traces are the server's (its stderr), never part of what the agent is answered
    trace: (line) => out.stderrWrite(`${out.ce.dim(line)}\n`),
  });
  try {
    inv = invocation(t, input, o.root);
    await ctx.out.loadColors();
    const code = await t.spec.run(ctx, inv.args, inv.opts);
    if (code !== 0) throw new Error(stderr.text().trim() || `svc ${t.def.command.join(' ')} exited with ${code}`);
    const result = present(t, stdout.text());
    for (const c of result.content) if (c.type === 'text') c.text = inv.shown(c.text, t.def.json);
    return result;
  } catch (err) {
    let why = o.signal.aborted ? 'cancelled' : describeError(err);
    if (inv) why = inv.shown(why, false);
    why = asArguments(t, why);
    return { content: [{ type: 'text', text: `${t.def.name}: ${why}` }], isError: true };
  } finally {
    inv?.cleanup();
    await ctx.runExitHooks();
  }
}
