// Videos: asynchronous jobs. Create answers {request_id}; GET answers 202 (with status and progress) until
// `videoDelayMs` has passed, then 200 done with a URL to a small real MP4 container served by the emulator, or
// 200 failed with an error object when the prompt contains "fail" (so tests can drive both outcomes).
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VIDEO_MODELS } from '../text/catalog.js';
import type { Backend } from '../state/backend.js';
import { PRIVATE_FILE } from '../state/state.js';
import type { EmuRequest, Router } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';
import { sendBlob } from '../http/send-blob.js';
import { OPERATIONS } from 'svc-formats/api-facts';

interface VideoJob {
  request_id: string;
  team_id: string;
  model: string;
  prompt: string;
  kind: 'generation' | 'edit' | 'extension';
  duration: number;
  created_ms: number;
  ready_ms: number;
  fail: boolean;
}

const jobs = (core: Backend) => core.store.collection<VideoJob>('video_jobs');

function model(core: Backend, req: EmuRequest, id: unknown): string {
  const name = typeof id === 'string' ? id : 'svc-video-1';
  const m = VIDEO_MODELS.find((x) => x.id === name || x.aliases.includes(name));
  if (!m) notFound(`The model ${name} does not exist or your team does not have access to it`);
  core.checkModelAcl(req, m.id);
  return m.id;
}

function checkRef(v: unknown, field: string, kind: 'image' | 'video'): string {
  const url = (v as { url?: unknown } | undefined)?.url;
  if (!v || typeof v !== 'object' || typeof url !== 'string')
    invalid(`Invalid value for \`${field}\`: must be an object with a \`url\` string`);
  const data = new RegExp(`^data:${kind}/[a-z0-9.+-]+;base64,`, 'i');
  if (!data.test(url) && !/^https?:\/\//i.test(url))
    invalid(
      `Invalid value for \`${field}.url\`: must be an http(s) URL or a base64 data URL of ` +
        `${kind === 'image' ? 'an image' : 'a video'}`,
    );
  return url;
}

/** the document's range and default of `duration` (generations and extensions differ) */
type Seconds = { minimum: number; maximum: number; default: number };

function checkDuration(body: Record<string, unknown>, { minimum: min, maximum: max, default: def }: Seconds): number {
  const d = body.duration;
  if (d === undefined || d === null) return def;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < min || d > max)
    invalid(
      `Invalid value for \`duration\`: ${JSON.stringify(d)}; must be an integer number of seconds from ` +
        `${min} to ${max}`,
    );
  return d;
}

/** The duration of a source video when it is one of ours (else the default length). */
function sourceDuration(core: Backend, url: string): number {
  const m = /\/public\/videos\/([^/.]+)\.mp4$/.exec(url);
  const job = m ? jobs(core).get(m[1]!) : undefined;
  return job?.duration ?? OPERATIONS.generateVideo.fields['body.duration'].default;
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length + 8);
  head.write(type, 4, 'ascii');
  return Buffer.concat([head, body]);
}

/** A small ISO-BMFF (MP4) container: ftyp, a movie header with the duration, and deterministic media data. */
export function mp4For(seed: string, seconds: number): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2mp41'));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(0, 0); // version + flags
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(seconds * 1000, 16); // duration
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
  matrix.forEach((v, i) => mvhd.writeUInt32BE(v, 36 + i * 4));
  mvhd.writeUInt32BE(1, 96); // next track id
  const media: Buffer[] = [];
  let h = createHash('sha256').update(seed).digest();
  for (let i = 0; i < seconds * 64; i++) {
    media.push(h);
    h = createHash('sha256').update(h).digest();
  }
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd)), box('mdat', ...media)]);
}

function create(kind: VideoJob['kind']) {
  return async (req: EmuRequest, res: import('../http/router.js').EmuResponse, core: Backend) => {
    const body = await req.json();
    if (typeof body.prompt !== 'string' || body.prompt.trim() === '')
      invalid('Invalid value for `prompt`: must be a non-empty string');
    const m = model(core, req, body.model);
    if (body.image !== undefined && body.image !== null) checkRef(body.image, 'image', 'image');
    let duration: number;
    if (kind === 'generation') duration = checkDuration(body, OPERATIONS.generateVideo.fields['body.duration']);
    else {
      const src = checkRef(body.video, 'video', 'video');
      duration =
        kind === 'extension'
          ? sourceDuration(core, src) + checkDuration(body, OPERATIONS.extendVideo.fields['body.duration'])
          : sourceDuration(core, src);
    }
    const now = core.now();
    const id = core.uuid();
    jobs(core).set(id, {
      request_id: id,
      team_id: req.key!.team_id,
      model: m,
      prompt: body.prompt,
      kind,
      duration,
      created_ms: now,
      ready_ms: now + core.settings.videoDelayMs,
      fail: /fail/i.test(body.prompt),
    });
    core.store.save();
    res.json(200, { request_id: id });
  };
}

export function register(router: Router): void {
  router.post('/v1/videos/generations', create('generation'));
  router.post('/v1/videos/edits', create('edit'));
  router.post('/v1/videos/extensions', create('extension'));
  router.get('/v1/videos/:id', (req, res, core) => {
    const job = jobs(core).get(req.params.id!);
    if (!job || job.team_id !== req.key?.team_id) notFound(`No video request with id ${req.params.id}`);
    const now = core.now();
    if (now < job.ready_ms) {
      const progress = Math.min(
        99,
        Math.floor(((now - job.created_ms) / Math.max(1, job.ready_ms - job.created_ms)) * 100),
      );
      return res.json(202, { status: 'pending', progress, model: job.model });
    }
    if (job.fail) {
      return res.json(200, {
        status: 'failed',
        model: job.model,
        error: {
          code: 'generation-failed',
          message: 'The video could not be generated: the emulator fails every prompt that contains "fail"',
        },
      });
    }
    const path = join(core.store.blobDir('videos'), `${job.request_id}.mp4`);
    if (!existsSync(path))
      writeFileSync(path, mp4For(`${job.model}\u0000${job.prompt}\u0000${job.kind}`, job.duration), {
        mode: PRIVATE_FILE,
      });
    res.json(200, {
      status: 'done',
      progress: 100,
      model: job.model,
      video: {
        url: `${core.publicUrl}/videos/${job.request_id}.mp4`,
        duration: job.duration,
        respect_moderation: true,
      },
    });
  });
  router.get(
    '/public/videos/:name',
    async (req, res, core) => {
      const m = /^([0-9a-f-]{36})\.mp4$/.exec(req.params.name!);
      const path = m ? join(core.store.blobDir('videos'), `${m[1]}.mp4`) : '';
      if (!m || !existsSync(path)) notFound('No such video');
      await sendBlob(core, res, path, { 'content-type': 'video/mp4' });
    },
    { auth: false },
  );
}
