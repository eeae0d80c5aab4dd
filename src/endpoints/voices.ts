// Voices: the built-in voice ids (the document's) and the custom voice id shape (used by tts, realtime and agents),
// and GET /v1/tts/voices and /v1/tts/voices/{voice_id}.
import type { Schema } from './api-shapes.js';
import { seg, type HttpClient } from '../net/http.js';
import { apiFacts } from '../core/lazy-api-facts.js';
import { fail } from '../core/validate.js';
import { expectArray, expectFields } from './guard.js';

// Read when first needed: realtime, agents and completion name --voice, most of their runs check no voice.
/** The document's built-in voice ids (BuiltinVoiceId). */
export const builtinVoices = (): readonly string[] => apiFacts().SCHEMAS.BuiltinVoiceId.$.enum;
/** The voice the API speaks with when a request names none (the document's default of POST /v1/tts voice_id). */
export const defaultVoice = (): string => apiFacts().OPERATIONS.textToSpeech.fields['body.voice_id'].default;
/** A custom voice id: 8 lowercase letters or digits. */
export const CUSTOM_VOICE_ID = /^[a-z0-9]{8}$/;
const CUSTOM_VOICE_SHAPE = 'a custom voice id (8 lowercase letters or digits)';
export const voiceAllowed = () => `a built-in voice (${builtinVoices().join(', ')}, any case) or ${CUSTOM_VOICE_SHAPE}`;

/** Built-in ids are case-insensitive (sent lowercase); custom ids are 8 lowercase alphanumerics; else undefined. */
export function normalizeVoiceId(raw: string): string | undefined {
  const lower = raw.toLowerCase();
  if (builtinVoices().includes(lower)) return lower;
  if (CUSTOM_VOICE_ID.test(raw)) return raw;
  return undefined;
}

/** `--voice` of every command: checked before anything is sent (exit 2 naming the flag). */
export function voiceIdParser(raw: string, flag: string): string {
  const v = normalizeVoiceId(raw);
  if (v === undefined) fail(flag, raw, voiceAllowed());
  return v;
}

/**
 * The `--voice` flag of a command, its help made from the built-in voices when shown (a getter, as listedRow's:
 * making the option loads no api-facts).
 */
export function voiceOption<const F extends string>(flags: F, describe: (voices: readonly string[]) => string) {
  return Object.defineProperty({ flags, parse: voiceIdParser }, 'description', {
    get: () => describe(builtinVoices()),
    enumerable: true,
  }) as { flags: F; description: string; parse: typeof voiceIdParser };
}

export type Voice = Schema<'Voice'>;

/** The list reply as the API sent it, checked to hold a `voices` list. */
export async function listVoices(http: HttpClient): Promise<{ voices: Voice[] } & Record<string, unknown>> {
  const raw = (await http.json('GET', '/v1/tts/voices')) as { voices: Voice[] } & Record<string, unknown>;
  expectArray<Voice>(raw, 'voices', 'voice list');
  return raw;
}

export async function getVoice(http: HttpClient, id: string): Promise<Voice> {
  const raw = (await http.json('GET', `/v1/tts/voices/${seg(id)}`)) as Record<string, unknown>;
  const v = raw && typeof raw.voice === 'object' && raw.voice !== null ? raw.voice : raw;
  return expectFields(v as Voice, ['voice_id'], 'voice');
}
