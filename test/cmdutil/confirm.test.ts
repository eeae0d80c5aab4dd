// The one confirmation rule, through every irreversible or billable command: off a terminal without --yes it exits
// 2 and the emulator sees no request; with --yes (or -y) it is done; on a terminal it asks, and "n" sends nothing.
// docs/scripting.md lists exactly the commands that take --yes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from 'svc-formats/audio-codecs';
import { zipSync } from 'fflate';
import { rootCommands } from '../../src/commands/index.js';
import type { CommandNode } from '../../src/cmdutil/command.js';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { ROOT, tempDir } from '../helpers/files.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcOnTerminal } from '../helpers/terminal.js';

let emu: TestEmulator;
const configDir = tempDir('svc-confirm-cfg-');

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
  return res.status === 204 ? undefined : res.json();
}

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** Each case makes what it acts on, then gives the command's arguments (without --yes) and the request it must send. */
interface Case {
  name: string;
  make: () => Promise<string[]>;
  request: { method: string; path: RegExp };
}

const fileId = async () => {
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'a.txt');
  return (await api('POST', '/v1/files', form)).id as string;
};

const cases: Case[] = [
  {
    name: 'files delete',
    make: async () => ['files', 'delete', await fileId(), await fileId()],
    request: { method: 'DELETE', path: /^\/v1\/files\/file_/ },
  },
  {
    name: 'files unshare',
    make: async () => {
      const id = await fileId();
      await api('POST', `/v1/files/${id}/public-url`, {});
      return ['files', 'unshare', id];
    },
    request: { method: 'POST', path: /\/public-url\/revoke$/ },
  },
  {
    name: 'skills delete',
    make: async () => {
      const form = new FormData();
      form.append(
        'files',
        new Blob([zipSync({ 'SKILL.md': Buffer.from('---\nname: s\ndescription: d\n---\n') })], {
          type: 'application/zip',
        }),
        's.zip',
      );
      return ['skills', 'delete', (await api('POST', '/v1/skills', form)).id];
    },
    request: { method: 'DELETE', path: /^\/v1\/skills\// },
  },
  {
    name: 'responses delete',
    make: async () => [
      'responses',
      'delete',
      (await api('POST', '/v1/responses', { model: 'svc-4', input: 'hi', store: true })).id,
    ],
    request: { method: 'DELETE', path: /^\/v1\/responses\// },
  },
  {
    name: 'custom-voices delete',
    make: async () => {
      const form = new FormData();
      form.append(
        'file',
        new Blob([encodeWav(Buffer.alloc(16000 * 2), { sampleRate: 8000, channels: 1 })], { type: 'audio/wav' }),
        'v.wav',
      );
      return ['custom-voices', 'delete', (await api('POST', '/v1/custom-voices', form)).voice_id];
    },
    request: { method: 'DELETE', path: /^\/v1\/custom-voices\// },
  },
  {
    name: 'agents delete',
    make: async () => ['agents', 'delete', (await api('POST', '/v1/agents', { name: 'a' })).agent.agent_id],
    request: { method: 'DELETE', path: /^\/v1\/agents\// },
  },
  {
    name: 'phone buy',
    make: async () => ['phone', 'buy', '--area-code', '415', '--name', 'desk'],
    request: { method: 'POST', path: /^\/v1\/phone-numbers$/ },
  },
  {
    name: 'phone release',
    make: async () => [
      'phone',
      'release',
      (await api('POST', '/v1/phone-numbers', { area_code: '415', name: 'x' })).phone_number.phone_number_id,
    ],
    request: { method: 'DELETE', path: /^\/v1\/phone-numbers\// },
  },
  {
    name: 'phone v2 create (provision)',
    make: async () => ['phone', 'v2', 'create', '--origin', 'svc_provisioned', '--name', 'line'],
    request: { method: 'POST', path: /^\/v2\/phone-numbers$/ },
  },
  {
    name: 'phone v2 delete',
    make: async () => [
      'phone',
      'v2',
      'delete',
      (await api('POST', '/v2/phone-numbers', { origin: 'svc_provisioned', name: 'y' })).phone_number.phone_number_id,
    ],
    request: { method: 'DELETE', path: /^\/v2\/phone-numbers\// },
  },
];

describe('irreversible and billable commands: off a terminal --yes is required', () => {
  for (const c of cases) {
    it(`${c.name}: exit 2 and nothing sent without --yes; done with --yes`, async () => {
      const args = await c.make();
      emu.clearRequests();
      const no = await svcInProcess(args, { emu, input: '' });
      expect(no.exitCode, no.stderr).toBe(2);
      expect(no.stderr).toMatch(/confirmation needed, and stdin is not a terminal; pass --yes/);
      expect(emu.requests()).toEqual([]);
      const yes = await svcInProcess([...args, c.name.includes('delete') ? '-y' : '--yes'], { emu });
      expect(yes.exitCode, yes.stderr).toBe(0);
      expect(emu.requests().some((r) => r.method === c.request.method && c.request.path.test(r.path))).toBe(true);
    });
  }

  it(
    'conversations delete (local history): exit 2 without --yes, the conversation stays; gone with ' + '--yes',
    async () => {
      const made = await svcInProcess(['chat', 'hello'], { emu, configDir });
      expect(made.exitCode, made.stderr).toBe(0);
      const id = (await svcInProcess(['conversations', 'list', '--json'], { emu, configDir })).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id)[0];
      expect(id).toMatch(/^conv_/);
      const no = await svcInProcess(['conversations', 'delete', id], { emu, configDir });
      expect(no.exitCode).toBe(2);
      expect((await svcInProcess(['conversations', 'show', id], { emu, configDir })).exitCode).toBe(0);
      expect((await svcInProcess(['conversations', 'delete', id, '--yes'], { emu, configDir })).exitCode).toBe(0);
      expect((await svcInProcess(['conversations', 'show', id], { emu, configDir })).exitCode).toBe(5);
    },
  );
});

describe('on a terminal the command asks', () => {
  it('"n" cancels (exit 3, nothing sent); "y" deletes', async () => {
    const id = await fileId();
    emu.clearRequests();
    const no = await svcOnTerminal(['files', 'delete', id], { emu, typed: 'n\n' });
    expect(no.screen).toContain(`Delete file ${id} permanently? [y/N]`);
    expect(no.exitCode).toBe(3);
    expect(emu.requests()).toEqual([]);
    const yes = await svcOnTerminal(['files', 'delete', id], { emu, typed: 'y\n' });
    expect(yes.exitCode).toBe(0);
    expect(emu.requests().map((r) => r.method)).toEqual(['DELETE']);
  });
});

describe('docs/scripting.md lists every command that takes --yes, and only those', () => {
  it('matches the command tree', async () => {
    const withYes: string[] = [];
    const walk = async (nodes: CommandNode[], prefix: string[]) => {
      for (const n of nodes) {
        if (n.load) {
          const spec = (await n.load()).default;
          if (spec.options?.some((o) => o.flags === '-y, --yes')) withYes.push([...prefix, n.name].join(' '));
        }
        if (n.children) await walk(await n.children(), [...prefix, n.name]);
      }
    };
    await walk(rootCommands, []);
    const doc = readFileSync(join(ROOT, 'docs', 'scripting.md'), 'utf8');
    const section = doc.slice(
      doc.indexOf('## Confirmations'),
      doc.indexOf('\n## ', doc.indexOf('## Confirmations') + 5),
    );
    const listed = [...section.matchAll(/^\| `svc ([a-z0-9 -]+)` \|/gm)].map((m) => m[1]!.trim());
    expect(withYes.sort()).toEqual(listed.sort());
    expect(withYes.length).toBeGreaterThanOrEqual(11);
  });
});
