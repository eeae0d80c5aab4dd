// Imports point one way. The CLI: cli → commands → (agent-tests → realtime → mcp; batch; completion; store) →
// endpoints → audio, then its rooms: cmdutil (what commands are built from) → runtime (context, config) → apilog
// (the local log of API calls) → net (HTTP, SSE, WebSocket) → term (output, colour, tables) → core (errors,
// checks, option specs, files).
// The CLI may use the emulator and the formats package; the emulator uses only the formats package (and its package
// dependency list says so, test/repo/packages.test.ts). A command imports no other command; endpoints take narrow
// functions, not the command Context; no module cycle exists. Type-only and dynamic imports count for the
// direction: a lazy import is still a dependency.
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';
import { cyclesOf, isSource, readSourceGraph } from '../helpers/source-graph.js';

/**
 * Back edges on main when this test was written, each being removed by the engineer named. The test fails on any
 * edge not listed here AND on a listed edge that no longer exists: delete its line when you remove the import, so
 * the list shrinks to empty.
 */
const KNOWN_BACK_EDGES: string[] = [];

const LAYERS = [
  'cli',
  'commands',
  'agent-tests',
  'realtime',
  'mcp',
  'batch',
  'completion',
  'store',
  'endpoints',
  'audio',
  'cmdutil',
  'runtime',
  'apilog',
  'net',
  'term',
  'core',
  'emulator',
  'formats',
] as const;
type Layer = (typeof LAYERS)[number];

function layerOf(file: string): Layer {
  if (file === 'src/cli.ts' || file === 'src/help.ts') return 'cli';
  const top = file.startsWith('packages/') ? file.split('/')[1]! : file.split('/')[1]!;
  if ((LAYERS as readonly string[]).includes(top)) return top as Layer;
  throw new Error(`${file}: a module outside the known layers; add its folder to this test`);
}

/** The CLI's rooms, bottom last: each may import those after it. */
const ROOMS: Layer[] = ['cmdutil', 'runtime', 'apilog', 'net', 'term', 'core'];
const below = (room: Layer): Layer[] => [...ROOMS.slice(ROOMS.indexOf(room) + 1), 'formats'];

/** What each layer may import besides itself. */
const ALLOWED: Record<Layer, Layer[]> = {
  // cli.ts hands the emulator to the runtime for --emulator
  cli: ['commands', ...ROOMS, 'emulator'],
  commands: [
    'agent-tests',
    'realtime',
    'mcp',
    'batch',
    'completion',
    'store',
    'endpoints',
    'audio',
    ...ROOMS,
    'emulator',
    'formats',
  ],
  'agent-tests': ['realtime', 'endpoints', 'audio', ...ROOMS, 'formats'],
  realtime: ['mcp', 'endpoints', 'audio', ...ROOMS, 'formats'],
  // the MCP server (tools that run commands given by the tree) and the MCP client that lends tools to a model
  mcp: ['endpoints', 'audio', ...ROOMS, 'formats'],
  // the runner of `svc batch` (inputs, journal, pacing, output): endpoints and the rooms, no command
  batch: ['endpoints', ...ROOMS, 'formats'],
  completion: ['cmdutil', 'core'],
  // local files of the CLI (conversations, in the API's message shapes): not API
  store: ['endpoints', 'core', 'formats'],
  // the emulator's admin API is the emulator's own contract: its types come from its package
  endpoints: ['audio', 'net', 'term', 'core', 'formats', 'emulator'],
  audio: ['net', 'term', 'core', 'formats'],
  cmdutil: below('cmdutil'),
  // runtime/emulator-endpoint.ts: where --emulator sends requests (started lazily), for cli.ts and completion alike
  runtime: [...below('runtime'), 'emulator'],
  apilog: below('apilog'),
  net: below('net'),
  term: below('term'),
  core: below('core'),
  emulator: ['formats'],
  formats: [],
};

/** The command machinery (specs, the runner's Context): for commands and the realtime runner, not for endpoints. */
const COMMAND_MACHINERY: Layer[] = ['cmdutil', 'runtime'];

/** A command's folder (src/commands/<resource>/…); the tree (src/commands/index.ts) links them all. */
const commandFolder = (file: string) => (/^src\/commands\/([^/]+)\//.exec(file) ?? [])[1];

function backEdge(from: string, to: string): string | undefined {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a !== b && !ALLOWED[a].includes(b)) return `${a} may not import ${b}`;
  if (a === 'endpoints' && COMMAND_MACHINERY.includes(b))
    return 'endpoints take narrow functions, not the command machinery';
  if (a === 'commands' && b === 'commands' && to !== 'src/commands/index.ts') {
    const fa = commandFolder(from);
    const fb = commandFolder(to);
    if (fb !== undefined && fa !== fb && from !== 'src/commands/index.ts') return 'a command imports no other command';
  }
  return undefined;
}

const graph = readSourceGraph(ROOT);
const srcImports = graph.imports.filter((i) => isSource(i.from) && i.from !== i.to);

describe('import direction', () => {
  it('no import points against the grain, except the listed ones being removed', () => {
    const found = new Map<string, string>();
    for (const i of srcImports) {
      const why = backEdge(i.from, i.to);
      if (why) found.set(`${i.from} -> ${i.to}`, why);
    }
    const unlisted = [...found]
      .filter(([edge]) => !KNOWN_BACK_EDGES.includes(edge))
      .map(([edge, why]) => `${edge} (${why})`);
    expect(unlisted, 'new back edges').toEqual([]);
    const gone = KNOWN_BACK_EDGES.filter((edge) => !found.has(edge));
    expect(gone, 'listed back edges that no longer exist: delete them from KNOWN_BACK_EDGES').toEqual([]);
  });

  // Cycles of the modules Node loads together: a type-only import vanishes at run time and a lazy import() loads
  // after its importer has finished (the completion command reads the command tree that lists it).
  it('no module cycle among the static imports', () => {
    const next = new Map<string, string[]>();
    for (const i of srcImports) if (!i.typeOnly && !i.dynamic) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
    expect(cyclesOf(next)).toEqual([]);
  });

  it('the rules catch a back edge (the checker itself works)', () => {
    expect(backEdge('src/net/http.ts', 'src/endpoints/chat.ts')).toMatch(/net may not import endpoints/);
    expect(backEdge('src/core/option-spec.ts', 'src/cmdutil/command.ts')).toMatch(/core may not import cmdutil/);
    expect(backEdge('src/term/output.ts', 'src/runtime/context.ts')).toMatch(/term may not import runtime/);
    expect(backEdge('src/endpoints/chat.ts', 'src/runtime/context.ts')).toMatch(/endpoints may not import runtime/);
    expect(backEdge('packages/emulator/src/routes/chat.ts', 'src/commands/chat/create.ts')).toMatch(
      /emulator may not import commands/,
    );
    expect(backEdge('packages/formats/src/webhooks.ts', 'packages/emulator/src/http/server.ts')).toMatch(
      /formats may not import emulator/,
    );
    expect(backEdge('src/commands/a/x.ts', 'src/commands/b/y.ts')).toMatch(/no other command/);
    expect(backEdge('src/commands/chat/create.ts', 'src/endpoints/chat.ts')).toBeUndefined();
    expect(srcImports.length).toBeGreaterThan(100);
  });
});
