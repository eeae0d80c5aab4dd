// GET /v1/tts/voices and /v1/tts/voices/{voice_id}: the built-in voices (ids case-insensitive); the lookup other
// modules use (a built-in id or a custom voice of the team) is in voice/voices.ts.
import type { Router } from '../http/router.js';
import { notFound } from '../core/errors.js';
import { BUILTIN_VOICES, findVoice } from '../voice/voices.js';

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
