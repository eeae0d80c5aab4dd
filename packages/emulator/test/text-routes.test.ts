// The emulator's text and retrieval routes spoken to over HTTP: stored responses and their state rules, the
// event stream, compaction, messages and legacy shapes, embeddings, the BPE tokenizer and document search.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

let emu: TestEmulator;
let docs: string;

beforeAll(async () => {
  docs = tempDir('svc-docs-');
  mkdirSync(join(docs, 'pets'));
  writeFileSync(
    join(docs, 'pets', 'cats.md'),
    '---\nauthor: ann\nyear: 2023\n---\n# Cats\n\nCats are small carnivorous mammals. A cat sleeps most of ' +
      'the day and purrs.\n\nWhiskers help a cat feel its way in the dark.\n',
  );
  writeFileSync(
    join(docs, 'pets', 'dogs.md'),
    '---\nauthor: bob\nyear: 2021\n---\n# Dogs\n\nDogs are loyal companions. A dog barks at strangers and ' +
      'loves long walks.\n',
  );
  writeFileSync(join(docs, 'weather.txt'), 'The weather in Paris is mild in spring. Rain falls often in November.\n');
  emu = await startTestEmulator({ collections: { pets: join(docs, 'pets'), all: docs } });
});
afterAll(() => emu.close());

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${emu.key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

const textOf = (r: any) =>
  r.output
    .filter((i: any) => i.type === 'message')
    .flatMap((i: any) => i.content.map((c: any) => c.text))
    .join('');

describe('stored responses', () => {
  it(
    'are retrievable, continue with previous_response_id, list input items by cursor, and 404 once ' + 'deleted',
    async () => {
      const first = await api('POST', '/v1/responses', {
        model: 'svc-4',
        input: 'first question',
        instructions: 'be brief',
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        object: 'response',
        status: 'completed',
        store: true,
        instructions: 'be brief',
        model: 'svc-4',
      });
      expect(first.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.body.output[0].id).toMatch(/^msg_/);
      for (const f of [
        'background',
        'created_at',
        'metadata',
        'parallel_tool_calls',
        'service_tier',
        'text',
        'tool_choice',
        'tools',
        'top_logprobs',
        'truncation',
        'frequency_penalty',
        'presence_penalty',
      ]) {
        expect(first.body).toHaveProperty(f);
      }
      const second = await api('POST', '/v1/responses', {
        model: 'svc-4',
        input: 'second question',
        previous_response_id: first.body.id,
      });
      expect(second.status).toBe(200);
      expect(second.body.previous_response_id).toBe(first.body.id);
      expect(second.body.instructions).toBe('be brief');

      const got = await api('GET', `/v1/responses/${second.body.id}`);
      expect(got.body).toEqual(second.body);

      const page1 = await api('GET', `/v1/responses/${second.body.id}/input_items?limit=2`);
      expect(page1.body).toMatchObject({ object: 'list', has_more: true });
      expect(page1.body.data.map((i: any) => i.role)).toEqual(['user', 'assistant']);
      expect(page1.body.first_id).toBe(page1.body.data[0].id);
      const page2 = await api('GET', `/v1/responses/${second.body.id}/input_items?limit=2&after=${page1.body.last_id}`);
      expect(page2.body.has_more).toBe(false);
      expect(page2.body.data.map((i: any) => i.content)).toEqual(['second question']);
      const desc = await api('GET', `/v1/responses/${second.body.id}/input_items?order=desc`);
      expect(desc.body.data[0].content).toBe('second question');

      const del = await api('DELETE', `/v1/responses/${first.body.id}`);
      expect(del.body).toEqual({ id: first.body.id, object: 'response', deleted: true });
      expect((await api('GET', `/v1/responses/${first.body.id}`)).status).toBe(404);
      expect((await api('DELETE', `/v1/responses/${first.body.id}`)).status).toBe(404);
      const orphan = await api('POST', '/v1/responses', {
        model: 'svc-4',
        input: 'x',
        previous_response_id: first.body.id,
      });
      expect(orphan.status).toBe(400);
    },
  );

  it('rejects instructions together with previous_response_id, and out-of-range fields', async () => {
    const first = await api('POST', '/v1/responses', { model: 'svc-4', input: 'hello' });
    const both = await api('POST', '/v1/responses', {
      model: 'svc-4',
      input: 'x',
      previous_response_id: first.body.id,
      instructions: 'y',
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatch(/instructions.*previous_response_id/);
    for (const [field, value] of [
      ['temperature', 2.5],
      ['top_p', 0],
      ['top_logprobs', 9],
      ['max_output_tokens', 0],
    ] as const) {
      const r = await api('POST', '/v1/responses', { model: 'svc-4', input: 'x', [field]: value, logprobs: true });
      expect(r.status, field).toBe(400);
      expect(r.body.error).toContain(field);
    }
    const page = await api('GET', `/v1/responses/${first.body.id}/input_items?limit=101`);
    expect(page.status).toBe(400);
    const missing = await api('POST', '/v1/responses', { model: 'svc-4' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('missing field `input`');
    const effort = await api('POST', '/v1/responses', { model: 'svc-4', input: 'x', reasoning: { effort: 'high' } });
    expect(effort.status).toBe(400);
  });

  it('store: false is not kept', async () => {
    const r = await api('POST', '/v1/responses', { model: 'svc-4', input: 'ephemeral', store: false });
    expect(r.body.store).toBe(false);
    expect((await api('GET', `/v1/responses/${r.body.id}`)).status).toBe(404);
  });

  it('streams typed events whose deltas make the final text, reasoning summaries first', async () => {
    const res = await fetch(`${emu.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-4-reasoning', input: 'why is the sky blue?', stream: true }),
    });
    const raw = await res.text();
    expect(raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const events = raw
      .split('\n\n')
      .filter((f) => f.includes('data: {'))
      .map((f) => {
        const ev = /^event: (.*)$/m.exec(f)![1];
        const data = JSON.parse(/^data: (.*)$/m.exec(f)![1]!);
        expect(data.type).toBe(ev);
        return data;
      });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].type).toBe('response.created');
    const last = events[events.length - 1];
    expect(last.type).toBe('response.completed');
    const text = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    expect(text).toBe(textOf(last.response));
    const firstReasoning = events.findIndex((e) => e.type === 'response.reasoning_summary_text.delta');
    const firstText = events.findIndex((e) => e.type === 'response.output_text.delta');
    expect(firstReasoning).toBeGreaterThan(0);
    expect(firstReasoning).toBeLessThan(firstText);
    expect((await api('GET', `/v1/responses/${last.response.id}`)).body.status).toBe('completed');
  });

  it('function calls are valid against the tool schema, and their outputs must answer a call', async () => {
    const tool = {
      type: 'function',
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 3 } },
        required: ['city', 'days'],
      },
    };
    const r = await api('POST', '/v1/responses', { model: 'svc-4', input: 'weather?', tools: [tool] });
    const call = r.body.output.find((i: any) => i.type === 'function_call');
    const args = JSON.parse(call.arguments);
    expect(typeof args.city).toBe('string');
    expect(args.days).toBeGreaterThanOrEqual(1);
    expect(args.days).toBeLessThanOrEqual(3);
    const bad = await api('POST', '/v1/responses', {
      model: 'svc-4',
      previous_response_id: r.body.id,
      input: [{ type: 'function_call_output', call_id: 'call_nope', output: 'x' }],
      tools: [tool],
    });
    expect(bad.status).toBe(400);
    const ok = await api('POST', '/v1/responses', {
      model: 'svc-4',
      previous_response_id: r.body.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
      tools: [tool],
    });
    expect(textOf(ok.body)).toContain('sunny');
  });

  it('json_schema answers are valid against the schema', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 120 } },
      required: ['name', 'age'],
    };
    const r = await api('POST', '/v1/responses', {
      model: 'svc-4',
      input: 'a person',
      text: { format: { type: 'json_schema', name: 'p', schema } },
    });
    const value = JSON.parse(textOf(r.body));
    expect(typeof value.name).toBe('string');
    expect(Number.isInteger(value.age) && value.age >= 0 && value.age <= 120).toBe(true);
  });

  it('compaction output is accepted verbatim as the next input', async () => {
    const c = await api('POST', '/v1/responses/compact', {
      model: 'svc-4',
      input: [
        { role: 'user', content: 'my name is Ada' },
        { role: 'assistant', content: 'hello Ada' },
      ],
    });
    expect(c.body).toMatchObject({
      object: 'response.compaction',
      model: 'svc-4',
      usage: { dropped_message_count: 2 },
    });
    expect(c.body.output).toHaveLength(1);
    expect(c.body.output[0]).toMatchObject({ type: 'compaction' });
    expect(c.body.output[0].id).toMatch(/^cmp_/);
    const next = await api('POST', '/v1/responses', {
      model: 'svc-4',
      input: [...c.body.output, { role: 'user', content: 'what is my name?' }],
    });
    expect(next.status).toBe(200);
    const forged = await api('POST', '/v1/responses', {
      model: 'svc-4',
      input: [
        { type: 'compaction', encrypted_content: 'garbage' },
        { role: 'user', content: 'x' },
      ],
    });
    expect(forged.status).toBe(400);
    expect((await api('POST', '/v1/responses/compact', { input: 'x' })).status).toBe(422);
  });
});

describe('messages and legacy conventions', () => {
  it('messages: content blocks, stop_sequence, max_tokens, tool_use', async () => {
    const r = await api('POST', '/v1/messages', {
      model: 'svc-4',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello' }],
      stop_sequences: ['answer'],
    });
    expect(r.body).toMatchObject({
      type: 'message',
      role: 'assistant',
      stop_reason: 'stop_sequence',
      stop_sequence: 'answer',
      model: 'svc-4',
    });
    expect(r.body.content[0].type).toBe('text');
    expect(r.body.content[0].text).not.toContain('answer');
    const cut = await api('POST', '/v1/messages', {
      model: 'svc-4',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(cut.body.stop_reason).toBe('max_tokens');
    expect(cut.body.usage.output_tokens).toBe(2);
    const tool = await api('POST', '/v1/messages', {
      model: 'svc-4',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        { name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      ],
    });
    expect(tool.body.stop_reason).toBe('tool_use');
    expect(typeof tool.body.content[0].input.q).toBe('string');
    expect(
      (await api('POST', '/v1/messages', { model: 'svc-4', messages: [{ role: 'user', content: 'x' }] })).status,
    ).toBe(422);
    expect(
      (
        await api('POST', '/v1/messages', {
          model: 'svc-4',
          max_tokens: 5,
          messages: [{ role: 'user', content: 'x' }],
          stop_sequences: ['a', 'b', 'c', 'd', 'e'],
        })
      ).status,
    ).toBe(400);
  });

  it('completions and complete have their shapes, and reasoning models refuse both', async () => {
    const c = await api('POST', '/v1/completions', {
      model: 'svc-4',
      prompt: ['a', 'b'],
      n: 2,
      max_tokens: 4,
      echo: true,
    });
    expect(c.body).toMatchObject({ object: 'text_completion', model: 'svc-4' });
    expect(c.body.choices).toHaveLength(4);
    expect(c.body.choices[2].text.startsWith('b')).toBe(true);
    const k = await api('POST', '/v1/complete', {
      model: 'svc-4',
      prompt: '\n\nHuman: hi\n\nAssistant:',
      max_tokens_to_sample: 5,
    });
    expect(k.body).toMatchObject({ type: 'completion', stop_reason: 'max_tokens', model: 'svc-4' });
    expect((await api('POST', '/v1/complete', { model: 'svc-4', prompt: 'hi', max_tokens_to_sample: 5 })).status).toBe(
      400,
    );
    for (const [path, body] of [
      ['/v1/completions', { prompt: 'x' }],
      ['/v1/complete', { prompt: '\n\nHuman: x\n\nAssistant:', max_tokens_to_sample: 5 }],
    ] as const) {
      const r = await api('POST', path, { model: 'svc-4-reasoning', ...body });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/reasoning model/);
    }
  });
});

describe('embeddings', () => {
  it('are stable, normalised, 256 numbers for svc-embed-1, and similar texts are closer', async () => {
    const a = await api('POST', '/v1/embeddings', {
      model: 'svc-embed-1',
      input: ['the cat sleeps', 'the cat sleeps', 'a cat sleeping', 'stock market prices'],
    });
    const [v1, v2, v3, v4] = a.body.data.map((d: any) => d.embedding as number[]);
    expect(v1).toHaveLength(256);
    expect(v1).toEqual(v2);
    const dot = (x: number[], y: number[]) => x.reduce((s, xi, i) => s + xi * y[i]!, 0);
    expect(dot(v1, v1)).toBeCloseTo(1, 4);
    expect(dot(v1, v3)).toBeGreaterThan(dot(v1, v4));
    const again = await api('POST', '/v1/embeddings', { model: 'svc-embed', input: 'the cat sleeps' });
    expect(again.body.data[0].embedding).toEqual(v1);
    expect(a.body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('honour dimensions and base64, and limit 128 inputs', async () => {
    const d = await api('POST', '/v1/embeddings', {
      model: 'svc-embed-1',
      input: ['x'],
      dimensions: 8,
      encoding_format: 'base64',
    });
    const buf = Buffer.from(d.body.data[0].embedding, 'base64');
    expect(buf.length).toBe(32);
    expect((await api('POST', '/v1/embeddings', { model: 'svc-embed-1', input: Array(129).fill('x') })).status).toBe(
      400,
    );
    expect((await api('POST', '/v1/embeddings', { model: 'svc-embed-1', input: ['x'], dimensions: 257 })).status).toBe(
      400,
    );
    expect((await api('POST', '/v1/embeddings', { model: 'svc-4', input: ['x'] })).status).toBe(400);
  });
});

describe('tokenize', () => {
  it('is a byte-level BPE whose tokens concatenate back to the text', async () => {
    for (const text of [
      'Hello, world! The tokens of the conversation.',
      'naïve café 日本語 🎉\n\ttabs',
      '   leading spaces and 1234567 numbers',
    ]) {
      const r = await api('POST', '/v1/tokenize-text', { model: 'svc-4', text });
      const bytes = Buffer.concat(r.body.token_ids.map((t: any) => Buffer.from(t.token_bytes)));
      expect(bytes.toString('utf8')).toBe(text);
      for (const t of r.body.token_ids) expect(Number.isInteger(t.token_id)).toBe(true);
    }
    const common = await api('POST', '/v1/tokenize-text', { model: 'svc-4', text: ' the conversation' });
    expect(common.body.token_ids.length).toBeLessThan(' the conversation'.length);
    const same = await api('POST', '/v1/tokenize-text', { model: 'svc-4', text: ' the conversation' });
    expect(same.body).toEqual(common.body);
    expect((await api('POST', '/v1/tokenize-text', { model: 'nope', text: 'x' })).status).toBe(404);
  });
});

describe('document search', () => {
  it('ranks the chunks that match best first, in every mode', async () => {
    for (const mode of ['hybrid', 'keyword', 'semantic']) {
      const r = await api('POST', '/v1/documents/search', {
        query: 'cat whiskers',
        source: { collection_ids: ['pets'] },
        retrieval_mode: { type: mode },
      });
      expect(r.status).toBe(200);
      expect(r.body.matches[0].fields.file_name, mode).toBe('cats.md');
      expect(r.body.matches[0]).toMatchObject({ collection_ids: ['pets'] });
      const scores = r.body.matches.map((m: any) => m.score);
      expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    }
  });

  it('keyword mode returns only chunks containing a query word; limit and filter apply', async () => {
    const r = await api('POST', '/v1/documents/search', {
      query: 'Paris',
      source: { collection_ids: ['all'] },
      retrieval_mode: { type: 'keyword' },
    });
    expect(r.body.matches).toHaveLength(1);
    expect(r.body.matches[0].chunk_content).toContain('Paris');
    const filtered = await api('POST', '/v1/documents/search', {
      query: 'loyal companions',
      source: { collection_ids: ['pets'] },
      filter: 'year > 2022 AND author = "ann"',
    });
    expect(filtered.body.matches.length).toBeGreaterThan(0); // every() of nothing would pass
    expect(filtered.body.matches.every((m: any) => m.fields.file_name === 'cats.md')).toBe(true);
    const limited = await api('POST', '/v1/documents/search', {
      query: 'the',
      source: { collection_ids: ['all'] },
      retrieval_mode: { type: 'semantic' },
      limit: 1,
    });
    expect(limited.body.matches).toHaveLength(1);
    const both = await api('POST', '/v1/documents/search', {
      query: 'dog barks',
      source: { collection_ids: ['pets', 'all'] },
      limit: 1,
    });
    expect(both.body.matches[0].collection_ids.sort()).toEqual(['all', 'pets']);
  });

  it('rejects an unknown collection, a bad filter and a limit out of range', async () => {
    expect(
      (await api('POST', '/v1/documents/search', { query: 'x', source: { collection_ids: ['nope'] } })).status,
    ).toBe(400);
    const bad = await api('POST', '/v1/documents/search', {
      query: 'x',
      source: { collection_ids: ['pets'] },
      filter: 'year >',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/filter/i);
    expect(
      (await api('POST', '/v1/documents/search', { query: 'x', source: { collection_ids: ['pets'] }, limit: 0 }))
        .status,
    ).toBe(400);
    expect((await api('POST', '/v1/documents/search', { query: 'x' })).status).toBe(422);
  });
});
