// Each fact the client repeats is stated in one place (issue 38 item 4): the default-model rule, the local tool
// loop's turn cap, the profile's keys, the realtime event groups, the reasoning efforts; and the API's lists that both
// packages read from api-facts (the built-in voices, tool_choice's modes). A second statement fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';
import { ROOT } from '../helpers/files.js';

const tree = (dir: string) =>
  (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: relative(ROOT, join(ROOT, dir, f)), text: readFileSync(join(ROOT, dir, f), 'utf8') }));
const sources = tree('src');
const emulatorSources = tree('packages/emulator/src');

/** the files whose text matches, once per match */
const where = (pattern: RegExp, files = sources) =>
  files.flatMap(({ file, text }) => (text.match(new RegExp(pattern, 'g')) ?? []).map(() => file));

// the report's count (scripts/api-facts-report.mjs): a literal list of strings, as the sorted set of its strings
const STRING = String.raw`'(?:[^'\\\n]|\\.)*'`;
const LIST = new RegExp(String.raw`\[\s*(?:${STRING}\s*,\s*)+${STRING}\s*,?\s*\]`, 'g');
const setOf = (values: readonly unknown[]) => [...new Set(values.map(String))].sort().join(' ');
const lists = (files: { text: string }[]) =>
  new Set(
    files.flatMap(({ text }) =>
      (text.match(LIST) ?? []).map((list) =>
        setOf((list.match(new RegExp(STRING, 'g')) ?? []).map((v) => v.slice(1, -1))),
      ),
    ),
  );

