import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
let agentId: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  agentId = JSON.parse(
    (await svcInProcess(['agents', 'create', '--name', 'router', '--json', '--jq', '.agent'], { emu })).stdout,
  ).agent_id;
});
afterAll(() => emu.close());

const json = (s: string) => JSON.parse(s) as Record<string, any>;

describe('svc phone v2', () => {
  it('create with a webhook prints the signing secret once, on stdout, with a note on stderr', async () => {
    const r = await svcInProcess(
      [
        'phone',
        'v2',
        'create',
        '--origin',
        'svc_provisioned',
        '--name',
        'support',
        '--agent',
        agentId,
        '--webhook-url',
        'https://example.com/hook',
        '--allowed-address',
        '203.0.113.0/24',
        '--yes',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    const rows = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(rows.webhook_secret).toMatch(/^whsec_/);
    expect(rows).toMatchObject({
      origin: 'svc_provisioned',
      name: 'support',
      agent_id: agentId,
      webhook_url: 'https://example.com/hook',
    });
    expect(r.stderr).toContain('shown this once');
    expect(r.stderr).not.toContain(rows.webhook_secret!);
    const sent = json(emu.requests().find((q) => q.method === 'POST' && q.path === '/v2/phone-numbers')!.body!);
    expect(sent).toEqual({
      origin: 'svc_provisioned',
      name: 'support',
      agent_id: agentId,
      webhook: { name: 'support', url: 'https://example.com/hook' },
      sip_auth: { allowed_addresses: ['203.0.113.0/24'] },
    });
    // the list never shows it again
    const list = await svcInProcess(['phone', 'v2', 'list', '--json'], { emu });
    expect(list.stdout).not.toContain(rows.webhook_secret!);
  });

  it('create byo_trunk with --number; --json prints phone_number and webhook as sent', async () => {
    const r = await svcInProcess(
      ['phone', 'v2', 'create', '--origin', 'byo_trunk', '--name', 'pbx', '--number', '+14155550100', '--json'],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    const body = json(r.stdout);
    expect(body.phone_number).toMatchObject({
      phone_number: '+14155550100',
      origin: 'byo_trunk',
      name: 'pbx',
      agent_id: null,
    });
    expect(body.webhook).toBeNull();
    // registering it again: 409
    const again = await svcInProcess(
      ['phone', 'v2', 'create', '--origin', 'byo_trunk', '--name', 'pbx', '--number', '+14155550100'],
      { emu },
    );
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('HTTP 409');
  });

  it(
    'list pages with pagination_token (--all), filters by --agent, clamps the page size at 100 with ' + 'a note',
    async () => {
      for (let i = 0; i < 3; i++) {
        expect(
          (
            await svcInProcess(
              [
                'phone',
                'v2',
                'create',
                '--origin',
                'svc_provisioned',
                '--name',
                `n${i}`,
                ...(i === 0 ? ['--agent', agentId] : []),
                '--yes',
              ],
              { emu },
            )
          ).exitCode,
        ).toBe(0);
      }
      emu.clearRequests();
      const page = await svcInProcess(['phone', 'v2', 'list', '--limit', '2'], { emu });
      expect(page.stdout.trim().split('\n')).toHaveLength(2);
      expect(page.stderr).toMatch(/more phone numbers: --page-token pn_\w+ \(or --all\)/);
      const all = await svcInProcess(['phone', 'v2', 'list', '--limit', '2', '--all', '--json'], { emu });
      const names = all.stdout
        .trim()
        .split('\n')
        .map((l) => json(l).name);
      expect(names).toEqual(['support', 'pbx', 'n0', 'n1', 'n2']);
      const queries = emu
        .requests()
        .slice(1)
        .map((q) => q.query);
      expect(queries).toEqual([
        { limit: '2' },
        { limit: '2', pagination_token: expect.stringMatching(/^pn_/) },
        { limit: '2', pagination_token: expect.stringMatching(/^pn_/) },
      ]);

      const mine = await svcInProcess(['phone', 'v2', 'list', '--agent', agentId], { emu });
      expect(
        mine.stdout
          .trim()
          .split('\n')
          .map((l) => l.split('\t')[2]),
      ).toEqual(['support', 'n0']);

      emu.clearRequests();
      const clamped = await svcInProcess(['phone', 'v2', 'list', '--limit', '500'], { emu });
      expect(clamped.exitCode).toBe(0);
      expect(clamped.stderr).toContain('--limit 500 is above the page size maximum; using 100 per page');
      expect(emu.requests()[0]!.query).toEqual({ limit: '100' });
    },
  );

  it('delete asks for --yes in a script, then removes the number (204)', async () => {
    const id = json(
      (
        await svcInProcess(
          ['phone', 'v2', 'create', '--origin', 'svc_provisioned', '--name', 'temp', '--json', '--yes'],
          { emu },
        )
      ).stdout,
    ).phone_number.phone_number_id;
    emu.clearRequests();
    const no = await svcInProcess(['phone', 'v2', 'delete', id], { emu });
    expect(no.exitCode).toBe(2);
    expect(emu.requests()).toHaveLength(0);
    const yes = await svcInProcess(['phone', 'v2', 'delete', id, '--yes'], { emu });
    expect(yes.exitCode).toBe(0);
    const list = await svcInProcess(['phone', 'v2', 'list', '--all', '--json'], { emu });
    expect(list.stdout).not.toContain(id);
    expect((await svcInProcess(['phone', 'v2', 'delete', id, '--yes'], { emu })).exitCode).toBe(5);
  });
});

describe('phone v2 rules are checked before sending (exit 2, nothing sent)', () => {
  const cases: [string, string[], string][] = [
    [
      'unknown origin',
      ['--origin', 'imported', '--name', 'x'],
      '--origin: imported is not allowed: one of svc_provisioned, byo_trunk',
    ],
    ['missing origin', ['--name', 'x'], '--origin is required'],
    ['missing name', ['--origin', 'svc_provisioned'], '--name is required'],
    ['name over 255', ['--origin', 'svc_provisioned', '--name', 'n'.repeat(256)], 'at most 255 characters (got 256)'],
    [
      '--number with svc_provisioned',
      ['--origin', 'svc_provisioned', '--name', 'x', '--number', '+14155550100'],
      '--number: +14155550100 is not allowed: only with --origin byo_trunk',
    ],
    [
      'byo_trunk without --number',
      ['--origin', 'byo_trunk', '--name', 'x'],
      '--number: (missing) is not allowed: required with --origin byo_trunk',
    ],
    [
      'number not E.164',
      ['--origin', 'byo_trunk', '--name', 'x', '--number', '415-555-0100'],
      '--number: 415-555-0100 is not allowed: a number in E.164 form',
    ],
    [
      'webhook URL not http(s)',
      ['--origin', 'svc_provisioned', '--name', 'x', '--webhook-url', 'ftp://example.com/x'],
      '--webhook-url: ftp://example.com/x is not allowed: an http:// or https:// URL',
    ],
    [
      'webhook name without URL',
      ['--origin', 'svc_provisioned', '--name', 'x', '--webhook-name', 'w'],
      '--webhook-name: w is not allowed: only together with --webhook-url',
    ],
    [
      'address not CIDR',
      ['--origin', 'byo_trunk', '--name', 'x', '--number', '+14155550101', '--allowed-address', '203.0.113.7'],
      '--allowed-address: 203.0.113.7 is not allowed: a CIDR block',
    ],
    [
      'CIDR prefix too long',
      ['--origin', 'byo_trunk', '--name', 'x', '--number', '+14155550101', '--allowed-address', '10.0.0.0/33'],
      '--allowed-address: 10.0.0.0/33 is not allowed',
    ],
  ];
  for (const [rule, args, message] of cases) {
    it(rule, async () => {
      emu.clearRequests();
      const r = await svcInProcess(['phone', 'v2', 'create', ...args], { emu });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(message);
      expect(emu.requests()).toHaveLength(0);
    });
  }

  it('list --limit below 1', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['phone', 'v2', 'list', '--limit', '0'], { emu });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--limit: 0 is not allowed: a whole number of at least 1');
    expect(emu.requests()).toHaveLength(0);
  });
});
