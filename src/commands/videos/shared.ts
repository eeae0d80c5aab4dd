// What the video commands share: flags, media references, the polling loop with its spinner, the download.
import { checkedBody, MAGIC, type BinaryKind } from '../../net/binary-reply.js';
import type { Context } from '../../runtime/context.js';
import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import type { HttpClient } from '../../net/http.js';
import { sleep } from '../../net/http.js';
import { number, oneOf } from '../../core/validate.js';
import { UsageError } from '../../core/errors.js';
import { checkTarget, downloadError, saveStream } from '../../net/download.js';
import {
  DEFAULT_VIDEO_MODEL,
  VIDEO_ASPECT_RATIOS,
  VIDEO_RESOLUTIONS,
  createVideo,
  getVideo,
  type VideoKind,
  type VideoRequest,
  type VideoStatus,
} from '../../endpoints/videos.js';
import { imageRef } from '../../cmdutil/image-ref.js';
import { forceFlags, modelFlag } from '../../cmdutil/flag-sets.js';
import { fillBody, type RequestRow, type RequestTable } from '../../core/request-table.js';

export const waitOptions = [
  { flags: '-o, --output <file>', description: 'save the video here (default: <request id>.mp4); implies --wait' },
  ...forceFlags(),
  {
    flags: '--poll-interval <seconds>',
    description: 'seconds between status checks (0.1-60, default 2)',
    parse: number({ min: 0.1, max: 60 }),
  },
] as const satisfies readonly OptionSpec[];

export const createOptions = [
  modelFlag('video model', { default: DEFAULT_VIDEO_MODEL, field: 'model' }),
  {
    flags: '--aspect-ratio <ratio>',
    description: `one of ${VIDEO_ASPECT_RATIOS.join(', ')}`,
    parse: oneOf(VIDEO_ASPECT_RATIOS),
    choices: VIDEO_ASPECT_RATIOS,
    field: 'aspect_ratio',
  },
  {
    flags: '--resolution <res>',
    description: `one of ${VIDEO_RESOLUTIONS.join(', ')}`,
    parse: oneOf(VIDEO_RESOLUTIONS),
    choices: VIDEO_RESOLUTIONS,
    field: 'resolution',
  },
  {
    flags: '--image <path|url>',
    description: 'first frame: a local image (sent as a data URL) or an http(s) URL',
    field: 'image',
    send: (v?: string) => (v === undefined ? undefined : { url: imageRef(v, '--image') }),
  },
  {
    flags: '--wait',
    description: 'wait for the video (spinner with status, progress and elapsed time), then download it',
  },
  ...waitOptions,
] as const satisfies readonly RequestRow[];

const VIDEO_MIME: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
};

