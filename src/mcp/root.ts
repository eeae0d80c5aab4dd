// The folder an agent's paths are confined to (`svc mcp serve --root DIR`, default the working folder): a path is
// taken relative to it, and refused when it (or, for a file to be written, its nearest existing folder) resolves
// outside it, symbolic links followed. Reads are confined too: an agent uploading ~/.ssh/id_ed25519 is no better.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';

export class Root {
  readonly real: string;
  constructor(readonly dir: string) {
    if (!existsSync(dir)) throw new UsageError(`--root: ${dir} is not allowed: a folder that exists`);
    this.real = realpathSync(dir);
  }

  private inside(real: string): boolean {
    const rel = relative(this.real, real);
    return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
  }

  /** the path an agent gave, absolute; refused (a UsageError naming it) when it leads outside the root */
  confine(given: string, what: string, mode: 'read' | 'write'): string {
    const abs = resolve(this.real, given);
    let probe = abs;
    // a file not written yet: its nearest existing folder decides
    while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
    const real = realpathSync(probe);
    if (!this.inside(real))
      throw new UsageError(
        `${what}: ${given} is not allowed: a path under ${this.dir} (the --root of svc mcp serve) to ` +
          `${mode === 'write' ? 'write' : 'read'}`,
      );
    return abs;
  }
}
