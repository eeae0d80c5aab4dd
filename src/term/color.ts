// The one colour decision (NO_COLOR, FORCE_COLOR, --no-color, TERM=dumb, a terminal) and the styles that follow
// from it. Styles come from chalk, imported only when colour is on: pipes and scripts never pay its ~14 ms.
// The same decision is handed to ora (spinner frames and symbols) and to the progress bar.
import { readEnv } from '../core/environment.js';
export interface Colors {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
  italic(s: string): string;
  underline(s: string): string;
}

const plain = (s: string) => s;
export const NO_COLORS: Colors = {
  enabled: false,
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
  cyan: plain,
  magenta: plain,
  italic: plain,
  underline: plain,
};

/** Colour on a terminal unless NO_COLOR (any non-empty value), --no-color or TERM=dumb; FORCE_COLOR forces it on. */
export function colorWanted(isTTY: boolean, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (readEnv(env, 'NO_COLOR') !== undefined && readEnv(env, 'NO_COLOR') !== '') return false;
  if (
    readEnv(env, 'FORCE_COLOR') !== undefined &&
    readEnv(env, 'FORCE_COLOR') !== '0' &&
    readEnv(env, 'FORCE_COLOR') !== 'false'
  )
    return true;
  if (readEnv(env, 'TERM') === 'dumb') return false;
  return isTTY;
}

/**
 * chalk's colour level for an enabled stream: 16 colours are all svc uses, more only when asked for. Windows
 * terminals set no TERM or COLORTERM: Windows Terminal says itself by WT_SESSION (24-bit); the console of Windows 10
 * and later, where Node turns on its escape sequences, has the 16 colours. Whether a stream is a terminal is Node's
 * isTTY there too (a console handle); Git Bash's mintty gives pipes, so svc is plain there unless FORCE_COLOR.
 */
export function colorLevel(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): 1 | 2 | 3 {
  const forced = Number(readEnv(env, 'FORCE_COLOR'));
  if (forced === 2 || forced === 3) return forced;
  if (readEnv(env, 'COLORTERM') === 'truecolor' || readEnv(env, 'COLORTERM') === '24bit') return 3;
  if (platform === 'win32' && readEnv(env, 'WT_SESSION')) return 3;
  return /256/.test(readEnv(env, 'TERM') ?? '') ? 2 : 1;
}

/** Styles for one decision: plain text when off; chalk (loaded now) when on. */
export async function loadColors(enabled: boolean, env: NodeJS.ProcessEnv): Promise<Colors> {
  if (!enabled) return NO_COLORS;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: colorLevel(env) });
  return {
    enabled,
    bold: (s) => chalk.bold(s),
    dim: (s) => chalk.dim(s),
    red: (s) => chalk.red(s),
    green: (s) => chalk.green(s),
    yellow: (s) => chalk.yellow(s),
    cyan: (s) => chalk.cyan(s),
    magenta: (s) => chalk.magenta(s),
    italic: (s) => chalk.italic(s),
    underline: (s) => chalk.underline(s),
  };
}
