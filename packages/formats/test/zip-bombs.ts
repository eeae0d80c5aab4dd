// Zip bombs for the tests of the skill archive reader, the emulator and `svc skills upload` (issue 26, item 3): each
// small on disk, each a different lie or excess. Built with fflate, then the central directory patched by hand.
import { zipSync } from 'fflate';

export const SKILL_MD = '---\nname: bomb\ndescription: "A skill that is not"\n---\n# Bomb\n';

/** Sets the uncompressed size the central directory declares for `name` (every entry when omitted). */
function declare(zip: Uint8Array, size: number, name?: string): Uint8Array {
  const out = Buffer.from(zip);
  for (let i = 0; i + 46 <= out.length; i++) {
    if (out.readUInt32LE(i) !== 0x02014b50) continue;
    const nameLength = out.readUInt16LE(i + 28);
    const entry = out.subarray(i + 46, i + 46 + nameLength).toString();
    if (name === undefined || entry === name) out.writeUInt32LE(size, i + 24);
  }
  return out;
}

/** Each bomb and what it tries: all must be refused (or read within bounds) without inflating what they claim. */
export function zipBombs(): { kind: string; zip: Uint8Array; limit: RegExp }[] {
  const zeros = new Uint8Array(64 * 1024 * 1024);
  const honestBig = zipSync({ 'bomb/SKILL.md': Buffer.concat([Buffer.from(SKILL_MD), zeros]) }, { level: 1 });
  const small = zipSync({ 'bomb/SKILL.md': Buffer.from(SKILL_MD), 'bomb/data.bin': new Uint8Array(10) });
  const many: Record<string, Uint8Array> = { 'bomb/SKILL.md': Buffer.from(SKILL_MD) };
  for (let i = 0; i < 10_050; i++) many[`bomb/f${i}`] = new Uint8Array(0);
  return [
    { kind: 'a SKILL.md that inflates to 64 MiB', zip: honestBig, limit: /SKILL\.md inflates to \d+ bytes.*1 MiB/ },
    {
      kind: 'a SKILL.md whose directory declares 4 GiB',
      zip: declare(small, 0xffffffff, 'bomb/SKILL.md'),
      limit: /inflate to more than 268435456 bytes|SKILL\.md inflates/,
    },
    {
      kind: 'another entry declaring 4 GiB',
      zip: declare(small, 0xffffffff, 'bomb/data.bin'),
      limit: /inflate to more than 268435456 bytes \(256 MiB\)/,
    },
    { kind: '10,050 entries', zip: zipSync(many, { level: 0 }), limit: /more than 10000 entries/ },
  ];
}

/** A SKILL.md declaring 80 bytes that inflates to 64 MiB: refused once past 80 bytes. */
export function lyingBomb(): Uint8Array {
  const zip = zipSync(
    { 'bomb/SKILL.md': Buffer.concat([Buffer.from(SKILL_MD), new Uint8Array(64 * 1024 * 1024)]) },
    { level: 1 },
  );
  return declare(zip, 80, 'bomb/SKILL.md');
}
