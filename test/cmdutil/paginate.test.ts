// The one paginator, through every list command: paging by hand with only the --json output (rows, then the
// {"next_page_token"} record) and --page-token gives exactly the rows of --all; lists without a cursor in the API
// print no cursor record; a server that repeats a cursor is stopped (exit 1) after the rows it sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from 'svc-formats/audio-codecs';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { writeTemp } from '../helpers/files.js';

let emu: TestEmulator;
let responseId: string;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${emu.key}` };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${emu.url}${path}`, { method, headers, body: payload });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
}

beforeAll(async () => {
  emu = await startTestEmulator();
  const files = Array.from({ length: 7 }, (_, i) => writeTemp(`f${i}.txt`, `file ${i}`));
  expect((await svcInProcess(['files', 'upload', ...files], { emu })).exitCode).toBe(0);
  for (let i = 0; i < 7; i++) {
    const skill = new FormData();
    const zip = zipSync({ [`s${i}/SKILL.md`]: Buffer.from(`---\nname: s${i}\ndescription: skill ${i}\n---\n`) });
    skill.append('files', new Blob([zip], { type: 'application/zip' }), `s${i}.zip`);
    await api('POST', '/v1/skills', skill);
    const voice = new FormData();
    voice.append('name', `voice ${i}`);
    voice.append(
      'file',
      new Blob([encodeWav(Buffer.alloc(8000 * 2 * 2), { sampleRate: 8000, channels: 1 })], { type: 'audio/wav' }),
      `v${i}.wav`,
    );
    await api('POST', '/v1/custom-voices', voice);
    await api('POST', '/v2/phone-numbers', { origin: 'svc_provisioned', name: `line ${i}` });
    await api('POST', '/v1/agents', { name: `agent ${i}` });
    await api('POST', '/v1/phone-numbers', { area_code: '415', name: `v1 line ${i}` });
  }
  const input = Array.from({ length: 7 }, (_, i) => ({ role: 'user', content: `message ${i}` }));
  responseId = (await api('POST', '/v1/responses', { model: 'svc-4', input, store: true })).id;
}, 120_000);
afterAll(() => emu.close());

const parseLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const isCursor = (v: Record<string, unknown>) => Object.keys(v).length === 1 && typeof v.next_page_token === 'string';

