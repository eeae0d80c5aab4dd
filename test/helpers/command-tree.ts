// The command tree's specs by command words ('files list' → its spec), every verb module loaded.
import type { CommandNode, CommandSpec } from '../../src/cmdutil/command.js';
import { rootCommands } from '../../src/commands/index.js';

export async function loadCommandSpecs(): Promise<Map<string, CommandSpec>> {
  const specs = new Map<string, CommandSpec>();
  const walk = async (nodes: CommandNode[], prefix: string[]): Promise<void> => {
    for (const n of nodes) {
      const path = [...prefix, n.name];
      if (n.load) specs.set(path.join(' '), (await n.load()).default);
      if (n.children) await walk(await n.children(), path);
    }
  };
  await walk(rootCommands, []);
  return specs;
}
