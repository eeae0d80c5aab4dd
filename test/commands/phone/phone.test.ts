import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecret } from '../../helpers/secrets.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const json = (s: string) => JSON.parse(s) as Record<string, any>;

/** Run the CLI on a pseudo-terminal (util-linux `script`), typing `typed` at the prompt. */
async function onTerminal(args: string[], typed: string) {
  const r = await svcOnTerminal(args, { emu, typed });
  return { exitCode: r.exitCode, output: r.screen };
}

describe('svc phone (v1)', () => {
  let id: string;

  it('buy --yes prints the number; in a pipe as key/value lines', async () => {
    const r = await svcInProcess(
      ['phone', 'buy', '--area-code', '212', '--name', 'sales', '--description', 'main line', '--yes'],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    const rows = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(rows.phone_number).toMatch(/^\+1212\d{7}$/);
    expect(rows).toMatchObject({ name: 'sales', description: 'main line', area_code: '212', agent_id: '-' });
    id = rows.phone_number_id!;
    const sent = json(emu.requests().find((q) => q.method === 'POST')!.body!);
    expect(sent).toEqual({ area_code: '212', name: 'sales', description: 'main line' });
  });

  it('list: TSV rows, --json one object per line, --limit passed', async () => {
    const r = await svcInProcess(['phone', 'list'], { emu });
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual([id]);
    emu.clearRequests();
    const j = await svcInProcess(['phone', 'list', '--json', '--limit', '5'], { emu });
    expect(json(j.stdout.trim())).toMatchObject({ phone_number_id: id, name: 'sales', agent_id: null });
    expect(emu.requests()[0]!.query).toEqual({ limit: '5' });
  });

  it('update sends a field mask of exactly the fields given', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['phone', 'update', id, '--name', 'sales desk', '--json', '--jq', '.phone_number'], {
      emu,
    });
    expect(r.exitCode).toBe(0);
    expect(json(emu.requests()[0]!.body!)).toEqual({ name: 'sales desk', field_mask: { paths: ['name'] } });
    expect(json(r.stdout)).toMatchObject({ name: 'sales desk', description: 'main line' });
    const cleared = await svcInProcess(
      ['phone', 'update', id, '--clear-description', '--json', '--jq', '.phone_number'],
      { emu },
    );
    expect(json(cleared.stdout)).toMatchObject({ name: 'sales desk', description: null });
    const get = await svcInProcess(['phone', 'get', id, '--json', '--jq', '.phone_number'], { emu });
    expect(json(get.stdout)).toMatchObject({ name: 'sales desk', description: null });
  });

  it('release without --yes in a script exits 2 and sends nothing', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['phone', 'release', id], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `Release phone number ${id} permanently: confirmation needed, and stdin is not a terminal; pass --yes`,
    );
    expect(emu.requests()).toHaveLength(0);
    expect((await svcInProcess(['phone', 'get', id], { emu })).exitCode).toBe(0);
  });

  it('buy without --yes in a script exits 2 and sends nothing', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['phone', 'buy', '--area-code', '415', '--name', 'x'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(emu.requests()).toHaveLength(0);
  });

  it('on a terminal, release asks: "n" cancels (exit 3, nothing sent), "y" releases', async () => {
    emu.clearRequests();
    const no = await onTerminal(['phone', 'release', id], 'n\n');
    expect(no.output).toContain(`Release phone number ${id} permanently? [y/N]`);
    expect(no.output).toContain('cancelled');
    expect(no.exitCode).toBe(3);
    expect(emu.requests()).toHaveLength(0);
    const yes = await onTerminal(['phone', 'release', id], 'y\n');
    expect(yes.exitCode).toBe(0);
    expect(emu.requests().map((q) => `${q.method} ${q.path}`)).toEqual([`DELETE /v1/phone-numbers/${id}`]);
    expect((await svcInProcess(['phone', 'get', id], { emu })).exitCode).toBe(5);
  });

  it('a key with phone-number access but no agent access gets 403 (exit 4)', async () => {
    const rec = emu.addKey({ acls: ['api-key:endpoint:phone-numbers', 'api-key:model:*'] });
    registerSecret(rec.key);
    const r = await svcInProcess(['phone', 'list'], { emu, key: rec.key });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('does not have agent access');
  });
});

describe('phone v1 limits are checked before sending (exit 2, nothing sent)', () => {
  const cases: [string, string[], string][] = [
    [
      'area code of two digits',
      ['phone', 'buy', '--area-code', '41', '--name', 'x', '--yes'],
      '--area-code: 41 is not allowed: a three-digit US area code',
    ],
    [
      'area code of four digits',
      ['phone', 'buy', '--area-code', '4155', '--name', 'x', '--yes'],
      '--area-code: 4155 is not allowed',
    ],
    [
      'area code with letters',
      ['phone', 'buy', '--area-code', '4a5', '--name', 'x', '--yes'],
      '--area-code: 4a5 is not allowed',
    ],
    ['missing area code', ['phone', 'buy', '--name', 'x', '--yes'], '--area-code is required'],
    ['missing name', ['phone', 'buy', '--area-code', '415', '--yes'], '--name is required'],
    [
      'name over 255 characters',
      ['phone', 'buy', '--area-code', '415', '--name', 'n'.repeat(256), '--yes'],
      'at most 255 characters (got 256)',
    ],
    [
      'description over 1000 characters',
      ['phone', 'buy', '--area-code', '415', '--name', 'x', '--description', 'd'.repeat(1001), '--yes'],
      '--description: ',
    ],
    ['update name over 255', ['phone', 'update', 'pn_x', '--name', 'n'.repeat(256)], '--name: '],
    [
      'update description over 1000',
      ['phone', 'update', 'pn_x', '--description', 'd'.repeat(1001)],
      'at most 1000 characters (got 1001)',
    ],
    ['update with nothing', ['phone', 'update', 'pn_x'], 'nothing to update'],
    ['list limit 0', ['phone', 'list', '--limit', '0'], '--limit: 0 is not allowed: a whole number from 1 to 1000'],
    [
      'list limit 1001',
      ['phone', 'list', '--limit', '1001'],
      '--limit: 1001 is not allowed: a whole number from 1 to 1000',
    ],
  ];
  for (const [rule, args, message] of cases) {
    it(rule, async () => {
      emu.clearRequests();
      const r = await svcInProcess(args, { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }
});
