// Writes completions/svc.bash, _svc (zsh), svc.fish, svc.ps1 (PowerShell), docs/commands.md and man/*.1 from the built
// command tree.
import { writeFileSync, mkdirSync } from 'node:fs';
import { completionScript, commandsDoc, manPagesOf } from '../dist/commands/completion/script.js';
import { readdirSync, rmSync } from 'node:fs';

const dir = new URL('../completions/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish', powershell: 'svc.ps1' };
for (const [shell, name] of Object.entries(files)) {
  writeFileSync(new URL(name, dir), await completionScript(shell));
  console.log(`completions/${name}`);
}
writeFileSync(new URL('../docs/commands.md', import.meta.url), await commandsDoc());
console.log('docs/commands.md');

const man = new URL('../man/', import.meta.url);
mkdirSync(man, { recursive: true });
const pages = await manPagesOf();
for (const old of readdirSync(man)) if (!pages.has(old)) rmSync(new URL(old, man));
for (const [name, page] of pages) writeFileSync(new URL(name, man), page);
console.log(`man/ (${pages.size} pages)`);
