// Zip bombs for the tests of the skill archive reader, the emulator and `svc skills upload` (issue 26, item 3): each
// small on disk, each a different lie or excess. Built with fflate (the 64 MiB ones by zipOfOne: zlib deflates 64 MiB
// in ~30 ms of CPU where fflate takes ~550, and three files build them), then the central directory patched by hand.
import { crc32, deflateRawSync } from 'node:zlib';
import { zipSync } from 'fflate';

export const SKILL_MD = '---\nname: bomb\ndescription: "A skill that is not"\n---\n# Bomb\n';

/** Sets the uncompressed size the central directory declares for `name` (every entry when omitted). */
function declare(zip: Uint8Array, size: number, name?: string): Uint8Array<ArrayBuffer> {
  const out = Buffer.from(zip);
  for (let i = 0; i + 46 <= out.length; i++) {
    if (out.readUInt32LE(i) !== 0x02014b50) continue;
    const nameLength = out.readUInt16LE(i + 28);
    const entry = out.subarray(i + 46, i + 46 + nameLength).toString();
    if (name === undefined || entry === name) out.writeUInt32LE(size, i + 24);
  }
  return out;
}

/** A zip of one deflated entry, as zipSync writes it (version 2.0, no extra fields), deflated by zlib. */
function zipOfOne(name: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const file = Buffer.from(name);
  const body = deflateRawSync(data, { level: 1 });
  const sizes = Buffer.alloc(12);
  sizes.writeUInt32LE(crc32(data), 0);
  sizes.writeUInt32LE(body.length, 4);
  sizes.writeUInt32LE(data.length, 8);
  const u16 = (...v: number[]) => Buffer.from(new Uint16Array(v).buffer);
  const u32 = (...v: number[]) => Buffer.from(new Uint32Array(v).buffer);
  // signature, version needed, flags, method 8 (deflate), time, date; then crc and sizes; name length, extra length
  const local = Buffer.concat([u32(0x04034b50), u16(20, 0, 8, 0, 0), sizes, u16(file.length, 0), file]);
  const central = Buffer.concat([
    u32(0x02014b50),
    u16(20, 20, 0, 8, 0, 0),
    sizes,
    // name, extra and comment lengths, disk, internal attributes; external attributes, the local header's offset
    u16(file.length, 0, 0, 0, 0),
    u32(0, 0),
    file,
  ]);
  const end = Buffer.concat([
    u32(0x06054b50),
    u16(0, 0, 1, 1),
    u32(central.length, local.length + body.length),
    u16(0),
  ]);
  return Buffer.concat([local, body, central, end]);
}

/** Each bomb and what it tries: all must be refused (or read within bounds) without inflating what they claim. */
export function zipBombs(): { kind: string; zip: Uint8Array<ArrayBuffer>; limit: RegExp }[] {
  const zeros = new Uint8Array(64 * 1024 * 1024);
  const honestBig = zipOfOne('bomb/SKILL.md', Buffer.concat([Buffer.from(SKILL_MD), zeros]));
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
export function lyingBomb(): Uint8Array<ArrayBuffer> {
  const zip = zipOfOne('bomb/SKILL.md', Buffer.concat([Buffer.from(SKILL_MD), new Uint8Array(64 * 1024 * 1024)]));
  return declare(zip, 80, 'bomb/SKILL.md');
}
