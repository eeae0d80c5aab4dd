// The command tree walked with every verb module loaded: each node by its command words ('files list'), with its spec.
import type { CommandNode, CommandSpec } from '../../src/cmdutil/command.js';
import { rootCommands } from '../../src/commands/index.js';

export interface LoadedCommand {
  words: string;
  node: CommandNode;
  /** a node that runs (`load`) has one; a group alone has none */
  spec?: CommandSpec;
}

/** Every node of the tree (groups, hidden ones included), parents before their children. */
export async function loadCommandTree(): Promise<LoadedCommand[]> {
  const out: LoadedCommand[] = [];
  const walk = async (nodes: CommandNode[], prefix: string[]): Promise<void> => {
    for (const node of nodes) {
      const path = [...prefix, node.name];
      out.push({ words: path.join(' '), node, spec: node.load && (await node.load()).default });
      if (node.children) await walk(await node.children(), path);
    }
  };
  await walk(rootCommands, []);
  return out;
}

/** The specs by command words ('files list' → its spec). */
export async function loadCommandSpecs(): Promise<Map<string, CommandSpec>> {
  const specs = new Map<string, CommandSpec>();
  for (const { words, spec } of await loadCommandTree()) if (spec) specs.set(words, spec);
  return specs;
}
