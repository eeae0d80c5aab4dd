// The emulator is the suite's oracle: it takes its rules from the spec on its own, so that a wrong client constant
// is caught by it instead of confirmed. It may use src/audio and src/core (codecs, front matter, webhook signing),
// never src/api, src/commands or the rest of the client.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('emulator independence', () => {
  it('imports nothing from src/ outside src/emulator, src/audio and src/core', () => {
    const src = join(ROOT, 'src');
    const offenders: string[] = [];
    let imports = 0;
    for (const file of sources(join(src, 'emulator'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from|import\()\s*['"](\.[^'"]+)['"]/g)) {
        imports++;
        const target = relative(src, resolve(dirname(file), m[1]!));
        if (!/^(emulator|audio|core)\//.test(target)) offenders.push(`${relative(ROOT, file)} → src/${target}`);
      }
    }
    expect(imports).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });
});
