// The API-parameter coverage table (issue 12 "Must show"): every request parameter of every operation of the API
// document (packages/emulator/spec/openapi.json, read by test/helpers/api-document.ts) must be reachable from a flag,
// an argument or an input file of the command that calls the operation. Commands with a request table
// (core/request-table.ts) are checked through the rows they build their bodies from; a resource's list, get, delete
// and `POST …/{id}/<verb>` through the REST convention (byConvention below: its group and verb, query parameters by
// the flags of their names, the paging flags), so that a new resource adds no entry here; the others through the
// REACH map below, whose flags must exist in the command's spec. A parameter no flag reaches needs an entry in
// EXCEPTIONS with its reason.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OPERATIONS } from 'svc-formats/api-facts';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../src/cmdutil/command.js';
import type { OptionSpec } from '../../src/core/option-spec.js';
import { reachedFields, type RequestRow, type RequestTable } from '../../src/core/request-table.js';
import { apiOperations } from '../helpers/api-document.js';
import { ROOT } from '../helpers/files.js';
import { loadCommandSpecs } from '../helpers/command-tree.js';

const fixture = { operations: apiOperations() };

/**
 * Operations sent by commands without a request table: the command (its words) and, per parameter, what reaches
 * it: `--flag`, `ARG name` (a positional argument), or `other command words > --flag`.
 */
