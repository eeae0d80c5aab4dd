// Built-in voices: GET /v1/tts/voices and /v1/tts/voices/{voice_id}.
import { seg, type HttpClient } from '../core/http.js';
import { expectArray, expectFields } from './guard.js';

export type Voice = { voice_id: string; name?: string; language?: string } & Record<string, unknown>;

export async function listVoices(http: HttpClient): Promise<Voice[]> {
  return expectArray<Voice>(await http.json('GET', '/v1/tts/voices'), 'voices', 'voice list');
}

export async function getVoice(http: HttpClient, id: string): Promise<Voice> {
  const raw = (await http.json('GET', `/v1/tts/voices/${seg(id)}`)) as Record<string, unknown>;
  const v = raw && typeof raw.voice === 'object' && raw.voice !== null ? raw.voice : raw;
  return expectFields(v as Voice, ['voice_id'], 'voice');
}
