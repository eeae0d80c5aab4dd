// Videos: asynchronous jobs (generation, edit, extension) polled by request id.
import type { JsonBody, Schema } from './api-shapes.js';
import { seg, type HttpClient } from '../net/http.js';
import { expectFields } from './guard.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

export const VIDEO_ASPECT_RATIOS = SCHEMAS.VideoAspectRatio.$.enum;
export const VIDEO_RESOLUTIONS = OPERATIONS.generateVideo.fields['body.resolution'].enum;
export const DEFAULT_VIDEO_MODEL = 'svc-video-1';
const seconds = ({ minimum, maximum, default: def }: { minimum: number; maximum: number; default: number }) => ({
  min: minimum,
  max: maximum,
  default: def,
});
/** a generated video's length and an extension's, in seconds */
export const DURATION = seconds(OPERATIONS.generateVideo.fields['body.duration']);
export const EXTENSION = seconds(OPERATIONS.extendVideo.fields['body.duration']);

export type VideoKind = 'generation' | 'edit' | 'extension';

/** one body for the three operations: generation's fields, and the video an edit or an extension takes */
export type VideoRequest = JsonBody<'generateVideo'> & Partial<Pick<JsonBody<'editVideo'>, 'video'>>;

export type VideoStatus = Schema<'VideoResponse'>;

const PATHS: Record<VideoKind, string> = {
  generation: '/v1/videos/generations',
  edit: '/v1/videos/edits',
  extension: '/v1/videos/extensions',
};

export async function createVideo(
  http: HttpClient,
  kind: VideoKind,
  req: VideoRequest,
): Promise<{ request_id: string }> {
  return expectFields(
    await http.json<{ request_id: string }>('POST', PATHS[kind], { json: req }),
    ['request_id'],
    'video',
  );
}

/** One poll: a 202 is a job still running (its body may be empty or carry status and progress). */
export async function getVideo(
  http: HttpClient,
  id: string,
): Promise<{ httpStatus: number; raw: unknown; job: VideoStatus }> {
  const res = await http.request({ method: 'GET', path: `/v1/videos/${seg(id)}`, okStatuses: [202] });
  const raw = (await res.json<VideoStatus | undefined>()) ?? undefined;
  if (res.status === 202)
    return {
      httpStatus: 202,
      raw,
      job: { ...(raw ?? {}), status: raw?.status && raw.status !== 'done' ? raw.status : 'pending' },
    };
  const job = expectFields(raw as VideoStatus, ['status'], 'video');
  return { httpStatus: res.status, raw, job };
}