const REACH: Record<string, { command: string; via?: Record<string, string> }> = {
  'GET /v1/api-key': { command: 'auth status' },
  'GET /v1/me': { command: 'whoami' },
  'GET /v1/chat/deferred-completion/{request_id}': { command: 'chat get' },
  'GET /v1/responses/{response_id}/input_items': {
    command: 'responses items',
    via: { limit: '--limit', order: '--order', after: '--after' },
  },
  'POST /v1/responses/compact': { command: 'responses compact', via: { model: '--model', input: '--input' } },
  'GET /v1/language-models': { command: 'models list', via: {} },
  'GET /v1/language-models/{model_id}': { command: 'models get' },
  'GET /v1/embedding-models': { command: 'models list' },
  'GET /v1/embedding-models/{model_id}': { command: 'models get' },
  'GET /v1/image-generation-models': { command: 'models list' },
  'GET /v1/image-generation-models/{model_id}': { command: 'models get' },
  'GET /v1/video-generation-models': { command: 'models list' },
  'GET /v1/video-generation-models/{model_id}': { command: 'models get' },
  'POST /v1/files': {
    command: 'files upload',
    via: { file: 'ARG path', expires_after: '--expires-after', purpose: '--purpose' },
  },
  'GET /v1/files/{file_id}/content': { command: 'files download', via: { format: '--format' } },
  'POST /v1/files/{file_id}/public-url': { command: 'files share', via: { expires_after: '--expires-after' } },
  'POST /v1/files/{file_id}/public-url/revoke': { command: 'files unshare' },
  'POST /v1/skills': { command: 'skills upload', via: { files: 'ARG path' } },
  'GET /v1/skills/{skill_id}/content': { command: 'skills download' },
  'POST /v1/agents': {
    command: 'agents create',
    via: {
      name: '--name',
      instructions: '--instructions',
      tools: '--tool',
      'voice.voice_id': '--voice',
      'voice.vad_threshold': '--vad-threshold',
      'voice.vad_silence_duration_ms': '--vad-silence-ms',
      collection_ids: '--collection',
    },
  },
  'PATCH /v1/agents/{agent_id}': {
    command: 'agents update',
    via: { agent: '--name', 'field_mask.paths': '--clear', phone_number_id: '--phone-number' },
  },
  'POST /v1/phone-numbers': {
    command: 'phone buy',
    via: { area_code: '--area-code', name: '--name', description: '--description' },
  },
  'GET /v1/phone-numbers': { command: 'phone list', via: { limit: '--limit' } },
  'GET /v1/phone-numbers/{phone_number_id}': { command: 'phone get' },
  'PATCH /v1/phone-numbers/{phone_number_id}': {
    command: 'phone update',
    via: { name: '--name', description: '--description', 'field_mask.paths': '--clear-description' },
  },
  'DELETE /v1/phone-numbers/{phone_number_id}': { command: 'phone release' },
  'POST /v2/phone-numbers': {
    command: 'phone v2 create',
    via: {
      origin: '--origin',
      name: '--name',
      phone_number: '--number',
      agent_id: '--agent',
      'webhook.name': '--webhook-name',
      'webhook.url': '--webhook-url',
      'sip_auth.allowed_addresses': '--allowed-address',
    },
  },
  'GET /v2/phone-numbers': {
    command: 'phone v2 list',
    via: { limit: '--limit', pagination_token: '--page-token', agent_id: '--agent' },
  },
  'DELETE /v2/phone-numbers/{phone_number_id}': { command: 'phone v2 delete' },
  'POST /v1/realtime/client_secrets': {
    command: 'realtime client-secret',
    via: { 'expires_after.seconds': '--expires-after', session: '--session' },
  },
  'POST /v1/realtime/calls/{call_id}/refer': { command: 'calls refer', via: { target_uri: '--to' } },
  'POST /v1/realtime/calls/{call_id}/hangup': { command: 'calls hangup' },
  'POST /v1/tts': {
    command: 'tts say',
    via: {
      text: 'ARG text',
      language: '--language',
      voice_id: '--voice',
      'output_format.codec': '--codec',
      'output_format.sample_rate': '--sample-rate',
      'output_format.bit_rate': '--bit-rate',
      speed: '--speed',
      optimize_streaming_latency: '--optimize-streaming-latency',
      text_normalization: '--text-normalization',
      with_timestamps: '--timestamps',
    },
  },
  'GET /v1/tts/voices': { command: 'tts voices' },
  'GET /v1/tts/voices/{voice_id}': { command: 'tts voice' },
  'POST /v1/stt': {
    command: 'stt transcribe',
    via: {
      file: 'ARG source',
      url: 'ARG source',
      audio_format: '--audio-format',
      sample_rate: '--sample-rate',
      language: '--language',
      format: '--format',
      multichannel: '--multichannel',
      channels: '--channels',
      diarize: '--diarize',
    },
  },
  'POST /v1/custom-voices': { command: 'custom-voices create', via: { file: 'ARG clip', name: '--name' } },
  'GET /v1/custom-voices/{voice_id}/audio': { command: 'custom-voices download' },
  'WS /v1/realtime': {
    command: 'realtime talk',
    via: { call_id: 'calls join > ARG call_id', model: '--model', 'reasoning.effort': '--reasoning-effort' },
  },
  'WS /v1/tts': {
    command: 'tts stream',
    via: {
      voice: '--voice',
      language: '--language',
      codec: '--codec',
      sample_rate: '--sample-rate',
      bit_rate: '--bit-rate',
      optimize_streaming_latency: '--optimize-streaming-latency',
      speed: '--speed',
      text_normalization: '--text-normalization',
      with_timestamps: '--timestamps',
    },
  },
  'WS /v1/stt': {
    command: 'stt listen',
    via: {
      sample_rate: '--sample-rate',
      encoding: '--encoding',
      model: '--model',
      interim_results: '--interim',
      endpointing: '--endpointing',
      language: '--language',
      format: '--format',
      multichannel: '--multichannel',
      channels: '--channels',
      diarize: '--diarize',
      keyterm: '--keyterm',
      filler_words: '--filler-words',
      smart_turn: '--smart-turn',
      smart_turn_timeout: '--smart-turn-timeout',
      vad_threshold: '--vad-threshold',
    },
  },
};

