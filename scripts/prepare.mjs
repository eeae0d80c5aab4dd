// npm lifecycle builds. `prepack` (npm pack / publish): a clean dist/ built from src/, so the tarball never ships stale
// or missing files. `prepare` (npm install from git, npm link in a fresh clone): build only when dist/ is missing,
// so an `npm install` in a working copy never rebuilds behind the developer's back.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const event = process.argv[2];
if (event === 'prepare' && existsSync(join(root, 'dist', 'cli.js'))) process.exit(0);
if (event === 'prepack') rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
