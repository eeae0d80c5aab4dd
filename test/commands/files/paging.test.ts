// 250 files: `--all` returns each exactly once across pages; AIP-160 filters return what this test computes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/files.js';

let emu: TestEmulator;
interface Made {
  id: string;
  name: string;
  size: number;
  type: string;
}
const made: Made[] = [];
const KINDS = ['report', 'draft', 'notes', 'data', 'misc'];
const EXTS: [string, string][] = [
  ['txt', 'text/plain'],
  ['csv', 'text/csv'],
  ['json', 'application/json'],
];

beforeAll(async () => {
  emu = await startTestEmulator();
  const dir = join(tempDir('svc-paging-'), 'in');
  mkdirSync(dir);
  const paths: string[] = [];
  const meta: Omit<Made, 'id'>[] = [];
  for (let i = 0; i < 250; i++) {
    const [ext, type] = EXTS[i % 3]!;
    const name = `${KINDS[i % 5]}-${String(i).padStart(3, '0')}.${ext}`;
    const size = (i * 37) % 1000;
    writeFileSync(join(dir, name), Buffer.alloc(size, 97));
    paths.push(join(dir, name));
    meta.push({ name, size, type });
  }
  const r = await svcInProcess(['files', 'upload', ...paths], { emu, timeout: 60_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  rows.forEach((row, i) => made.push({ id: row[0]!, ...meta[i]! }));
  expect(made).toHaveLength(250);
}, 60_000);
afterAll(() => emu.close());

const ids = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]!);

describe('svc files list --all', () => {
  it('returns all 250 files exactly once with --limit 100 (three pages, tokens passed back)', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['files', 'list', '--all', '--limit', '100'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = ids(r.stdout);
    expect(got).toHaveLength(250);
    expect(new Set(got).size).toBe(250);
    expect(new Set(got)).toEqual(new Set(made.map((m) => m.id)));
    const lists = emu.requests().filter((x) => x.path === '/v1/files');
    expect(lists).toHaveLength(3); // 100 + 100 + 50: a short page ends it
    expect(lists[0]!.query.pagination_token).toBeUndefined();
    expect(lists[1]!.query.pagination_token).toEqual(expect.any(String));
    expect(lists[2]!.query.pagination_token).not.toBe(lists[1]!.query.pagination_token);
  });

  it('stops on an empty page when the last page is full (--limit 50), still each once, in order', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      ['files', 'list', '--all', '--limit', '50', '--sort-by', 'filename', '--order', 'asc', '--json'],
      { emu },
    );
    const names = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).filename as string);
    expect(names).toEqual(made.map((m) => m.name).sort());
    expect(emu.requests().filter((x) => x.path === '/v1/files')).toHaveLength(6);
  });

  it('pages by size in descending order without gaps or repeats', async () => {
    const r = await svcInProcess(['files', 'list', '--all', '--limit', '7', '--sort-by', 'size', '--json'], { emu });
    const got = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; bytes: number });
    expect(got).toHaveLength(250);
    expect(new Set(got.map((g) => g.id)).size).toBe(250);
    expect(got.map((g) => g.bytes)).toEqual(made.map((m) => m.size).sort((a, b) => b - a));
  });
});

describe('svc files list --filter (AIP-160)', () => {
  const run = async (filter: string) => {
    const r = await svcInProcess(['files', 'list', '--all', '--filter', filter], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    return new Set(ids(r.stdout));
  };
  const expected = (pred: (m: Made) => boolean) => new Set(made.filter(pred).map((m) => m.id));

  it('AND, OR, NOT with parentheses, fuzzy name and partial content type', async () => {
    const got = await run('(name:"report" OR name:"DRAFT") AND NOT content_type = "json" AND size_bytes >= 300');
    const want = expected(
      (m) => (m.name.includes('report') || m.name.includes('draft')) && !m.type.includes('json') && m.size >= 300,
    );
    expect(want.size).toBeGreaterThan(10);
    expect(got).toEqual(want);
  });

  it('OR binds tighter than AND, as AIP-160 says', async () => {
    const got = await run('name:"notes" AND size_bytes < 100 OR size_bytes > 900');
    const want = expected((m) => m.name.includes('notes') && (m.size < 100 || m.size > 900));
    expect(want.size).toBeGreaterThan(3);
    expect(got).toEqual(want);
  });

  it('exact file_id, != on sizes, timestamps and upload_status', async () => {
    const target = made[123]!;
    expect(await run(`file_id = "${target.id}"`)).toEqual(new Set([target.id]));
    expect(await run(`size_bytes != ${target.size} AND file_name = "${target.name}"`)).toEqual(new Set());
    const all = await run(
      'created_at >= "2000-01-01T00:00:00Z" AND upload_status = "Complete" AND NOT expires_at < "2000-01-01T00:00:00Z"',
    );
    expect(all.size).toBe(250);
    expect(await run('created_at < "2000-01-01T00:00:00Z"')).toEqual(new Set());
  });
});