/** A local video path as a data URL; an http(s) URL as is. */
export async function videoRef(value: string, flag: string): Promise<string> {
  if (/^https?:\/\//i.test(value) || /^data:video\//i.test(value)) return value;
  const { readFile } = await import('node:fs/promises');
  const data = await readFile(value).catch(() => undefined);
  if (!data) throw new UsageError(`${flag}: ${value}: no such file (give a local video or an http(s) URL)`);
  const ext = value.toLowerCase().split('.').pop() ?? '';
  const isMp4 = data.subarray(4, 8).toString('latin1') === 'ftyp';
  const mime = VIDEO_MIME[ext] ?? (isMp4 ? 'video/mp4' : undefined);
  if (!mime) throw new UsageError(`${flag}: ${value} is not a video file this command knows (mp4, mov, webm, mkv)`);
  return `data:${mime};base64,${data.toString('base64')}`;
}

/** `--video FILE|URL` of edit and extend (its data URL is made in startVideo: reading a video is async). */
export const VIDEO_ROW = {
  flags: '--video <path|url>',
  description: 'the video (required)',
  reaches: ['video'],
} as const satisfies RequestRow;
const PROMPT_INPUT = { prompt: 'PROMPT words' };

/** The request table of each kind of video job; `first` rows are the command's own (duration, video). */
export function videoTable<const First extends readonly RequestRow[]>(
  kind: VideoKind,
  first: First,
): RequestTable<readonly [...First, ...typeof createOptions]> {
  const operation = {
    generation: 'POST /v1/videos/generations',
    edit: 'POST /v1/videos/edits',
    extension: 'POST /v1/videos/extensions',
  }[kind];
  return { operation, rows: [...first, ...createOptions], inputs: PROMPT_INPUT };
}

/** Create a job of `kind`, then print its id or wait for it. */
export async function startVideo(
  ctx: Context,
  table: RequestTable,
  kind: VideoKind,
  prompt: string,
  // the flags of every kind, and those only some kinds take (generate and extend --duration; edit and extend --video)
  opts: OptionValues<typeof createOptions> & { duration?: number; video?: string },
): Promise<number> {
  if (prompt.trim() === '') throw new UsageError('PROMPT: an empty prompt is not allowed');
  const req = fillBody(table.rows, opts, { prompt } as VideoRequest);
  if (kind !== 'generation') {
    if (!opts.video) throw new UsageError('--video: required (a local video or an http(s) URL)');
    req.video = { url: await videoRef(opts.video, '--video') };
  }
  const wait = opts.wait || opts.output !== undefined;
  if (wait && opts.output !== undefined) checkTarget(opts.output, { force: opts.force });
  const http = await ctx.http();
  const { request_id } = await createVideo(http, kind, req);
  if (!wait) {
    if (ctx.out.json) ctx.out.printJson({ request_id });
    else ctx.out.line(request_id);
    return 0;
  }
  ctx.out.info(`request id ${request_id}`);
  return waitAndSave(ctx, http, request_id, opts);
}

/**
 * Poll until the job ends; a spinner shows status, progress and elapsed time on a terminal: the time counts between
 * polls, and what changes comes first, so that a narrow terminal cuts the id (printed above) rather than them.
 */
export async function pollVideo(
  ctx: Context,
  http: HttpClient,
  id: string,
  intervalMs: number,
): Promise<{ raw: unknown; job: VideoStatus }> {
  const spinner = await ctx.out.spinner(`pending · video ${id}`);
  const started = ctx.now();
  let state = 'pending';
  const show = () => spinner.update(`${state} · ${elapsed(ctx.now() - started)} · video ${id}`);
  const clock = setInterval(show, 1000);
  try {
    for (;;) {
      const { raw, job } = await getVideo(http, id);
      if (job.status !== 'pending') {
        clearInterval(clock);
        if (job.status === 'done') spinner.succeed(`done (${elapsed(ctx.now() - started)}) · video ${id}`);
        else spinner.fail(`${job.status} · video ${id}`);
        return { raw, job };
      }
      state = `${job.status}${typeof job.progress === 'number' ? ` ${job.progress}%` : ''}`;
      show();
      await sleep(intervalMs, ctx.signal);
    }
  } finally {
    clearInterval(clock);
    spinner.stop();
  }
}

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** A job that did not produce a video: its code and message on stderr, exit 1. */
export function reportFailure(ctx: Context, id: string, job: VideoStatus): number {
  const code = job.error?.code ?? job.status;
  const message = job.error?.message ?? (job.status === 'expired' ? 'the request expired' : 'no video was produced');
  ctx.out.error(`video ${id} ${job.status}: ${code}: ${message}`);
  return 1;
}

/** A video reply: a video content type and the first bytes of an MP4/MOV (ftyp box) or WebM/Matroska (EBML). */
const VIDEO: BinaryKind = {
  what: 'a video',
  contentTypes: /^video\//,
  magic: (h) => MAGIC.mp4(h) || (h.length >= 4 && h.readUInt32BE(0) === 0x1a45dfa3),
};

export async function waitAndSave(
  ctx: Context,
  http: HttpClient,
  id: string,
  opts: OptionValues<typeof waitOptions>,
): Promise<number> {
  const { raw, job } = await pollVideo(ctx, http, id, (opts.pollInterval ?? 2) * 1000);
  if (ctx.out.json) ctx.out.printJson(raw);
  if (job.status !== 'done') return reportFailure(ctx, id, job);
  if (!job.video?.url) throw new Error(`video ${id} is done but the reply has no video url`);
  const target = checkTarget(opts.output ?? `${id}.mp4`, { force: opts.force });
  // the video URL is not the API's: never send the key along
  const res = await http.request({
    method: 'GET',
    path: job.video.url,
    auth: false,
    headers: { accept: 'video/*, */*' },
  });
  const total = Number(res.headers['content-length']) || undefined;
  const { progressBar } = await import('../../term/progress.js');
  const { basename } = await import('node:path');
  const bar = progressBar(ctx.out, basename(target), total);
  try {
    await saveStream(checkedBody(res, VIDEO), target, {
      force: opts.force,
      signal: ctx.signal,
      expectedBytes: total,
      onProgress: (n) => bar.update(n),
    });
  } catch (err) {
    throw downloadError(err, res.requestId, ctx.signal);
  } finally {
    bar.done();
  }
  const shown = opts.output ?? `${id}.mp4`;
  if (ctx.out.json) ctx.out.info(shown);
  else ctx.out.line(shown);
  return 0;
}
