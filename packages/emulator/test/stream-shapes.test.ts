// Streams shaped as recorded streams of the service are (issue 12 items 9 and 11): a streamed chat tool call comes
// whole in one chunk, and legacy completions with stream: true are streamed, never answered with a plain body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

async function events(path: string, body: Record<string, unknown>): Promise<{ contentType: string; data: string[] }> {
  const r = await fetch(`${emu.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  const text = await r.text();
  return {
    contentType: r.headers.get('content-type') ?? '',
    data: text
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => f.slice(6)),
  };
}

describe('streamed shapes', () => {
  it('a streamed chat tool call is one chunk with id, type, name, the whole arguments and index', async () => {
    const tools = ['get_weather', 'get_time'].map((name) => ({
      type: 'function',
      function: {
        name,
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
          required: ['city', 'days'],
        },
      },
    }));
    const { data } = await events('/v1/chat/completions', {
      model: 'svc-4',
      stream: true,
      tools,
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'call get_weather for Lima' }],
    });
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    const withCalls = chunks.filter((c) => c.choices[0]?.delta?.tool_calls);
    expect(withCalls.length).toBeGreaterThan(0);
    for (const c of withCalls) {
      for (const call of c.choices[0].delta.tool_calls) {
        expect(call).toMatchObject({
          index: expect.any(Number),
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: expect.any(String), arguments: expect.any(String) },
        });
        const args = JSON.parse(call.function.arguments);
        expect(Object.keys(args).sort()).toEqual(['city', 'days']);
      }
    }
    // one chunk per call: no call index appears twice
    const indexes = withCalls.flatMap((c) => c.choices[0].delta.tool_calls.map((t: { index: number }) => t.index));
    expect(new Set(indexes).size).toBe(indexes.length);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('legacy completions with stream: true answer server-sent text_completion chunks ending in [DONE]', async () => {
    const plain = await (
      await fetch(`${emu.url}/v1/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-3', prompt: ['Once upon', 'A time'], n: 2, max_tokens: 12, seed: 3 }),
      })
    ).json();
    const { contentType, data } = await events('/v1/completions', {
      model: 'svc-3',
      prompt: ['Once upon', 'A time'],
      n: 2,
      max_tokens: 12,
      seed: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.every((c) => c.object === 'text_completion' && c.id === chunks[0].id)).toBe(true);
    // the pieces of each choice concatenate to the text the non-streamed call gives
    const texts = new Map<number, string>();
    const finish = new Map<number, string>();
    for (const c of chunks) {
      for (const ch of c.choices) {
        texts.set(ch.index, (texts.get(ch.index) ?? '') + ch.text);
        if (ch.finish_reason) finish.set(ch.index, ch.finish_reason);
      }
    }
    expect([...texts.keys()].sort()).toEqual([0, 1, 2, 3]);
    for (const c of plain.choices) {
      expect(texts.get(c.index)).toBe(c.text);
      expect(finish.get(c.index)).toBe(c.finish_reason);
    }
    // the usage chunk, when asked for, comes last with no choices
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: plain.usage });
    const r = await fetch(`${emu.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-3', prompt: 'x', stream: 'yes' }),
    });
    expect(r.status).toBe(400);
  });
});
