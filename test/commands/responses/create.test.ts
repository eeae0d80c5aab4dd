import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { tempDir, writeTemp } from '../../helpers/files.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const bodies = (path: string) =>
  emu
    .requests()
    .filter((r) => r.path === path && r.method === 'POST')
    .map((r) => JSON.parse(r.body!));
const lastEvent = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!);

describe('svc responses create', () => {
  it(
    'continues a stored conversation across three invocations; items lists every input in order ' + 'across pages',
    async () => {
      const configDir = tempDir();
      emu.clearRequests();
      const one = await svcInProcess(['responses', 'create', 'first question'], { emu, configDir });
      expect(one.exitCode).toBe(0);
      expect(one.stdout).toMatch(/^This is the emulator's answer to "first question"\./);
      const two = await svcInProcess(['responses', 'create', '-c', 'second question'], { emu, configDir });
      expect(two.exitCode).toBe(0);
      const three = await svcInProcess(['responses', 'create', '-c', 'third question', '--json'], { emu, configDir });
      expect(three.exitCode).toBe(0);
      const final = lastEvent(three.stdout);
      expect(final.type).toBe('response.completed');
      const id = final.response.id as string;

      const sent = bodies('/v1/responses');
      expect(sent).toHaveLength(3);
      expect(sent[0].previous_response_id).toBeUndefined();
      expect(sent[1].previous_response_id).toBeDefined();
      expect(sent[2].previous_response_id).toBeDefined();
      expect(sent[2].previous_response_id).not.toBe(sent[1].previous_response_id);
      expect(final.response.previous_response_id).toBe(sent[2].previous_response_id);

      emu.clearRequests();
      const all = await svcInProcess(['responses', 'items', id, '--all', '--limit', '2'], { emu, configDir });
      expect(all.exitCode).toBe(0);
      const rows = all.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
      expect(rows.map((r) => r[2])).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(rows.filter((r) => r[2] === 'user').map((r) => r[3])).toEqual([
        'first question',
        'second question',
        'third question',
      ]);
      const pages = emu.requests().filter((r) => r.path.endsWith('/input_items'));
      expect(pages.map((p) => p.query.after ?? null)).toEqual([null, rows[1]![0], rows[3]![0]]);

      const page = await svcInProcess(['responses', 'items', id, '--limit', '2'], { emu, configDir });
      expect(page.stdout.trim().split('\n')).toHaveLength(2);
      expect(page.stderr).toContain(`--page-token ${rows[1]![0]}`);
      const desc = await svcInProcess(['responses', 'items', id, '--order', 'desc', '--json'], { emu, configDir });
      expect(JSON.parse(desc.stdout.split('\n')[0]!).content).toBe('third question');
    },
  );

  it('streams the same text as the synchronous answer; --json streams one event per line', async () => {
    const streamed = await svcInProcess(['responses', 'create', '--no-store', 'same prompt'], { emu });
    const sync = await svcInProcess(['responses', 'create', '--no-store', '--no-stream', 'same prompt'], { emu });
    expect(streamed.stdout).toBe(sync.stdout);
    expect(streamed.stdout.endsWith('.\n')).toBe(true);
    const json = await svcInProcess(['responses', 'create', '--no-store', '--json', 'same prompt'], { emu });
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events[0].type).toBe('response.created');
    expect(
      events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join(''),
    ).toBe(streamed.stdout.trimEnd());
    const whole = await svcInProcess(['responses', 'create', '--no-store', '--no-stream', '--json', 'same prompt'], {
      emu,
    });
    expect(JSON.parse(whole.stdout)).toMatchObject({ object: 'response', status: 'completed', store: false });
  });

  it('joins piped stdin to the input, sends instructions and the request fields given', async () => {
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'responses',
        'create',
        'summarize',
        '--instructions',
        'be brief',
        '--temperature',
        '0.5',
        '--max-output-tokens',
        '50',
        '--include',
        'reasoning.encrypted_content',
        '--service-tier',
        'priority',
        '--metadata',
        'k=v',
      ],
      { emu, input: 'a long text\n' },
    );
    expect(r.exitCode).toBe(0);
    const [body] = bodies('/v1/responses');
    expect(body).toMatchObject({
      input: 'summarize\n\na long text',
      instructions: 'be brief',
      temperature: 0.5,
      max_output_tokens: 50,
      include: ['reasoning.encrypted_content'],
      service_tier: 'priority',
      metadata: { k: 'v' },
      stream: true,
    });
  });

  it('reasoning summaries stay off stdout in a pipe; a cut answer warns on stderr', async () => {
    const r = await svcInProcess(
      ['responses', 'create', '--no-store', '-m', 'svc-4-reasoning', '--reasoning-effort', 'high', 'think'],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain('Considering');
    const cut = await svcInProcess(['responses', 'create', '--no-store', '--max-output-tokens', '3', 'hello'], { emu });
    expect(cut.stdout.trim().length).toBeLessThan(30);
    expect(cut.stderr).toContain('cut off');
  });

  it('shows the server message when a model rejects reasoning effort', async () => {
    const r = await svcInProcess(
      ['responses', 'create', '--no-store', '-m', 'svc-4', '--reasoning-effort', 'high', 'x'],
      { emu },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/does not support reasoning effort.*HTTP 400/);
  });

  it('-c without a stored response is a usage error; --no-store does not become the last one', async () => {
    const configDir = tempDir();
    emu.clearRequests();
    const none = await svcInProcess(['responses', 'create', '-c', 'x'], { emu, configDir });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('no stored response to continue');
    await svcInProcess(['responses', 'create', '--no-store', 'x'], { emu, configDir });
    const still = await svcInProcess(['responses', 'create', '-c', 'x'], { emu, configDir });
    expect(still.exitCode).toBe(2);
    expect(bodies('/v1/responses')).toHaveLength(1);
  });

  it('get shows a stored response; delete makes it 404 (exit 5) and -c forgets it', async () => {
    const configDir = tempDir();
    const made = await svcInProcess(['responses', 'create', '--no-stream', '--json', 'keep me'], { emu, configDir });
    const id = JSON.parse(made.stdout).id;
    const got = await svcInProcess(['responses', 'get', id], { emu, configDir });
    expect(got.stdout).toContain(`id\t${id}`);
    expect(got.stdout).toContain('status\tcompleted');
    expect(got.stdout).toContain('This is the emulator\'s answer to "keep me"');
    const json = await svcInProcess(['responses', 'get', id, '--json'], { emu, configDir });
    expect(JSON.parse(json.stdout).id).toBe(id);
    const del = await svcInProcess(['responses', 'delete', id, '--yes'], { emu, configDir });
    expect(del.stdout).toBe(`${id}\tdeleted\n`);
    const gone = await svcInProcess(['responses', 'get', id], { emu, configDir });
    expect(gone.exitCode).toBe(5);
    expect(gone.stderr).toMatch(/not found.*HTTP 404/);
    const cont = await svcInProcess(['responses', 'create', '-c', 'x'], { emu, configDir });
    expect(cont.exitCode).toBe(2);
  });

  it('compacting one message says "1 message", not "1 messages" (issue 25, item 25)', async () => {
    const history = writeTemp('one.jsonl', `${JSON.stringify({ type: 'message', role: 'user', content: 'hi' })}\n`);
    const r = await svcInProcess(['responses', 'compact', '--model', 'svc-4', '--input', history], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('compacted 1 message into 1 item');
  });

  it('compact output is usable verbatim as the next --input', async () => {
    const configDir = tempDir();
    await svcInProcess(['responses', 'create', 'my name is Ada'], { emu, configDir });
    const r2 = await svcInProcess(['responses', 'create', '-c', 'I like tea', '--json', '--no-stream'], {
      emu,
      configDir,
    });
    const id = JSON.parse(r2.stdout).id;
    const items = await svcInProcess(['responses', 'items', id, '--all', '--json'], { emu, configDir });
    const history = writeTemp('history.jsonl', items.stdout);
    const compact = await svcInProcess(['responses', 'compact', '--model', 'svc-4', '--input', history], {
      emu,
      configDir,
    });
    expect(compact.exitCode).toBe(0);
    expect(compact.stderr).toContain('compacted 3 messages into 1 item');
    const output = JSON.parse(compact.stdout);
    expect(output[0].type).toBe('compaction');
    const ctxFile = writeTemp('ctx.json', compact.stdout);
    emu.clearRequests();
    const next = await svcInProcess(['responses', 'create', '--input', ctxFile, 'what is my name?'], {
      emu,
      configDir,
    });
    expect(next.exitCode).toBe(0);
    const [body] = bodies('/v1/responses');
    expect(body.input).toEqual([...output, { type: 'message', role: 'user', content: 'what is my name?' }]);
    // the same through stdin
    const piped = await svcInProcess(['responses', 'compact', '--model', 'svc-4', '--input', '-'], {
      emu,
      configDir,
      input: items.stdout,
    });
    expect(JSON.parse(piped.stdout)[0].type).toBe('compaction');
    const missing = await svcInProcess(['responses', 'compact', '--input', history], { emu, configDir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--model');
  });
});

describe('svc responses create with local tools', () => {
  it('runs the tool command for each call, sends function_call_output items and ends with the answer', async () => {
    const dir = tempDir();
    const log = join(dir, 'calls.log');
    const script = join(dir, 'weather.sh');
    writeFileSync(script, `#!/bin/sh\nread args\necho "$args" >> ${log}\necho "sunny and 21C"\n`, { mode: 0o755 });
    const tool = writeTemp(
      'weather.json',
      JSON.stringify({
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      }),
    );
    emu.clearRequests();
    const r = await svcInProcess(
      [
        'responses',
        'create',
        '--tool',
        tool,
        '--tool-cmd',
        `get_weather=${script}`,
        'use get_weather for Paris, then get_weather for Oslo',
      ],
      { emu },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^The tool returned sunny and 21C\./);
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(typeof c.city).toBe('string');
    const sent = bodies('/v1/responses');
    expect(sent).toHaveLength(3);
    expect(sent[0].tools[0]).toMatchObject({ type: 'function', name: 'get_weather' });
    expect(sent[1].input[0]).toMatchObject({ type: 'function_call_output', output: 'sunny and 21C' });
    expect(sent[1].previous_response_id).toBeDefined();
    expect(r.stderr).toContain('running get_weather');
  });

  it('--max-turns 1 stops with a clear message and exit 1; without --tool-cmd the calls are printed', async () => {
    const tool = writeTemp(
      't.json',
      JSON.stringify({
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
    );
    const stopped = await svcInProcess(
      [
        'responses',
        'create',
        '--no-store',
        '--tool',
        tool,
        '--tool-cmd',
        'lookup=cat',
        '--max-turns',
        '1',
        'lookup something',
      ],
      { emu },
    );
    expect(stopped.exitCode).toBe(1);
    expect(stopped.stderr).toContain(
      'stopped after 1 model turn (--max-turns 1): the model still wanted to call lookup',
    );
    const printed = await svcInProcess(['responses', 'create', '--no-store', '--tool', tool, 'lookup something'], {
      emu,
    });
    expect(printed.exitCode).toBe(0);
    const call = JSON.parse(printed.stdout.trim());
    expect(call.name).toBe('lookup');
    expect(typeof call.arguments.q).toBe('string');
  });
});

describe('the event stream reader', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // a server that sends data-only frames (no `event:` lines) and event types this client does not know
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frames = [
        {
          type: 'response.created',
          sequence_number: 0,
          response: { id: 'r1', object: 'response', status: 'in_progress', output: [], model: 'm', created_at: 1 },
        },
        { type: 'response.brand_new_kind', sequence_number: 1, whatever: { nested: true } },
        { type: 'response.output_text.delta', sequence_number: 2, delta: 'Hello' },
        { type: 'rate_limits.updated', sequence_number: 3 },
        { type: 'response.output_text.delta', sequence_number: 4, delta: ', world' },
        {
          type: 'response.completed',
          sequence_number: 5,
          response: {
            id: 'r1',
            object: 'response',
            status: 'completed',
            model: 'm',
            created_at: 1,
            store: false,
            output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hello, world' }] }],
          },
        },
      ];
      res.end(`${frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('')}: keep-alive\n\ndata: [DONE]\n\n`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('skips unknown event types and reads frames without an event line', async () => {
    const r = await svcInProcess(['responses', 'create', '--no-store', 'hi'], {
      env: { SVC_BASE_URL: url, SVC_API_KEY: 'test-key-not-secret' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('Hello, world\n');
    expect(r.stderr).toBe('');
  });
});
