// Each API resource is said once, in its descriptor (src/endpoints/resources.ts): every list command pages through
// one, and every completion kind the command tree offers is one a descriptor declares (or the config's profiles).
import { describe, expect, it } from 'vitest';
import { rootCommands } from '../../src/commands/index.js';
import { collectTree, flatten } from '../../src/completion/tree.js';
import { GLOBAL_OPTIONS } from '../../src/core/global-options.js';
import { RESOURCES, completionRoutes } from '../../src/endpoints/resources.js';
import { ROOT } from '../helpers/files.js';
import { readSourceGraph } from '../helpers/source-graph.js';

const DESCRIPTORS = 'src/endpoints/resources.ts';
const PAGINATOR = 'src/cmdutil/paginate.ts';

/** Lists of svc's own files, not of the API: no descriptor. */
const LOCAL_LISTS: Record<string, string> = {
  'src/commands/config/list.ts': 'the settings of the config file',
  'src/commands/conversations/list.ts': 'the conversations kept on disk',
  'src/commands/logs/list.ts': 'the local log of API calls',
  'src/commands/alias/list.ts': 'the aliases file (svc alias set)',
  'src/commands/templates/list.ts': 'the templates folder (svc templates save)',
  'src/commands/fragments/list.ts': 'the fragments folder (svc fragments save)',
};

describe('resource descriptors', () => {
  const graph = readSourceGraph(ROOT);
  const takes = (from: string, to: string, names?: string[]) =>
    graph.imports.some(
      ({ from: f, to: t, names: got }) =>
        f === from && t === to && (!names || got === 'all' || names.some((n) => got.has(n))),
    );

  it('every list command (a list.ts, or a command printing through the paginator) reads a descriptor', () => {
    const lists = graph.files.filter(
      (f) =>
        /^src\/commands\/.+\.ts$/.test(f) &&
        (/\/list\.ts$/.test(f) || takes(f, PAGINATOR, ['listRows', 'pageFlags', 'firstPageQuery'])),
    );
    expect(lists.length).toBeGreaterThanOrEqual(10);
    const local = lists.filter((f) => f in LOCAL_LISTS);
    expect(local.sort(), 'LOCAL_LISTS names list commands that exist').toEqual(Object.keys(LOCAL_LISTS).sort());
    const without = lists.filter((f) => !(f in LOCAL_LISTS) && !takes(f, DESCRIPTORS));
    expect(without, 'list commands that page without a descriptor').toEqual([]);
  });

  it('every completion kind of the command tree is a descriptor kind (or profiles), each declared once', async () => {
    const tree = flatten(await collectTree(rootCommands, GLOBAL_OPTIONS, completionRoutes()));
    const offered = new Set(
      tree.flatMap((n) => [n.argComplete, ...n.flags.map((f) => f.complete)]).filter((k) => k !== undefined),
    );
    const kinds = RESOURCES.flatMap((r) => (r.completion ? [r.completion.kind] : []));
    expect(new Set(kinds).size, 'a kind declared by two descriptors').toBe(kinds.length);
    expect([...offered].filter((k) => k !== 'profiles' && !kinds.includes(k))).toEqual([]);
    // each descriptor's id argument and flag are offered where they say
    for (const { completion: c } of RESOURCES) {
      if (c?.idsOf)
        expect(
          tree.some((n) => n.path[0] === c.idsOf && n.argComplete === c.kind),
          c.kind,
        ).toBe(true);
      if (c?.flag)
        expect(tree.some((n) => n.flags.some((f) => f.names.includes(c.flag!) && f.complete === c.kind))).toBe(true);
    }
  });
});
