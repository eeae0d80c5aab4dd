// --jq: real jq on the --json output of any command, loaded only when given; a bad expression exits 2 before
// anything is sent, a runtime error exits 1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir, writeTemp } from '../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcProcess } from '../helpers/subprocess.js';

let emu: TestEmulator;
const ids: string[] = [];
beforeAll(async () => {
  emu = await startTestEmulator();
  const r = await svcInProcess(['files', 'upload', writeTemp('a.txt', 'aaa'), writeTemp('b.txt', 'bbbbbb'), '--json'], {
    emu,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  for (const line of r.stdout.split('\n').filter(Boolean)) ids.push(JSON.parse(line).id);
});
afterAll(() => emu.close());

describe('--jq', () => {
  it('svc files list --json --jq .id prints the ids, one per line, raw', async () => {
    const r = await svcInProcess(['files', 'list', '--json', '--jq', '.id'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual([...ids].sort());
  });

  it('svc api /v1/models --jq .data[].id prints the model ids (and implies --json)', async () => {
    const r = await svcInProcess(['api', '/v1/models', '--jq', '.data[].id'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    const models = JSON.parse((await svcInProcess(['api', '/v1/models'], { emu })).stdout).data.map(
      (m: { id: string }) => m.id,
    );
    expect(r.stdout).toBe(models.map((id: string) => `${id}\n`).join(''));
    expect(models).toContain('svc-4');
  });

  it('real jq semantics: select, arithmetic, object construction, string interpolation', async () => {
    const big = await svcInProcess(['files', 'list', '--jq', 'select(.bytes > 4) | "\\(.filename)=\\(.bytes * 2)"'], {
      emu,
    });
    expect(big.stdout).toBe('b.txt=12\n');
    const obj = await svcInProcess(['files', 'get', ids[0]!, '--jq', '{name: .filename, size: .bytes}'], { emu });
    expect(JSON.parse(obj.stdout)).toEqual({ name: 'a.txt', size: 3 });
  });

  it('--jq sees rows only: the cursor of a list is a note on stderr, not a null into xargs', async () => {
    const first = await svcInProcess(['files', 'list', '--limit', '1', '--jq', '.id'], { emu });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    expect(first.stdout).not.toContain('null');
    const token = /--page-token (\S+)/.exec(first.stderr)?.[1];
    expect(token).toBeDefined();
    const page = await svcInProcess(['files', 'list', '--limit', '1', '--page-token', token!, '--jq', '.id'], { emu });
    expect(page.stdout.trim().split('\n')).toHaveLength(1);
    expect(new Set([first.stdout, page.stdout]).size).toBe(2);
    // --json alone keeps the cursor record
    const json = await svcInProcess(['files', 'list', '--limit', '1', '--json'], { emu });
    expect(json.stdout.trim().split('\n').at(-1)).toMatch(/^\{"next_page_token":"\S+"\}$/);
  });

  it('--jq on a reply that is not JSON is an error, not ignored (issue 25, item 17)', async () => {
    const id = ids[0]!;
    const text = await svcInProcess(['api', `/v1/files/${id}/content`, '--jq', '.'], { emu });
    expect(text.exitCode).toBe(1);
    expect(text.stderr).toMatch(/--jq: the reply is \S+, not JSON: there is nothing to filter/);
    expect(text.stdout).toBe('');
    // a command that prints bytes says so before sending
    for (const args of [
      ['files', 'download', id, '-o', '-'],
      ['tts', 'say', 'hello', '-o', '-'],
    ]) {
      emu.clearRequests();
      const bytes = await svcInProcess([...args, '--jq', '.'], { emu });
      expect(bytes.exitCode).toBe(2);
      expect(bytes.stderr).toContain('--jq: the output is bytes, not JSON');
      expect(bytes.stdout).toBe('');
      expect(emu.requests()).toEqual([]);
    }
  });

  it('a bad expression exits 2 naming it, before any request', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['files', 'list', '--jq', '.data['], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--jq: "\.data\[" is not a valid jq expression: .*syntax error/);
    expect(r.stdout).toBe('');
    expect(emu.requests()).toEqual([]);
    const unknown = await svcInProcess(['api', '/v1/models', '--jq', 'nosuchfn(1)'], { emu });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/nosuchfn\/1 is not defined/);
  });

  it("a runtime error exits 1 with jq's message", async () => {
    const r = await svcInProcess(['files', 'list', '--jq', '.id | error("stop here")'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/--jq: error: stop here/);
  });

  it('jq is loaded only with --jq', async () => {
    const trace = join(tempDir(), 'imports.txt');
    const r = await svcProcess(['files', 'list', '--json'], {
      emu,
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: { SVC_TRACE_IMPORTS: trace },
    });
    expect(r.exitCode).toBe(0);
    const loaded = readFileSync(trace, 'utf8');
    expect(loaded).toMatch(/\/commands\/files\/list[-.]/);
    expect(loaded).not.toMatch(/jq-web|\/term\/jq[-.]/);
    const trace2 = join(tempDir(), 'imports.txt');
    await svcProcess(['files', 'list', '--jq', '.id'], {
      emu,
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: { SVC_TRACE_IMPORTS: trace2 },
    });
    expect(readFileSync(trace2, 'utf8')).toMatch(/jq-web/);
  });
});
