import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// Commands run in-process (svcInProcess(): the same command tree, in-memory streams, the key scan): see
// test/helpers/in-process.ts.
import { spawnSvc } from '../../helpers/subprocess.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
afterEach(() => {
  emu.core.settings.tokenDelayMs = 0;
  emu.faults.clear();
});

/** Text content events the emulator has written for a request so far. */
function contentEventsSent(events: { data: any }[]) {
  return events.filter((e) => typeof e.data === 'object' && e.data?.choices?.[0]?.delta?.content).length;
}

describe('svc chat streaming', () => {
  it('prints the first token before the emulator sends the second (tokens 300 ms apart)', async () => {
    emu.core.settings.tokenDelayMs = 300;
    const sent: { data: any }[] = [];
    const onSse = (e: { data: any }) => sent.push(e);
    emu.core.on('sse', onSse);
    const child = spawnSvc(['chat', 'stream test', '--max-completion-tokens', '5'], { emu });
    let sentWhenFirstSeen = -1;
    let firstChunk = '';
    child.stdout!.on('data', (d: Buffer) => {
      if (sentWhenFirstSeen === -1 && d.toString().trim()) {
        sentWhenFirstSeen = contentEventsSent(sent);
        firstChunk = d.toString();
      }
    });
    const r = await child;
    emu.core.off('sse', onSse);
    expect(r.exitCode).toBe(0);
    expect(firstChunk.length).toBeGreaterThan(0);
    expect(sentWhenFirstSeen).toBe(1);
    expect(contentEventsSent(sent)).toBe(5);
    expect(String(r.stdout)).toBe("This is the emulator's answer\n");
  });

  it('streams the same text as the synchronous answer, ending with one newline', async () => {
    const streamed = await svcInProcess(['chat', 'same text please', '--seed', '7'], { emu });
    const sync = await svcInProcess(['chat', 'same text please', '--seed', '7', '--no-stream'], { emu });
    expect(streamed.exitCode).toBe(0);
    expect(streamed.stdout).toBe(sync.stdout);
    expect(streamed.stdout.endsWith('.\n')).toBe(true);
  });

  it('joins piped stdin to the prompt', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['chat', 'summarize'], { emu, input: 'line one\nline two\n' });
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(emu.requests().at(-1)!.body!);
    expect(body.messages).toEqual([{ role: 'user', content: 'summarize\n\nline one\nline two' }]);
    expect(body.stream).toBe(true);
  });

  it('--json prints every chunk as one JSON line, with the usage chunk', async () => {
    const r = await svcInProcess(['chat', 'json please', '--json'], { emu });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(lines.at(-1).usage.total_tokens).toBeGreaterThan(0);
  });

  it('--no-stream --json prints the one completion object as the API sent it, on one line', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['chat', 'whole please', '--seed', '7', '--no-stream', '--json'], { emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    const body = JSON.parse(emu.requests().at(-1)!.body!);
    expect(body.stream).not.toBe(true);
    const completion = JSON.parse(r.stdout);
    expect(completion).toMatchObject({
      object: 'chat.completion',
      id: expect.any(String),
      created: expect.any(Number),
      model: expect.stringMatching(/^svc-/),
    });
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant' } });
    expect(completion.usage.total_tokens).toBe(completion.usage.prompt_tokens + completion.usage.completion_tokens);
    const plain = await svcInProcess(['chat', 'whole please', '--seed', '7', '--no-stream'], { emu });
    expect(`${completion.choices[0].message.content}\n`).toBe(plain.stdout);
  });

  it('-u prints usage and cost on stderr, not stdout', async () => {
    const r = await svcInProcess(['chat', 'cost please', '-u'], { emu });
    expect(r.stderr).toMatch(/usage: \d+ prompt \+ \d+ completion = \d+ tokens · \$\d+\.\d{6} · svc-4/);
    expect(r.stdout).not.toContain('usage');
  });

  it('keeps the text already printed when the connection drops mid-stream, explains, exits non-zero', async () => {
    emu.faults.add({ kind: 'drop', afterEvents: 4, path: '/v1/chat/completions' });
    const r = await svcInProcess(['chat', 'drop me'], { emu });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^This is/);
    expect(r.stdout.length).toBeGreaterThan(4);
    expect(r.stderr).toMatch(/connection was lost in the middle of the stream/);
  });

  it('never retries a stream that has started; a 429 before it starts is retried', async () => {
    emu.faults.add({ kind: 'status', status: 429, retryAfter: '0', path: '/v1/chat/completions' });
    emu.clearRequests();
    const r = await svcInProcess(['chat', 'after a 429'], { emu });
    expect(r.exitCode).toBe(0);
    expect(emu.requests().filter((q) => q.path === '/v1/chat/completions')).toHaveLength(2);
  });

  it('SIGINT mid-stream exits 130 with the partial text flushed', async () => {
    emu.core.settings.tokenDelayMs = 150;
    const child = spawnSvc(['chat', 'interrupt me'], { emu });
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        seen += d.toString();
        if (seen.length > 20) resolve();
      });
    });
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    // everything that reached stdout before the signal is still there, and the answer was cut short
    expect(String(r.stdout).startsWith(seen)).toBe(true);
    expect(String(r.stdout)).toMatch(/^This is the emulator's/);
    expect(String(r.stdout).length).toBeLessThan(120);
  });

  it('prints tool calls as JSON lines in a pipe', async () => {
    const { writeTemp } = await import('../../helpers/files.js');
    const tool = writeTemp(
      'tool.json',
      JSON.stringify({
        name: 'get_weather',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
          required: ['city', 'days'],
        },
      }),
    );
    const r = await svcInProcess(['chat', '--tool', tool, 'what is the weather in Paris?'], { emu });
    expect(r.exitCode).toBe(0);
    const call = JSON.parse(r.stdout.trim());
    expect(call.name).toBe('get_weather');
    expect(typeof call.arguments.city).toBe('string');
    expect(call.arguments.days).toBeGreaterThanOrEqual(1);
    expect(call.arguments.days).toBeLessThanOrEqual(7);
  });

  it('--schema gets JSON valid against the schema', async () => {
    const { writeTemp } = await import('../../helpers/files.js');
    const schema = writeTemp(
      's.json',
      JSON.stringify({
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', minimum: 0, maximum: 120 },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        },
        required: ['name', 'age', 'tags'],
      }),
    );
    const r = await svcInProcess(['chat', '--schema', schema, 'invent a person'], { emu });
    const v = JSON.parse(r.stdout);
    expect(typeof v.name).toBe('string');
    expect(Number.isInteger(v.age)).toBe(true);
    expect(v.tags.every((t: string) => t === 'a' || t === 'b')).toBe(true);
  });

  it('--image sends a local file as a data URL image part', async () => {
    const { writeTemp } = await import('../../helpers/files.js');
    const png = writeTemp('x.png', Buffer.from('89504e470d0a1a0a', 'hex'));
    emu.clearRequests();
    const r = await svcInProcess(['chat', '--image', png, 'describe'], { emu });
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(emu.requests().at(-1)!.body!);
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'describe' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]);
  });
});
