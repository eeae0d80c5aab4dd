import { defineCommand } from '../../cmdutil/command.js';

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

export default defineCommand({
  description:
    'The same scripts are shipped in completions/. bash: `source <(svc completion bash)`; zsh: `svc ' +
    'completion zsh > "${fpath[1]}/_svc"`; fish: `svc completion fish > ~/.config/fish/completions/svc.fish`; ' +
    'PowerShell: `svc completion powershell | Out-String | Invoke-Expression` in $PROFILE.',
  args: [{ name: 'shell', description: SHELLS.join(', '), required: true, choices: SHELLS }],
  examples: ['source <(svc completion bash)', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
  async run(ctx, [shell]) {
    ctx.out.write(await completionScript(shell));
    return 0;
  },
});

async function tree() {
  const { rootCommands } = await import('../index.js');
  const { GLOBAL_OPTIONS } = await import('../../core/global-options.js');
  const { collectTree } = await import('../../completion/tree.js');
  const { completionRoutes } = await import('../../endpoints/resources.js');
  return collectTree(rootCommands, GLOBAL_OPTIONS, completionRoutes());
}

export async function completionScript(shell: (typeof SHELLS)[number]): Promise<string> {
  const scripts = await import('../../completion/scripts.js');
  const tree = await treeOnce();
  const make = {
    bash: scripts.bashScript,
    zsh: scripts.zshScript,
    fish: scripts.fishScript,
    powershell: scripts.powershellScript,
  };
  return make[shell](tree);
}

let cached: ReturnType<typeof tree> | undefined;
const treeOnce = () => (cached ??= tree());

/** docs/commands.md */
export async function commandsDoc(): Promise<string> {
  const { commandsMarkdown } = await import('../../completion/docs.js');
  return commandsMarkdown(await treeOnce());
}

/** man/*.1: file name → page */
export async function manPagesOf(): Promise<Map<string, string>> {
  const { manPages } = await import('../../completion/man.js');
  return manPages(await treeOnce());
}

/** Every command's words ('files list', 'custom-voices get' …), for a suggestion. */
export async function commandNames(): Promise<string[]> {
  const { flatten } = await import('../../completion/tree.js');
  return flatten(await treeOnce()).map((n) => n.path.join(' '));
}

/** The command path that `words` name (aliases resolved: files ls → files list); undefined when none. */
export async function commandPathOf(words: string[]): Promise<string[] | undefined> {
  let node = await treeOnce();
  for (const word of words) {
    const next = node.children.find((c) => c.names.includes(word));
    if (!next) return undefined;
    node = next;
  }
  return node.path;
}