describe('facts stated once in src/', () => {
  it('the default-model rule: only resolveModel falls back to DEFAULT_LANGUAGE_MODEL', () => {
    expect(where(/\?\? DEFAULT_LANGUAGE_MODEL/)).toEqual(['src/cmdutil/flag-sets.ts']);
  });

  it("the local tool loop's default turn cap: one DEFAULT_MAX_TURNS, beside MaxTurnsError", () => {
    expect(where(/const DEFAULT_MAX_TURNS\b/)).toEqual(['src/cmdutil/local-tools.ts']);
  });

  it("the profile's keys: listed in runtime/config.ts only (svc config set takes them but api_key)", () => {
    expect(where(/'log\.retention_days',\s*'budget\.daily'/)).toEqual(['src/runtime/config.ts']);
  });

  it('the realtime answer events: their GA and beta names grouped in core/realtime-events.ts only', () => {
    for (const name of ['response.audio.delta', 'response.audio_transcript.delta', 'response.text.done'])
      expect(where(new RegExp(`'${name.replaceAll('.', '\\.')}'`)), name).toEqual(['src/core/realtime-events.ts']);
  });

  it("the request log's entry (the emulator's control API): one LoggedRequest, the client imports it", () => {
    expect(where(/interface LoggedRequest\b|type LoggedRequest\s*=/, [...sources, ...emulatorSources])).toEqual([
      'packages/emulator/src/state/request-log.ts',
    ]);
  });

  it("reasoning efforts and realtime models: the document's enums, read from api-facts by client and emulator", () => {
    // chat's reasoning_effort, responses' reasoning.effort and the realtime query's are three different sets
    expect(where(/(EFFORTS|REALTIME_MODELS) = \[/, [...sources, ...emulatorSources])).toEqual([]);
  });
});

describe('lists of values in src/ and the emulator', () => {
  // a list both sides write is an API fact read from api-facts, or a word of one side only
  it('no literal list of strings is written in both', () => {
    const ours = lists(sources);
    expect([...lists(emulatorSources)].filter((list) => ours.has(list))).toEqual([]);
  });

  it("an agent's fields, a v2 number's origins, each API's message roles: from api-facts, written in neither", () => {
    const facts = {
      "an agent's writable fields": OPERATIONS.updateAgent.fields['body.field_mask.paths[]'].enum,
      "an agent's clearable fields": OPERATIONS.updateAgent.fields['body.field_mask.paths[]'].enum.filter(
        (f) => f !== 'name',
      ),
      "a v2 number's origins": OPERATIONS.createPhoneNumberV2.fields['body.origin'].enum,
      "chat's roles": SCHEMAS.Message['$.role'].enum,
      "messages' roles": SCHEMAS.MessagesRequest['$.messages[].role'].enum,
      "responses' roles": SCHEMAS.InputItem['$.role'].enum,
      "a realtime item's roles": SCHEMAS.RealtimeClientEvent['$.item.role'].enum,
      "responses' built-in tool types": SCHEMAS.ResponsesTool['$.type'].enum.filter((t) => t !== 'function'),
      "an agent's and a realtime session's built-in tool kinds": SCHEMAS.ToolKind.$.enum.filter(
        (t) => t !== 'function',
      ),
    };
    const written = lists([...sources, ...emulatorSources]);
    for (const [name, values] of Object.entries(facts)) expect(written.has(setOf(values)), name).toBe(false);
  });

  it("the realtime session's default voice and VAD numbers: the document's, not written in the emulator", () => {
    const event = SCHEMAS.RealtimeClientEvent;
    // a number as written in code: 10000 or 10_000
    const literal = (n: number) =>
      String(n)
        .replace('.', '\\.')
        .replace(/\B(?=(\d{3})+$)/g, '_?');
    expect(where(new RegExp(`'${event['$.session.voice'].default}'`), emulatorSources)).toEqual([]);
    for (const field of ['threshold', 'silence_duration_ms', 'prefix_padding_ms'] as const) {
      const { default: value, maximum } = event[`$.session.turn_detection.${field}`];
      expect(where(new RegExp(`${field}: ${literal(value)}\\b`), emulatorSources), field).toEqual([]);
      expect(where(new RegExp(`'${field}', 0, ${literal(maximum)}\\b`), emulatorSources), field).toEqual([]);
    }
  });

  it("the realtime session's limits in the client's voice flags: the document's, not written in their flags", () => {
    const event = SCHEMAS.RealtimeClientEvent;
    const realtime = sources.filter(({ file }) => file === 'src/realtime/run.ts'); // the voice commands' flags
    const numbers = [
      event['$.session.instructions'].maxLength,
      event['$.session.tools'].maxItems,
      event['$.session.turn_detection.silence_duration_ms'].maximum,
    ];
    for (const n of numbers) {
      const literal = String(n).replace(/\B(?=(\d{3})+$)/g, '_?');
      expect(where(new RegExp(`\\b${literal}\\b`), realtime), String(n)).toEqual([]);
    }
  });

  it("a transcription's file limit: its file part's maxLength, read by the client and the emulator", () => {
    const bytes = OPERATIONS.speechToText.fields['body.file'].maxLength;
    const stt = [...sources, ...emulatorSources].filter(({ file }) => /\bstt\b|\/stt\//.test(file));
    expect(
      where(new RegExp(`\\b${bytes}\\b|\\b${bytes / 2 ** 20} \\* 1024 \\* 1024|\\b${bytes / 2 ** 20} MB`), stt),
    ).toEqual([]);
  });

  it("the TTS codec's default: the document's, in batch's and tts's help, defaults and files, not written", () => {
    const codec = SCHEMAS.Codec.$.default;
    const tts = sources.filter(({ file }) => /^src\/(batch|commands\/batch|commands\/tts|endpoints\/tts)/.test(file));
    expect(where(new RegExp(`default ${codec}\\b|\\? '${codec}'`), tts)).toEqual([]);
  });

  it("a custom voice's name limit: the document's maxLength, read from api-facts by --name and the emulator", () => {
    const limit = OPERATIONS.createCustomVoice.fields['body.name'].maxLength;
    const voices = [...sources, ...emulatorSources].filter(({ file }) => /custom-voices/.test(file));
    expect(where(new RegExp(`\\b${limit}\\b`), voices)).toEqual([]);
  });

  it("a custom voice's clip length: the document's x-max-duration-seconds, read by the client and the emulator", () => {
    const seconds = OPERATIONS.createCustomVoice.fields['body.file']['x-max-duration-seconds'];
    const voices = [...sources, ...emulatorSources].filter(({ file }) => /custom-voices/.test(file));
    expect(where(new RegExp(`\\b${seconds}\\b`), voices)).toEqual([]);
    expect(where(/\['x-max-duration-seconds'\]/, voices)).toEqual([
      'src/commands/custom-voices/create.ts',
      'packages/emulator/src/routes/custom-voices.ts',
    ]);
  });

  it("the emulator's admin types (faults, triggers): its own, imported as types by src/endpoints, not restated", () => {
    const endpoints = sources.filter(({ file }) => file.startsWith('src/endpoints/'));
    expect(where(/interface \w*Fault\w*\b|'(incoming-call|caller-says|file-expired)'/, endpoints)).toEqual([]);
  });

  it("the built-in voices and each request's tool_choice modes: read from api-facts, written in neither", () => {
    const facts = {
      'built-in voices': SCHEMAS.BuiltinVoiceId.$.enum,
      "chat's tool_choice": SCHEMAS.ChatRequest['$.tool_choice'].enum,
      "responses' tool_choice": SCHEMAS.ResponsesRequest['$.tool_choice'].enum,
      "messages' tool_choice": SCHEMAS.MessagesToolChoiceMode.$.enum,
      "messages' tool_choice types": [...SCHEMAS.MessagesToolChoiceMode.$.enum, 'tool'],
    };
    const written = lists([...sources, ...emulatorSources]);
    for (const [name, values] of Object.entries(facts)) expect(written.has(setOf(values)), name).toBe(false);
    // nor in a message or a help text, nor as the default voice
    const voices = SCHEMAS.BuiltinVoiceId.$.enum;
    expect(where(new RegExp(voices.slice(0, 2).join(', ')), [...sources, ...emulatorSources])).toEqual([]);
    expect(where(new RegExp(`'${OPERATIONS.textToSpeech.fields['body.voice_id'].default}'`))).toEqual([]);
  });
});
