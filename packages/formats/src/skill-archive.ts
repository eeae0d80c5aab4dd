// A skill archive's SKILL.md, read without trusting the archive (issue 26, item 3): the central directory's declared
// sizes are checked before anything is inflated (the number of entries, SKILL.md's size, the total of every entry),
// and SKILL.md is then inflated a kilobyte of input at a time and stopped as soon as it passes its checked declared
// size, so a zip bomb (an archive that inflates to gigabytes, one whose directory declares gigabytes, or one that
// lies about its sizes) is refused instead of filling the memory or holding the CPU. Shared by the emulator (413)
// and `svc skills upload` (exit 2), each naming the limit.
import { Unzip, UnzipInflate, unzipSync } from 'fflate';

/** SKILL.md, inflated, at most */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;
/** every entry of the archive, inflated, at most */
export const MAX_SKILL_INFLATED_BYTES = 256 * 1024 * 1024;
export const MAX_SKILL_ENTRIES = 10_000;

/** `limit`: over one of the limits above (the message names it); `format`: not a zip archive. */
export class SkillArchiveError extends Error {
  constructor(
    message: string,
    readonly kind: 'limit' | 'format',
  ) {
    super(message);
  }
}

const TOP_SKILL_MD = /^([^/]+\/)?SKILL\.md$/;

/** The text of the archive's top-level SKILL.md (at the root or in its one folder), or undefined when it has none. */
export function readSkillMd(zip: Uint8Array): string | undefined {
  const name = checkedSkillMd(zip);
  if (name === undefined) return undefined;
  const out = inflateEntry(zip, name.name, name.declared);
  if (out === undefined) throw new SkillArchiveError('not a valid zip archive', 'format');
  return Buffer.from(out).toString('utf8');
}

/** The central directory checked against the limits, nothing inflated: SKILL.md's name and declared size. */
function checkedSkillMd(zip: Uint8Array): { name: string; declared: number } | undefined {
  let entries = 0;
  let total = 0;
  const found: { name: string; declared: number }[] = [];
  try {
    unzipSync(zip, {
      filter: (f) => {
        if (++entries > MAX_SKILL_ENTRIES)
          throw new SkillArchiveError(`the archive holds more than ${MAX_SKILL_ENTRIES} entries (the limit)`, 'limit');
        total += f.originalSize;
        if (total > MAX_SKILL_INFLATED_BYTES)
          throw new SkillArchiveError(
            `the archive's files inflate to more than ${MAX_SKILL_INFLATED_BYTES} bytes (256 MiB), the limit`,
            'limit',
          );
        if (!TOP_SKILL_MD.test(f.name)) return false;
        if (f.originalSize > MAX_SKILL_MD_BYTES)
          throw new SkillArchiveError(
            `${f.name} inflates to ${f.originalSize} bytes, over the limit of ${MAX_SKILL_MD_BYTES} bytes (1 MiB)`,
            'limit',
          );
        found.push({ name: f.name, declared: f.originalSize });
        return false;
      },
    });
  } catch (err) {
    if (err instanceof SkillArchiveError) throw err;
    throw new SkillArchiveError('not a valid zip archive', 'format');
  }
  return found.sort((a, b) => a.name.length - b.name.length)[0];
}

/** One entry inflated from its local header on, refused as soon as it passes the size its directory declared. */
function inflateEntry(zip: Uint8Array, name: string, declared: number): Uint8Array | undefined {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  const unzip = new Unzip((file) => {
    if (file.name !== name || done) return;
    file.ondata = (err, chunk, final) => {
      // fflate hands a throw of this listener back to it as `err`
      if (err)
        throw err instanceof SkillArchiveError ? err : new SkillArchiveError('not a valid zip archive', 'format');
      size += chunk.length;
      if (size > declared)
        throw new SkillArchiveError(`${name} inflates past the ${declared} bytes its archive declares`, 'limit');
      chunks.push(chunk);
      if (final) done = true;
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    // a kilobyte of deflated input inflates to a megabyte at most: the check above runs that often
    for (let i = 0; i < zip.length && !done; i += 1024) unzip.push(zip.subarray(i, i + 1024), i + 1024 >= zip.length);
  } catch (err) {
    if (err instanceof SkillArchiveError) throw err;
    throw new SkillArchiveError('not a valid zip archive', 'format');
  }
  return done ? Buffer.concat(chunks) : undefined;
}
