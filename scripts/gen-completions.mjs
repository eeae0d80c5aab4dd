// Writes completions/svc.bash, _svc (zsh), svc.fish and docs/commands.md from the built command tree.
import { writeFileSync, mkdirSync } from 'node:fs';
import { completionScript, commandsDoc } from '../dist/commands/completion/script.js';

const dir = new URL('../completions/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' };
for (const [shell, name] of Object.entries(files)) {
  writeFileSync(new URL(name, dir), await completionScript(shell));
  console.log(`completions/${name}`);
}
writeFileSync(new URL('../docs/commands.md', import.meta.url), await commandsDoc());
console.log('docs/commands.md');
