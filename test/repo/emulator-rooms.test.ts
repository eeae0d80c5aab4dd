// The emulator's rooms (packages/emulator/src): core (errors, the API document) → state (backend, keys, faults, the
// request log) → text, voice, realtime → http (server, router, request checks) → routes. A route module imports no
// other route module (what two routes share lives in a room below them); only the server reaches the routes, through
// routes/index.ts; and no import cycle exists among the emulator's modules, type-only imports included.
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';
import { cyclesOf, readSourceGraph } from '../helpers/source-graph.js';

const SRC = 'packages/emulator/src/';
/** the entry points that stay at the top of src/: the bin's main and the test fixture */
const TOP = ['main.ts', 'testing.ts'];
const ROOMS = ['core', 'state', 'text', 'voice', 'realtime', 'replay', 'http', 'routes'];

const graph = readSourceGraph(ROOT);
const files = graph.files.filter((f) => f.startsWith(SRC));
const imports = graph.imports.filter((i) => i.from.startsWith(SRC) && i.to.startsWith(SRC) && i.from !== i.to);
const isRoute = (file: string) => file.startsWith(`${SRC}routes/`);
const ROUTE_INDEX = `${SRC}routes/index.ts`;

/** An edge a route module may not have: to another route, or from outside routes/ to a route. */
function routeEdge(from: string, to: string): string | undefined {
  if (!isRoute(to)) return undefined;
  if (from === ROUTE_INDEX) return undefined;
  if (isRoute(from)) return 'a route imports no other route';
  if (to === ROUTE_INDEX && from === `${SRC}http/server.ts`) return undefined;
  return 'only the server reaches the routes, through routes/index.ts';
}

describe('emulator rooms', () => {
  it('every module lives in a room (main.ts and testing.ts stay at the top)', () => {
    const homeless = files.filter((f) => {
      const rest = f.slice(SRC.length);
      return !TOP.includes(rest) && !ROOMS.includes(rest.split('/')[0]!);
    });
    expect(homeless).toEqual([]);
    expect(files.length).toBeGreaterThan(50);
  });

  it('routes never import each other; only the server reaches them', () => {
    const found = imports.flatMap((i) => {
      const why = routeEdge(i.from, i.to);
      return why ? [`${i.from} -> ${i.to} (${why})`] : [];
    });
    expect(found).toEqual([]);
  });

  it('no import cycle among its modules, type-only and lazy imports included', () => {
    const next = new Map<string, string[]>();
    for (const i of imports) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
    expect(cyclesOf(next)).toEqual([]);
  });

  it('the rules catch a route importing a route (the checker itself works)', () => {
    expect(routeEdge(`${SRC}routes/videos.ts`, `${SRC}routes/files.ts`)).toMatch(/no other route/);
    expect(routeEdge(`${SRC}voice/calls.ts`, `${SRC}routes/phone.ts`)).toMatch(/only the server/);
    expect(routeEdge(`${SRC}routes/index.ts`, `${SRC}routes/files.ts`)).toBeUndefined();
    expect(routeEdge(`${SRC}http/server.ts`, ROUTE_INDEX)).toBeUndefined();
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    expect(imports.length).toBeGreaterThan(100);
  });
});