/** The REST verbs of a group's own paths: `/vN/<group>`, `/vN/<group>/{id}` (`POST …/{id}/<verb>`: that verb). */
const VERBS: Record<string, string> = {
  'GET ': 'list',
  'GET {id}': 'get',
  'PATCH {id}': 'update',
  'DELETE {id}': 'delete',
};
/** the paging flags (cmdutil/paginate's pageFlags) by the query parameter each fills; any other `name` is `--name` */
const PAGING: Record<string, string> = { pagination_token: '--page-token' };

/**
 * The command that sends an operation by the REST convention, and the flag of each of its parameters: `GET
 * /v1/batches` is `batches list` (its query by the paging flags and `--snake-name` flags), `GET /v1/batches/{id}`
 * `batches get`, `POST /v1/batches/{id}/cancel` `batches cancel`. Undefined where the path is not a group's own.
 */
function byConvention(op: string): { command: string; via: Record<string, string> } | undefined {
  const m = /^([A-Z]+) \/v\d+\/([a-z-]+)(?:\/\{\w+\}(?:\/([a-z-]+))?)?$/.exec(op);
  if (!m) return undefined;
  const [, method, group, verb] = m;
  const withId = op.includes('{');
  const word = verb ? (method === 'POST' ? verb : undefined) : VERBS[`${method} ${withId ? '{id}' : ''}`];
  if (!word) return undefined;
  const via = Object.fromEntries(
    (fixture.operations[op]?.parameters ?? []).map((p) => [p, PAGING[p] ?? `--${p.replace(/_/g, '-')}`]),
  );
  return { command: `${group} ${word}`, via };
}

/** What sends an operation without a request table: its REACH entry, else the REST convention. */
const sentBy = (op: string) => REACH[op] ?? byConvention(op);

/** Parameters deliberately reached by no flag, with the reason. */
const EXCEPTIONS: Record<string, Record<string, string>> = {
  'POST /v1/files': {
    'expires_after[anchor]': 'the deep-object spelling of expires_after the OpenAI SDK sends; svc sends expires_after',
    'expires_after[seconds]': 'the deep-object spelling of expires_after the OpenAI SDK sends; svc sends expires_after',
  },
  'POST /v1/responses': {
    reasoning_effort:
      'non-standard alternative the server reads only when `reasoning` is unset; --reasoning-effort sends ' +
      'reasoning.effort',
  },
};

/** Fields a request table sends that the spec does not list, with the reason (anything else is a typo). */
const BEYOND_SPEC: Record<string, Record<string, string>> = {
  'POST /v1/completions': {
    stream:
      'issue 12 item 11: the emulator streams legacy completions like the compatible convention (the spec ' +
      'leaves it open)',
    stream_options: 'include_usage with stream: true, as on chat completions (wire-details.md)',
  },
  'POST /v1/embeddings': {
    user:
      'end-user identifier of the compatible convention; the spec lists only some fields ("beyond these: not ' +
      'shown")',
  },
};

/** a documented parameter p is reached by a field f: the same, f a part of p (its whole object), or p a part of f */
const covers = (f: string, p: string) => f === p || p.startsWith(`${f}.`) || f.startsWith(`${p}.`);
const longFlag = (o: OptionSpec) => /--[a-z0-9-]+/i.exec(o.flags)?.[0].replace(/^--no-/, '--') ?? o.flags;

let specs: Map<string, CommandSpec>;
const tables = new Map<string, { command: string; table: RequestTable }[]>();
beforeAll(async () => {
  specs = await loadCommandSpecs();
  for (const [command, spec] of specs) {
    for (const table of spec.requests ?? [])
      tables.set(table.operation, [...(tables.get(table.operation) ?? []), { command, table }]);
  }
});

function reaches(command: string, via: string): boolean {
  const [other, what] = via.includes(' > ') ? (via.split(' > ') as [string, string]) : [command, via];
  const spec = specs.get(other);
  if (!spec) return false;
  if (what.startsWith('ARG ')) return (spec.args ?? []).some((a) => a.name === what.slice(4));
  return (spec.options ?? []).some((o) => longFlag(o) === what.replace(/^--no-/, '--'));
}

