import { defineCommand } from '../../core/command.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export default defineCommand({
  summary: 'Print a shell completion script (bash, zsh, fish)',
  description: 'The same scripts are shipped in completions/. bash: `source <(svc completion bash)`; zsh: `svc completion zsh > "${fpath[1]}/_svc"`; fish: `svc completion fish > ~/.config/fish/completions/svc.fish`.',
  args: [{ name: 'shell', description: SHELLS.join(', '), required: true, choices: SHELLS }],
  examples: ['source <(svc completion bash)', 'svc completion fish > ~/.config/fish/completions/svc.fish'],
  async run(ctx, [shell]) {
    ctx.out.write(await completionScript(shell));
    return 0;
  },
});

export async function completionScript(shell: (typeof SHELLS)[number]): Promise<string> {
  const { rootCommands } = await import('../index.js');
  const { GLOBAL_OPTIONS } = await import('../../core/global-options.js');
  const { collectTree } = await import('../../completion/tree.js');
  const scripts = await import('../../completion/scripts.js');
  const tree = await collectTree(rootCommands, GLOBAL_OPTIONS);
  return shell === 'bash' ? scripts.bashScript(tree) : shell === 'zsh' ? scripts.zshScript(tree) : scripts.fishScript(tree);
}
