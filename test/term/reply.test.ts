// The one --json rule for single resources: the reply body as the API sent it, wrapper included, for every
// command (phone buy / get / update, agents create / get / update, phone v2 create alike).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const keys = (stdout: string) => Object.keys(JSON.parse(stdout)).sort();

describe('--json of a single resource is the reply as sent', () => {
  it('agents create / get / update keep the {agent} wrapper', async () => {
    const created = await svcInProcess(['agents', 'create', '--name', 'w', '--json'], { emu });
    expect(keys(created.stdout)).toEqual(['agent']);
    const id = JSON.parse(created.stdout).agent.agent_id;
    // agents get adds the numbers assigned to the agent beside the wrapper (docs/scripting.md), the wrapper as sent
    const got = await svcInProcess(['agents', 'get', id, '--json'], { emu });
    expect(keys(got.stdout)).toEqual(['agent', 'phone_numbers']);
    expect(JSON.parse(got.stdout).agent).toEqual(JSON.parse(created.stdout).agent);
    expect(keys((await svcInProcess(['agents', 'update', id, '--name', 'w2', '--json'], { emu })).stdout)).toEqual([
      'agent',
    ]);
  });

  it(
    'phone buy / get / update keep the {phone_number} wrapper, as phone v2 create keeps ' + '{phone_number, webhook}',
    async () => {
      const bought = await svcInProcess(['phone', 'buy', '--area-code', '415', '--name', 'x', '--yes', '--json'], {
        emu,
      });
      expect(keys(bought.stdout)).toEqual(['phone_number']);
      const id = JSON.parse(bought.stdout).phone_number.phone_number_id;
      expect(keys((await svcInProcess(['phone', 'get', id, '--json'], { emu })).stdout)).toEqual(['phone_number']);
      expect(keys((await svcInProcess(['phone', 'update', id, '--name', 'y', '--json'], { emu })).stdout)).toEqual([
        'phone_number',
      ]);
      const v2 = await svcInProcess(
        [
          'phone',
          'v2',
          'create',
          '--origin',
          'svc_provisioned',
          '--name',
          'z',
          '--webhook-url',
          'https://example.com/h',
          '--yes',
          '--json',
        ],
        { emu },
      );
      expect(keys(v2.stdout)).toEqual(['phone_number', 'webhook']);
    },
  );

  it('--jq sees the same reply', async () => {
    const r = await svcInProcess(['agents', 'create', '--name', 'j', '--jq', '.agent.name'], { emu });
    expect(r.stdout).toBe('j\n');
  });
});