describe('the API-parameter table', () => {
  it('holds every operation of the API document (REST and WebSocket) with its request parameters', () => {
    // the operations as gen:api read them from the same document: a new operation needs no edit here
    const generated = Object.values(OPERATIONS).map((op) => `${'websocket' in op ? 'WS' : op.method} ${op.path}`);
    const ops = Object.keys(fixture.operations);
    expect(ops.sort()).toEqual(generated.sort());
    expect(ops).toContain('WS /v1/realtime');
    expect(fixture.operations['POST /v1/agents']!.parameters).toContain('voice.vad_threshold');
    expect(fixture.operations['WS /v1/stt']!.parameters).toContain('keyterm');
  });

  it('every operation is sent by a command that exists: a request table, the REST convention or REACH', () => {
    for (const op of Object.keys(fixture.operations)) {
      const byTable = tables.get(op);
      const reach = byTable ? REACH[op] : sentBy(op);
      expect(!!byTable || !!reach, `${op}: no command sends it (no table, no REST convention, no REACH)`).toBe(true);
      if (reach) expect(specs.has(reach.command), `${op}: command ${reach.command}`).toBe(true);
    }
    for (const op of [...tables.keys(), ...Object.keys(REACH)])
      expect(fixture.operations[op], `${op} is not an operation of the spec`).toBeDefined();
  });

  it('every parameter of an operation with a request table is reached by one of its rows or inputs', () => {
    const missing: string[] = [];
    for (const [op, users] of tables) {
      for (const p of fixture.operations[op]!.parameters) {
        if (EXCEPTIONS[op]?.[p]) continue;
        const fields = users.flatMap((u) => reachedFields(u.table));
        if (!fields.some((f) => covers(f, p))) missing.push(`${op} ${p}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every field a request table sends is a documented parameter (or listed in BEYOND_SPEC)', () => {
    const unknown: string[] = [];
    for (const [op, users] of tables) {
      const params = fixture.operations[op]!.parameters;
      for (const f of users.flatMap((u) => reachedFields(u.table))) {
        if (!params.some((p) => covers(f, p)) && !BEYOND_SPEC[op]?.[f]) unknown.push(`${op} ${f}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('the rows of a table are the options of the command that declares it', () => {
    for (const [, users] of tables) {
      for (const { command, table } of users) {
        const options = specs.get(command)!.options ?? [];
        for (const row of table.rows as RequestRow[])
          expect(options.includes(row), `${command}: ${row.flags}`).toBe(true);
      }
    }
  });

  it('every parameter of the other operations is reached by a flag or argument that exists', () => {
    const missing: string[] = [];
    const others = Object.keys(fixture.operations).filter((op) => REACH[op] || !tables.has(op));
    for (const [op, { command, via = {} }] of others.map((op) => [op, sentBy(op)!] as const)) {
      for (const p of fixture.operations[op]!.parameters) {
        if (EXCEPTIONS[op]?.[p]) continue;
        if (!via[p]) missing.push(`${op} ${p}: no flag named in REACH`);
        else if (!reaches(command, via[p]!)) missing.push(`${op} ${p}: ${command} has no ${via[p]}`);
      }
      for (const p of Object.keys(via))
        expect(fixture.operations[op]!.parameters, `${op}: REACH names ${p}`).toContain(p);
    }
    expect(missing).toEqual([]);
  });

  it('REACH holds only what the REST convention does not give: a list, get, delete or cancel needs no entry', () => {
    const redundant = Object.entries(REACH).filter(([op, { command, via = {} }]) => {
      const conventional = byConvention(op);
      return conventional?.command === command && Object.entries(via).every(([p, f]) => conventional.via[p] === f);
    });
    expect(
      redundant.map(([op]) => op),
      'the convention sends these: drop their REACH entries',
    ).toEqual([]);
    // a new resource's list, get and cancel: its group's verbs, the list's query by the paging flags
    expect(byConvention('GET /v1/batches')?.command).toBe('batches list');
    expect(byConvention('GET /v1/batches/{batch_id}')?.command).toBe('batches get');
    expect(byConvention('POST /v1/batches/{batch_id}/cancel')?.command).toBe('batches cancel');
    expect(byConvention('GET /v1/files')?.via).toMatchObject({
      pagination_token: '--page-token',
      sort_by: '--sort-by',
    });
    // not a group's own path: REACH names its command (`tts voices`, `files download`, `responses compact`)
    for (const op of ['GET /v1/tts/voices', 'GET /v1/files/{file_id}/content', 'POST /v1/responses/compact'])
      expect(byConvention(op), op).toBeUndefined();
    const conventional = Object.keys(fixture.operations).filter((op) => !tables.has(op) && !REACH[op]);
    expect(conventional.length).toBeGreaterThanOrEqual(18);
  });

  it("exceptions name documented parameters, and a table operation's exception is really not reached", () => {
    for (const [op, list] of Object.entries(EXCEPTIONS)) {
      for (const [p, reason] of Object.entries(list)) {
        expect(fixture.operations[op]!.parameters, op).toContain(p);
        expect(reason.length).toBeGreaterThan(20);
        const users = tables.get(op);
        if (users)
          expect(
            users.flatMap((u) => reachedFields(u.table)).some((f) => covers(f, p)),
            `${op} ${p} is reached now: drop the exception`,
          ).toBe(false);
      }
    }
  });
});

describe('shared flag sets (issue 13.1)', () => {
  it(
    '-m/--model, the sampling, output and tool flags come from cmdutil/flag-sets (their help group) in every ' +
      'command',
    () => {
      const groups: Record<string, string> = {
        '--model': 'Model',
        '--temperature': 'Sampling',
        '--top-p': 'Sampling',
        '--top-k': 'Sampling',
        '--min-p': 'Sampling',
        '--frequency-penalty': 'Sampling',
        '--presence-penalty': 'Sampling',
        '--seed': 'Sampling',
        '--stop': 'Sampling',
        '--usage': 'Output',
        '--logprobs': 'Output',
        '--top-logprobs': 'Output',
        '--tool-choice': 'Tools',
        '--parallel-tool-calls': 'Tools',
        '--input-device': 'Audio',
        '--output-device': 'Audio',
      };
      const stray: string[] = [];
      let seen = 0;
      for (const [command, spec] of specs) {
        if (command === 'emulator serve') continue; // its --seed seeds the emulator's random streams, not sampling
        for (const o of spec.options ?? []) {
          const want = groups[longFlag(o)];
          if (!want) continue;
          seen++;
          if (o.group !== want) stray.push(`${command} ${o.flags}`);
        }
      }
      expect(stray).toEqual([]);
      expect(seen).toBeGreaterThan(40);
    },
  );

  it("no command module imports another command's module", () => {
    const base = join(ROOT, 'src', 'commands');
    const files: string[] = [];
    const list = (dir: string) => {
      for (const n of readdirSync(dir)) {
        const p = join(dir, n);
        if (statSync(p).isDirectory()) list(p);
        else if (p.endsWith('.ts')) files.push(p);
      }
    };
    list(base);
    const crossing: string[] = [];
    for (const f of files) {
      const resource = relative(base, f).split('/')[0]!;
      if (!relative(base, f).includes('/')) continue; // index.ts: the tree itself
      for (const m of readFileSync(f, 'utf8').matchAll(/from '(\.[^']+)'|import\('(\.[^']+)'\)/g)) {
        const target = relative(base, join(f, '..', m[1] ?? m[2]!));
        if (target.startsWith('..') || target === 'index.js') continue; // below commands/, or the tree's root
        if (target.split('/')[0] !== resource) crossing.push(`${relative(ROOT, f)} → ${m[1] ?? m[2]}`);
      }
    }
    expect(crossing).toEqual([]);
  });
});
