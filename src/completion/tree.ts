// The whole command tree with every flag, for shell completion, docs/commands.md and the man pages (loads every
// command module: never at start-up).
import type { CommandNode, CommandSpec } from '../cmdutil/command.js';
import type { CompletionKind, OptionSpec } from '../core/option-spec.js';

export interface FlagInfo {
  names: string[];
  /** the value placeholder as written in the spec, e.g. `<mic|file|->` (empty for switches) */
  value: string;
  takesValue: boolean;
  choices?: readonly string[];
  description: string;
  group?: string;
  /** dynamic values from `svc __complete` */
  complete?: CompletionKind;
}

export interface TreeNode {
  /** words from the root, e.g. ['files', 'list'] */
  path: string[];
  names: string[];
  summary: string;
  description?: string;
  flags: FlagInfo[];
  args: { name: string; description: string; required?: boolean; variadic?: boolean }[];
  examples: string[];
  argChoices?: readonly string[];
  /** dynamic values of the first positional argument */
  argComplete?: CompletionKind;
  children: TreeNode[];
}

/** What the resources' descriptors offer (endpoints/resources.ts `completionRoutes`). */
interface CompletionRoutes {
  /** kinds by the command group whose commands take those ids as their first (`id`) argument */
  ids: Record<string, CompletionKind>;
  /** kinds by the flag that takes those ids (`--agent`) */
  flags: Record<string, CompletionKind>;
}

/** Model kinds by the group a --model flag is in. */
const MODEL_KIND: Record<string, CompletionKind> = {
  images: 'models:image',
  videos: 'models:video',
  embed: 'models:embedding',
};

function flagCompletion(names: string[], path: string[], routes: CompletionRoutes): CompletionKind | undefined {
  if (names.includes('--profile')) return 'profiles';
  if (names.includes('--model')) return MODEL_KIND[path[0] ?? ''] ?? 'models:language';
  const flag = names.find((n) => Object.hasOwn(routes.flags, n));
  return flag === undefined ? undefined : routes.flags[flag];
}

export function flagInfo(o: OptionSpec, routes: CompletionRoutes, path: string[] = []): FlagInfo {
  const value = /[<[].*$/.exec(o.flags)?.[0] ?? '';
  const names = o.flags
    .slice(0, o.flags.length - value.length)
    .split(/[ ,]+/)
    .filter((w) => w.startsWith('-'));
  return {
    names,
    value,
    takesValue: value !== '',
    choices: o.choices,
    description: o.description,
    group: o.group,
    complete:
      o.complete === false
        ? undefined
        : (o.complete ?? (value && !o.choices ? flagCompletion(names, path, routes) : undefined)),
  };
}

export async function collectTree(
  roots: CommandNode[],
  globals: OptionSpec[],
  routes: CompletionRoutes,
): Promise<TreeNode> {
  const walk = async (nodes: CommandNode[], path: string[]): Promise<TreeNode[]> => {
    const out: TreeNode[] = [];
    for (const node of nodes) {
      if (node.hidden) continue;
      const p = [...path, node.name];
      let spec: CommandSpec | undefined;
      if (node.load) spec = (await node.load()).default;
      const children = node.children ? await walk(await node.children(), p) : [];
      const first = spec?.args?.[0];
      const idArg = first && /^(id|ids)$/.test(first.name) && p.length === 2 ? routes.ids[p[0]!] : undefined;
      out.push({
        path: p,
        names: [node.name, ...(node.aliases ?? [])],
        summary: node.summary,
        description: spec?.description,
        flags: (spec?.options ?? []).filter((o) => !o.hidden).map((o) => flagInfo(o, routes, p)),
        args: (spec?.args ?? []).map((a) => ({
          name: a.name,
          description: a.description,
          required: a.required,
          variadic: a.variadic,
        })),
        examples: spec?.examples ?? [],
        argChoices: spec?.args?.find((a) => a.choices)?.choices,
        argComplete: first?.complete ?? (first?.name === 'profile' ? 'profiles' : idArg),
        children: children.sort((a, b) => compare(a.path.join(' '), b.path.join(' '))),
      });
    }
    return out.sort((a, b) => compare(a.names[0]!, b.names[0]!));
  };
  return {
    path: [],
    names: ['svc'],
    summary: '',
    flags: globals.map((o) => flagInfo(o, routes)),
    args: [],
    examples: [],
    children: await walk(roots, []),
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function flatten(root: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  const visit = (n: TreeNode) => {
    out.push(n);
    n.children.forEach(visit);
  };
  visit(root);
  return out;
}
