// The user's editor on a file: $VISUAL, else $EDITOR, else vi (Windows: notepad), run by `sh -c` (Windows: cmd) so
// that the line may carry arguments (EDITOR="code -w"), on svc's terminal (the process's own descriptors), without
// svc's secrets.
import type { Context } from '../runtime/context.js';
import { childEnvironment, readEnv } from '../core/environment.js';
import { UsageError } from '../core/errors.js';

/** Run the editor on `file`; its exit code (128 + the signal's number when a signal ended it). */
export async function runEditor(ctx: Context, file: string, platform = process.platform): Promise<number> {
  const windows = platform === 'win32';
  const editor = readEnv(ctx.env, 'VISUAL') || readEnv(ctx.env, 'EDITOR') || (windows ? 'notepad' : 'vi');
  const { spawn } = await import('node:child_process');
  const own = ctx.streams.stdout === process.stdout;
  const [shell, args] = windows
    ? ['cmd.exe', ['/d', '/s', '/c', `${editor} "${file}"`]]
    : ['sh', ['-c', `${editor} "$1"`, 'editor', file]];
  const child = spawn(shell, args, {
    env: childEnvironment(ctx.env),
    stdio: own ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  if (!own) {
    child.stdout!.on('data', (b: Buffer) => ctx.out.stderrWrite(b.toString()));
    child.stderr!.on('data', (b: Buffer) => ctx.out.stderrWrite(b.toString()));
  }
  return new Promise((resolve, reject) => {
    child.on('error', (err) => reject(new UsageError(`could not run the editor (${editor}): ${err.message}`)));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + 2 : 1)));
  });
}
