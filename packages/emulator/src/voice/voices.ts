// The voices a team can speak with: the built-in ones (ids case-insensitive) and the team's custom voices; used by
// the voice routes, agents, TTS and realtime.
import { SCHEMAS } from 'svc-formats/api-facts';
import type { Backend } from '../state/backend.js';

export interface BuiltinVoice {
  voice_id: string;
  name: string;
  language: string;
}

/** The document's built-in voices, each named by its id capitalised. */
export const BUILTIN_VOICES: BuiltinVoice[] = SCHEMAS.BuiltinVoiceId.$.enum.map((id) => ({
  voice_id: id,
  name: id[0]!.toUpperCase() + id.slice(1),
  language: 'en',
}));

export interface CustomVoiceRecord {
  voice_id: string;
  team_id: string;
  name: string | null;
  created_at: string;
  content_type: string;
  filename: string;
  size: number;
  blob: string;
}

export function customVoices(core: Backend) {
  return core.store.collection<CustomVoiceRecord>('custom_voices');
}

/** A built-in voice (any case) or a custom voice (of the team, when given); undefined when unknown. */
export function findVoice(
  core: Backend,
  id: string,
  teamId?: string,
): { voice_id: string; name: string; custom: boolean } | undefined {
  const builtin = BUILTIN_VOICES.find((v) => v.voice_id === id.toLowerCase());
  if (builtin) return { voice_id: builtin.voice_id, name: builtin.name, custom: false };
  const custom = customVoices(core).get(id);
  if (custom && (teamId === undefined || custom.team_id === teamId))
    return { voice_id: custom.voice_id, name: custom.name ?? custom.voice_id, custom: true };
  return undefined;
}
