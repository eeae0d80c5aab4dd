// GET /v1/tts/voices and /v1/tts/voices/{voice_id}: the built-in voices (ids case-insensitive). Also the
// voice lookup other modules use (agents, TTS, realtime): a built-in id or a custom voice of the team.
import type { Backend } from '../state/backend.js';
import type { Router } from '../http/router.js';
import { notFound } from '../core/errors.js';

export interface BuiltinVoice {
  voice_id: string;
  name: string;
  language: string;
}

export const BUILTIN_VOICES: BuiltinVoice[] = [
  { voice_id: 'eve', name: 'Eve', language: 'en' },
  { voice_id: 'ara', name: 'Ara', language: 'en' },
  { voice_id: 'rex', name: 'Rex', language: 'en' },
  { voice_id: 'sal', name: 'Sal', language: 'en' },
  { voice_id: 'leo', name: 'Leo', language: 'en' },
];

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

export function register(router: Router): void {
  router.get('/v1/tts/voices', (_req, res) => res.json(200, { voices: BUILTIN_VOICES }));
  router.get('/v1/tts/voices/:id', (req, res, core) => {
    const id = req.params.id!;
    const builtin = BUILTIN_VOICES.find((v) => v.voice_id === id.toLowerCase());
    if (builtin) return res.json(200, builtin);
    const v = findVoice(core, id, req.key?.team_id);
    if (!v) notFound(`Voice ${id} not found; built-in voices: ${BUILTIN_VOICES.map((b) => b.voice_id).join(', ')}`);
    res.json(200, { voice_id: v.voice_id, name: v.name });
  });
}
