// Custom voices: POST /v1/custom-voices (multipart, field `file`, optional `name`; WAV clips longer than
// the document's x-max-duration-seconds are refused), GET list (limit 1-1000, pagination_token), GET/PATCH/DELETE
// one, GET {id}/audio.
import { createReadStream, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS } from 'svc-formats/api-facts';
import type { Backend } from '../state/backend.js';
import { discard, parseForm, type FormFile, type FormPart } from '../http/formdata.js';
import { queryNumber, tokenPage, type EmuRequest, type Handler, type Router } from '../http/router.js';
import { HttpError, invalid, notFound } from '../core/errors.js';
import { customVoices, type CustomVoiceRecord } from '../voice/voices.js';

const MAX_CLIP_BYTES = 100 * 1024 * 1024;
const MAX_SECONDS = OPERATIONS.createCustomVoice.fields['body.file']['x-max-duration-seconds'];
const AUDIO_EXT = /\.(wav|wave|mp3|flac|ogg|oga|opus|m4a|aac|mkv|mka|mp4|webm)$/i;

function publicVoice(v: CustomVoiceRecord): Record<string, unknown> {
  return { voice_id: v.voice_id, name: v.name, created_at: v.created_at };
}

function voiceOf(core: Backend, req: EmuRequest): CustomVoiceRecord {
  const id = req.params.id!;
  const v = customVoices(core).get(id);
  if (!v || v.team_id !== req.key?.team_id) notFound(`Custom voice ${id} not found`);
  return v;
}

function newId(core: Backend): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  for (;;) {
    const id = [...core.random(8, 'custom-voice')].map((b) => alphabet[b % alphabet.length]).join('');
    if (!customVoices(core).has(id)) return id;
  }
}

/** Seconds of a WAV file from its header, undefined when it is not one; 400 when it is broken. */
function wavSeconds(path: string): number | undefined {
  const buf = readFileSync(path);
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE')
    return undefined;
  let pos = 12;
  let byteRate = 0;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('latin1', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    if (id === 'fmt ' && pos + 20 <= buf.length) byteRate = buf.readUInt32LE(pos + 16);
    if (id === 'data') {
      if (!byteRate) invalid('The WAV file has no fmt chunk before its data');
      const data = size === 0 || size === 0xffffffff || pos + 8 + size > buf.length ? buf.length - pos - 8 : size;
      return data / byteRate;
    }
    pos += 8 + size + (size % 2);
  }
  invalid('The WAV file has no data chunk');
}

/** POST /v1/custom-voices: the reference clip (checked) kept as the voice's blob. */
const createVoice: Handler = async (req, res, core) => {
  const dir = core.store.blobDir('custom-voices');
  const parts = await parseForm(req.raw, req.headers['content-type'], { dir, maxFileBytes: MAX_CLIP_BYTES });
  try {
    req.checkForm(parts);
    const file = referenceClip(parts);
    const nameField = parts.find((p) => p.name === 'name' && p.kind === 'field');
    const name = nameField && nameField.kind === 'field' ? nameField.value : null;
    const voice_id = newId(core);
    const blob = join(dir, voice_id);
    renameSync(file.path, blob);
    const rec: CustomVoiceRecord = {
      voice_id,
      team_id: req.key!.team_id,
      name,
      created_at: new Date().toISOString(),
      content_type: file.contentType,
      filename: file.filename ?? 'clip',
      size: file.size,
      blob,
    };
    customVoices(core).set(voice_id, rec);
    core.store.save();
    res.json(200, publicVoice(rec));
  } finally {
    discard(parts);
  }
};

/** The `file` part: present, not empty, within the size limit, audio, and (a WAV) no longer than allowed. */
function referenceClip(parts: FormPart[]): FormFile {
  const file = parts.find((p) => p.name === 'file');
  if (file?.kind !== 'file') invalid('Missing the `file` part: the reference audio');
  if (file.tooLarge) throw new HttpError(413, `The reference clip exceeds ${MAX_CLIP_BYTES} bytes`);
  if (file.size === 0) invalid('The reference clip is empty');
  const isAudio =
    /^audio\//i.test(file.contentType) ||
    /^video\/(mp4|x-matroska|webm)/i.test(file.contentType) ||
    AUDIO_EXT.test(file.filename ?? '');
  if (!isAudio)
    invalid(
      `The reference clip is not audio (${file.contentType}); supported: WAV, MP3, FLAC, OGG, Opus, M4A, AAC, MKV, MP4`,
    );
  const secs = wavSeconds(file.path);
  if (secs !== undefined && secs > MAX_SECONDS)
    invalid(`The reference clip is ${secs.toFixed(1)} seconds long; at most ${MAX_SECONDS} seconds are allowed`);
  return file;
}

const listVoices: Handler = (req, res, core) => {
  const limit = queryNumber(req, 'limit', 100);
  const all = [...customVoices(core).values()].filter((v) => v.team_id === req.key!.team_id);
  const { page, next } = tokenPage(all, req.query.get('pagination_token'), limit, (v) => v.voice_id);
  res.json(200, { voices: page.map(publicVoice), ...(next !== undefined ? { pagination_token: next } : {}) });
};

const renameVoice: Handler = async (req, res, core) => {
  const v = voiceOf(core, req);
  // checked against the document already (a string or null, at most its maxLength)
  const body = await req.json<Record<string, unknown>>();
  const next = { ...v, ...(body.name !== undefined ? { name: (body.name as string | null) ?? null } : {}) };
  customVoices(core).set(v.voice_id, next);
  core.store.save();
  res.json(200, publicVoice(next));
};

const deleteVoice: Handler = (req, res, core) => {
  const v = voiceOf(core, req);
  customVoices(core).delete(v.voice_id);
  rmSync(v.blob, { force: true });
  core.store.save();
  res.json(200, { deleted: true });
};

/** GET {id}/audio: the reference clip as it was uploaded. */
const voiceAudio: Handler = (req, res, core) => {
  const v = voiceOf(core, req);
  let size: number;
  try {
    size = statSync(v.blob).size;
  } catch {
    notFound(`The audio of custom voice ${v.voice_id} is gone`);
  }
  res.raw.writeHead(200, {
    'content-type': v.content_type,
    'content-length': String(size),
    'content-disposition': `attachment; filename="${v.filename.replace(/"/g, '')}"`,
  });
  createReadStream(v.blob).pipe(res.raw);
};

export function register(router: Router): void {
  router.post('/v1/custom-voices', createVoice);
  router.get('/v1/custom-voices', listVoices);
  router.get('/v1/custom-voices/:id', (req, res, core) => res.json(200, publicVoice(voiceOf(core, req))));
  router.patch('/v1/custom-voices/:id', renameVoice);
  router.delete('/v1/custom-voices/:id', deleteVoice);
  router.get('/v1/custom-voices/:id/audio', voiceAudio);
}
