// System tools some tests need (installed by `npm run setup`), and the optional `speaker` module: a test that needs
// one that is missing fails saying which, before it starts anything, instead of failing obscurely (ENOENT from a
// spawn, a terminal that never shows, "cannot play audio").
import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { ROOT } from './files.js';

const found = new Map<string, boolean>();

function onPath(name: string, path: string): boolean {
  let yes = found.get(`${path}\0${name}`);
  if (yes === undefined) {
    yes = path.split(delimiter).some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    found.set(`${path}\0${name}`, yes);
  }
  return yes;
}

/** Throws, naming each of `names` that is not on PATH and how to get it. */
export function needTools(...names: string[]): void {
  needToolsOn(process.env.PATH ?? '', names);
}

/** needTools() on a given PATH */
export function needToolsOn(path: string, names: string[]): void {
  const missing = names.filter((n) => !onPath(n, path));
  if (missing.length)
    throw new Error(
      `this test needs ${missing.join(', ')}, not found on PATH: \`npm run setup\` installs ` +
        `${missing.length > 1 ? 'them' : 'it'} (apt, dnf, apk or brew), or install ${missing.join(' and ')} yourself`,
    );
}

/**
 * Why the optional `speaker` module cannot be loaded from `root` (undefined when it can): npm ci builds it with
 * ALSA's headers, and leaves it out, saying nothing after the install, where they are missing.
 */
export function speakerMissing(root: string): string | undefined {
  let main: string;
  try {
    main = createRequire(join(root, 'package.json')).resolve('speaker');
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
  // looked at, not loaded: loading it in the test's own process aborted the worker (an assertion of libasound)
  const binding = join(dirname(main), 'build', 'Release', 'binding.node');
  return existsSync(binding) ? undefined : `its native part ${binding} was not built`;
}

/** Throws, naming the optional `speaker` module and what installs it, when it cannot be loaded from `root`. */
export function needSpeakerIn(root: string): void {
  const why = speakerMissing(root);
  if (why)
    throw new Error(
      `this test plays through the optional \`speaker\` module, which cannot be loaded (${why}): it is built by ` +
        "npm ci with ALSA's headers; `npm run setup` installs them (libasound2-dev, alsa-lib-devel or alsa-lib-dev) " +
        'before npm ci, or install them yourself and run `npm rebuild speaker`',
    );
}

/** needSpeakerIn() for this checkout. */
export function needSpeaker(): void {
  needSpeakerIn(ROOT);
}
