// The whole command tree with every flag, for shell completion (loads every command module: never at start-up).
import type { CommandNode, CommandSpec, OptionSpec } from '../core/command.js';

export interface FlagInfo {
  names: string[];
  takesValue: boolean;
  choices?: readonly string[];
  description: string;
}

export interface TreeNode {
  /** words from the root, e.g. ['files', 'list'] */
  path: string[];
  names: string[];
  summary: string;
  flags: FlagInfo[];
  argChoices?: readonly string[];
  children: TreeNode[];
}

export function flagInfo(o: OptionSpec): FlagInfo {
  const names = o.flags.split(/[ ,|]+/).filter((w) => w.startsWith('-'));
  const takesValue = /<[^>]+>|\[[^\]]+\]/.test(o.flags);
  return { names, takesValue, choices: o.choices, description: o.description };
}

export async function collectTree(roots: CommandNode[], globals: OptionSpec[]): Promise<TreeNode> {
  const walk = async (nodes: CommandNode[], path: string[]): Promise<TreeNode[]> => {
    const out: TreeNode[] = [];
    for (const node of nodes) {
      if (node.hidden) continue;
      const p = [...path, node.name];
      let spec: CommandSpec | undefined;
      if (node.load) spec = (await node.load()).default;
      const children = node.children ? await walk(await node.children(), p) : [];
      out.push({
        path: p,
        names: [node.name, ...(node.aliases ?? [])],
        summary: node.summary,
        flags: (spec?.options ?? []).filter((o) => !o.hidden).map(flagInfo),
        argChoices: spec?.args?.find((a) => a.choices)?.choices,
        children: children.sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' '))),
      });
    }
    return out.sort((a, b) => a.names[0]!.localeCompare(b.names[0]!));
  };
  return { path: [], names: ['svc'], summary: '', flags: globals.map(flagInfo), children: await walk(roots, []) };
}

export function flatten(root: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  const visit = (n: TreeNode) => {
    out.push(n);
    n.children.forEach(visit);
  };
  visit(root);
  return out;
}
