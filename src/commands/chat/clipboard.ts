// /copy of the REPL: the text to the system clipboard through the platform's program (the platform a parameter, so
// that tests inject one): pbcopy on macOS, clip.exe on Windows, else wl-copy (Wayland), xclip (X11) or clip.exe
// (WSL), the first found on PATH that succeeds.
import { childEnvironment } from '../../core/environment.js';

export function clipboardPrograms(platform: NodeJS.Platform): { program: string; args: string[] }[] {
  if (platform === 'darwin') return [{ program: 'pbcopy', args: [] }];
  if (platform === 'win32') return [{ program: 'clip.exe', args: [] }];
  return [
    { program: 'wl-copy', args: [] },
    { program: 'xclip', args: ['-selection', 'clipboard'] },
    { program: 'clip.exe', args: [] },
  ];
}

/** The program that took the text, or an Error saying which were tried and what to do. */
export async function copyToClipboard(
  text: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<string | Error> {
  const { onPath } = await import('../../audio/devices.js');
  const candidates = clipboardPrograms(platform);
  const failures: string[] = [];
  for (const { program, args } of candidates) {
    if (!onPath(program, env, platform)) continue;
    const code = await feed(program, args, text, env);
    if (code === 0) return program;
    failures.push(`${program} exited with ${code}`);
  }
  const names = candidates.map((c) => c.program).join(', ');
  return new Error(
    failures.length
      ? `could not copy: ${failures.join('; ')}`
      : `no clipboard program found (looked for ${names} on PATH): install one, or save the answer with /save FILE`,
  );
}

/**
 * Run the program with the text on its stdin; its exit code. xclip stays behind to serve the selection: 'exit', not
 * 'close'.
 */
async function feed(program: string, args: string[], text: string, env: NodeJS.ProcessEnv): Promise<number | string> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(program, args, { env: childEnvironment(env), stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', (err) => resolve(err.message));
    child.on('exit', (code, signal) => resolve(code ?? `signal ${signal}`));
    child.stdin.on('error', () => {});
    child.stdin.end(text);
  });
}
