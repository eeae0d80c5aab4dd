import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';
import { lyingBomb, zipBombs } from '../../../packages/formats/test/zip-bombs.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = tempDir('svc-skills-');
});
afterAll(() => emu.close());

const SKILL_MD =
  '---\nname: pdf-tools\ndescription: "Read and fill PDF forms"\n---\n# PDF tools\nUse scripts/fill.py.\n';

function skillDir(name: string, md: string | undefined, extra: Record<string, string> = {}): string {
  const d = join(dir, name);
  mkdirSync(join(d, 'scripts'), { recursive: true });
  if (md !== undefined) writeFileSync(join(d, 'SKILL.md'), md);
  writeFileSync(join(d, 'scripts', 'fill.py'), 'print("fill")\n');
  for (const [k, v] of Object.entries(extra)) writeFileSync(join(d, k), v);
  return d;
}

function zipFile(name: string, entries: Record<string, string>): string {
  const p = join(dir, name);
  writeFileSync(p, zipSync(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, Buffer.from(v)]))));
  return p;
}

describe('svc skills upload', () => {
  it('zips a folder on the fly; the archive comes back with every file', async () => {
    const d = skillDir('pdf-skill', SKILL_MD);
    emu.clearRequests();
    const r = await svcInProcess(['skills', 'upload', d], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const [id, name] = r.stdout.trim().split('\t');
    expect(id).toMatch(/^skill_/);
    expect(name).toBe('pdf-tools');
    const req = emu.requests().find((x) => x.method === 'POST' && x.path === '/v1/skills')!;
    expect(req.body).toContain('name="files"; filename="pdf-skill.zip"');
    const out = join(dir, 'back.zip');
    const dl = await svcInProcess(['skills', 'download', id!, '-o', out], { emu });
    expect(dl.exitCode, dl.stderr).toBe(0);
    expect(dl.stdout).toBe(`${out}\n`);
    const entries = unzipSync(readFileSync(out));
    expect(Object.keys(entries).sort()).toEqual(['pdf-skill/SKILL.md', 'pdf-skill/scripts/fill.py']);
    expect(Buffer.from(entries['pdf-skill/SKILL.md']!).toString()).toBe(SKILL_MD);
  });

  it(
    'a YAML block scalar description (`description: >`) is read as its folded text, by the CLI and ' + 'the server',
    async () => {
      const md =
        '---\nname: yaml-skill\ndescription: >\n  Fill PDF forms\n  and read them back.\nlicense: MIT\n---\n# body\n';
      const r = await svcInProcess(['skills', 'upload', skillDir('yaml-skill', md), '--json'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        name: 'yaml-skill',
        description: 'Fill PDF forms and read them back.\n',
      });
    },
  );

  it('uploads a zip as is; --json prints the skill as the API sent it', async () => {
    const z = zipFile('ready.zip', {
      'SKILL.md': '---\nname: csv-helper\ndescription: Clean CSV files\n---\n',
      'README.txt': 'hi',
    });
    const r = await svcInProcess(['skills', 'upload', z, '--json'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ object: 'skill', name: 'csv-helper', description: 'Clean CSV files' });
    expect(Object.keys(s).sort()).toEqual([
      'created_at',
      'default_version',
      'description',
      'id',
      'latest_version',
      'name',
      'object',
    ]);
    const out = join(dir, 'ready-back.zip');
    await svcInProcess(['skills', 'download', s.id, '-o', out], { emu });
    expect(readFileSync(out).equals(readFileSync(z))).toBe(true);
  });

  describe('SKILL.md checked before sending (exit 2, nothing sent)', () => {
    const cases: [string, () => string, RegExp][] = [
      ['a folder without SKILL.md', () => skillDir('no-md', undefined), /no SKILL\.md at the top level/],
      ['SKILL.md without front matter', () => skillDir('no-fm', '# just a title\n'), /SKILL\.md has no front matter/],
      [
        'front matter without a description',
        () => skillDir('no-desc', '---\nname: x\n---\n'),
        /front matter of SKILL\.md has no description/,
      ],
      [
        'front matter without a name',
        () => skillDir('no-name', '---\ndescription: y\n---\n'),
        /front matter of SKILL\.md has no name/,
      ],
      ['a zip without SKILL.md', () => zipFile('empty.zip', { 'other.md': 'x' }), /no SKILL\.md at the top level/],
      [
        'a file that is not a zip',
        () => (writeFileSync(join(dir, 'notzip.zip'), 'plain text'), join(dir, 'notzip.zip')),
        /not a zip archive/,
      ],
      ['a missing path', () => join(dir, 'nope'), /no such file or folder/],
      // zip bombs: refused by their declared sizes before inflating, or as soon as SKILL.md passes its own
      ...[...zipBombs(), { kind: 'a SKILL.md lying about its size', zip: lyingBomb(), limit: /declares/ }].map(
        (bomb, i): [string, () => string, RegExp] => [
          `a zip bomb: ${bomb.kind}`,
          () => (writeFileSync(join(dir, `bomb${i}.zip`), bomb.zip), join(dir, `bomb${i}.zip`)),
          bomb.limit,
        ],
      ),
    ];
    for (const [name, make, msg] of cases) {
      it(name, async () => {
        const p = make();
        emu.clearRequests();
        const r = await svcInProcess(['skills', 'upload', p], { emu });
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toMatch(msg);
        expect(emu.requests()).toHaveLength(0);
      });
    }
  });
});

describe('svc skills list / get / delete / download', () => {
  const made: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      const z = zipFile(`s${i}.zip`, { [`s${i}/SKILL.md`]: `---\nname: s${i}\ndescription: skill number ${i}\n---\n` });
      const r = await svcInProcess(['skills', 'upload', z], { emu });
      made.push(r.stdout.split('\t')[0]!);
    }
  });

  it('--all follows the cursor: each skill once, newest first', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['skills', 'list', '--all', '--limit', '2'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 5)).toEqual([...made].reverse());
    const lists = emu.requests().filter((x) => x.path === '/v1/skills');
    expect(lists.length).toBe(Math.ceil(ids.length / 2));
    expect(lists[1]!.query.after).toBe(ids[1]);
  });

  it('--order asc --json, one skill per line', async () => {
    const r = await svcInProcess(['skills', 'list', '--order', 'asc', '--json'], { emu });
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const mine = rows.filter((s) => made.includes(s.id)).map((s) => s.id);
    expect(mine).toEqual(made);
  });

  it('one page names the next cursor on stderr', async () => {
    const r = await svcInProcess(['skills', 'list', '--limit', '1'], { emu });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/more skills: --page-token skill_\w+/);
  });

  for (const [name, flags, msg] of [
    ['--limit 0', ['--limit', '0'], /--limit: 0 .*1 to 100/],
    ['--limit 101', ['--limit', '101'], /--limit: 101 .*1 to 100/],
    ['--order newest', ['--order', 'newest'], /--order: newest .*asc, desc/],
  ] as [string, string[], RegExp][]) {
    it(`list rejects ${name} before sending`, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['skills', 'list', ...flags], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('get shows the skill; an unknown id exits 5', async () => {
    const r = await svcInProcess(['skills', 'get', made[2]!], { emu });
    expect(r.stdout).toContain('name\ts2');
    expect(r.stdout).toContain('description\tskill number 2');
    const g = await svcInProcess(['skills', 'get', 'skill_nope'], { emu });
    expect(g.exitCode).toBe(5);
  });

  it('download refuses to overwrite without --force; names the file after the skill by default', async () => {
    const out = join(dir, 'taken.zip');
    writeFileSync(out, 'x');
    emu.clearRequests();
    const r = await svcInProcess(['skills', 'download', made[0]!, '-o', out], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/taken\.zip already exists/);
    expect(emu.requests()).toHaveLength(0);
    const into = join(dir, 'into');
    mkdirSync(into);
    const d = await svcInProcess(['skills', 'download', made[0]!, '-o', into], { emu });
    expect(d.stdout.trim()).toBe(join(into, 's0.zip'));
  });

  it('delete removes several; the rest of the list no longer has them', async () => {
    const r = await svcInProcess(['skills', 'delete', made[3]!, made[4]!, '--json', '--yes'], { emu });
    expect(r.exitCode).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { id: made[3], object: 'skill.deleted', deleted: true },
      { id: made[4], object: 'skill.deleted', deleted: true },
    ]);
    const l = await svcInProcess(['skills', 'list', '--json'], { emu });
    const ids = l.stdout
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x).id);
    expect(ids).not.toContain(made[3]);
    expect(ids).toContain(made[2]);
  });
});
