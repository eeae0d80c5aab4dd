// System tools some tests need (installed by `npm run setup`): a test that needs one that is missing fails saying
// which, before it starts anything, instead of failing obscurely (ENOENT from a spawn, a terminal that never shows).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

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