/** Page through a list by hand: rows until the cursor record, then --page-token with its value. */
async function byHand(args: string[]): Promise<{ rows: unknown[]; pages: number }> {
  const rows: unknown[] = [];
  let token: string | undefined;
  for (let pages = 1; pages < 50; pages++) {
    const r = await svcInProcess([...args, '--json', ...(token ? ['--page-token', token] : [])], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const values = parseLines(r.stdout);
    const last = values[values.length - 1];
    if (last && isCursor(last)) {
      rows.push(...values.slice(0, -1));
      expect(values.slice(0, -1).some(isCursor)).toBe(false);
      token = last.next_page_token as string;
    } else {
      rows.push(...values);
      return { rows, pages };
    }
  }
  throw new Error('no end after 50 pages');
}

describe('every list pages by hand from its --json output alone, and gets exactly the rows of --all', () => {
  const lists: [string, () => string[]][] = [
    ['files list', () => ['files', 'list', '--limit', '2']],
    [
      'files list (sorted by name, ascending)',
      () => ['files', 'list', '--limit', '3', '--sort-by', 'filename', '--order', 'asc'],
    ],
    ['skills list', () => ['skills', 'list', '--limit', '2']],
    ['custom-voices list', () => ['custom-voices', 'list', '--limit', '2']],
    ['phone v2 list', () => ['phone', 'v2', 'list', '--limit', '2']],
    ['responses items', () => ['responses', 'items', responseId, '--limit', '2']],
  ];
  for (const [name, args] of lists) {
    it(name, async () => {
      const hand = await byHand(args());
      expect(hand.pages).toBeGreaterThanOrEqual(3);
      const all = await svcInProcess([...args(), '--all', '--json'], { emu });
      expect(all.exitCode, all.stderr).toBe(0);
      const allRows = parseLines(all.stdout);
      expect(allRows.some(isCursor)).toBe(false);
      expect(allRows.length).toBeGreaterThanOrEqual(7);
      expect(hand.rows).toEqual(allRows);
    });
  }

  it(
    'svc api --paginate follows the same cursors: one page object per line as the API sent it; --slurp makes ' +
      'one array',
    async () => {
      const r = await svcInProcess(['api', '/v1/skills', '-F', 'limit=2', '--paginate'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      const pages = parseLines(r.stdout);
      expect(pages.length).toBeGreaterThanOrEqual(4);
      expect(pages[0]).toMatchObject({ object: 'list', has_more: true });
      const skills = await svcInProcess(['skills', 'list', '--all', '--json', '--limit', '2'], { emu });
      expect(pages.flatMap((p) => p.data as unknown[])).toEqual(parseLines(skills.stdout));
      const slurp = await svcInProcess(['api', '/v1/skills', '-F', 'limit=2', '--paginate', '--slurp'], { emu });
      expect(slurp.exitCode, slurp.stderr).toBe(0);
      expect(JSON.parse(slurp.stdout)).toEqual(pages);
    },
  );

  it('the human output names the cursor on stderr, never on stdout', async () => {
    const r = await svcInProcess(['skills', 'list', '--limit', '2'], { emu });
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/more skills: --page-token skill_\w+ \(or --all\)/);
    const json = await svcInProcess(['skills', 'list', '--limit', '2', '--json'], { emu });
    expect(json.stderr).toBe('');
  });

  it('--page-token and --after together are refused before sending (exit 2)', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['skills', 'list', '--page-token', 'a', '--after', 'b'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--page-token and --after');
    expect(emu.requests()).toHaveLength(0);
  });

  it("files list --after sends the API's compatibility parameter", async () => {
    const first = parseLines((await svcInProcess(['files', 'list', '--json', '--limit', '3'], { emu })).stdout);
    emu.clearRequests();
    const r = await svcInProcess(['files', 'list', '--json', '--after', first[1]!.id as string, '--limit', '1'], {
      emu,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(emu.requests()[0]!.query).toMatchObject({ after: first[1]!.id, limit: '1' });
    expect(parseLines(r.stdout)[0]).toEqual(first[2]);
  });
});

describe('lists whose API has no cursor (agents, v1 phone numbers)', () => {
  for (const [name, args, noun] of [
    ['agents list', ['agents', 'list'], 'agents'],
    ['phone list', ['phone', 'list'], 'phone numbers'],
  ] as const) {
    it(`${name}: --limit is one reply, no cursor record; --all asks for the most one reply holds`, async () => {
      emu.clearRequests();
      const two = await svcInProcess([...args, '--limit', '2', '--json'], { emu });
      expect(two.exitCode, two.stderr).toBe(0);
      const rows = parseLines(two.stdout);
      expect(rows).toHaveLength(2);
      expect(rows.some(isCursor)).toBe(false);
      expect(two.stderr).toContain(`2 ${noun}`);
      const all = await svcInProcess([...args, '--all', '--json'], { emu });
      expect(parseLines(all.stdout)).toHaveLength(7);
      expect(emu.requests().map((q) => q.query.limit)).toEqual(['2', '1000']);
    });
  }
});

describe('the repeated-cursor guard', () => {
  let server: Server;
  let url: string;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          voices: [{ voice_id: `v${hits}`, name: 'loop' }],
          pagination_token: hits === 1 ? 'tok-a' : 'tok-b',
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a cursor sent twice stops --all with exit 1 after printing the rows that arrived', async () => {
    const r = await svcInProcess(['custom-voices', 'list', '--all', '--json'], {
      key: 'sk-test-loop',
      env: { SVC_BASE_URL: url, SVC_API_KEY: 'sk-test-loop-key-000000' },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/page cursor "tok-b" a second time/);
    expect(parseLines(r.stdout).map((v) => v.voice_id)).toEqual(['v1', 'v2', 'v3']);
    expect(hits).toBe(3);
  });
});
