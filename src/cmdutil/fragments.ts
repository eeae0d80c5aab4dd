// -f FILE|URL|NAME (llm's fragments): text put before the prompt, from a file, a URL, or a fragment saved by `svc
// fragments save NAME` (NAME.txt in the fragments folder of the config folder, beside the templates).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../runtime/context.js';
import { UsageError } from '../core/errors.js';
import { configDir } from '../core/paths.js';
import { didYouMean } from '../core/suggest.js';

export const FRAGMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const fragmentsDir = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'fragments');
export const fragmentFile = (env: NodeJS.ProcessEnv, name: string): string => join(fragmentsDir(env), `${name}.txt`);

export function fragmentNames(env: NodeJS.ProcessEnv): string[] {
  try {
    return readdirSync(fragmentsDir(env))
      .filter((f) => f.endsWith('.txt') && FRAGMENT_NAME.test(f.slice(0, -4)))
      .map((f) => f.slice(0, -4))
      .sort();
  } catch {
    return [];
  }
}

/** UTF-8 text, or exit 2 naming where it came from. */
export function fragmentText(data: Buffer, where: string): string {
  try {
    if (data.includes(0)) throw new Error('NUL byte');
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new UsageError(`-f ${where}: not UTF-8 text (attach other files with -a)`);
  }
}

/**
 * The text of each -f value: an http(s) URL fetched (`fetch`), a file that exists, else a saved fragment; anything
 * else is exit 2 naming the saved ones. A file is preferred to a fragment of the same name (./notes beats notes).
 */
export async function readFragments(
  ctx: Context,
  values: string[],
  fetch: (url: string) => Promise<Buffer>,
): Promise<string[]> {
  const texts: string[] = [];
  for (const v of values) {
    if (/^https?:\/\//i.test(v)) texts.push(fragmentText(await fetch(v), v));
    else if (existsSync(v)) texts.push(fragmentText(readFileSync(v), v));
    else if (FRAGMENT_NAME.test(v) && existsSync(fragmentFile(ctx.env, v)))
      texts.push(readFileSync(fragmentFile(ctx.env, v), 'utf8'));
    else {
      const names = fragmentNames(ctx.env);
      throw new UsageError(
        `-f ${v}: no such file or saved fragment${didYouMean(v, names)}; saved: ${names.join(', ') || '(none)'} ` +
          '(svc fragments save NAME FILE makes one)',
      );
    }
  }
  return texts.map((t) => t.replace(/\s+$/, ''));
}
