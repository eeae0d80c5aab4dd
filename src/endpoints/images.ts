// Images: generations and edits. Results are `{url}` or `{b64_json, mime_type}` entries.
import type { JsonBody, JsonReply } from './api-shapes.js';
import type { HttpClient } from '../net/http.js';
import { expectArray } from './guard.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

export const IMAGE_ASPECT_RATIOS = SCHEMAS.ImageAspectRatio.$.enum;
export const IMAGE_RESPONSE_FORMATS = OPERATIONS.generateImages.fields['body.response_format'].enum;
export const DEFAULT_IMAGE_MODEL = 'svc-image-1';

type ImageReplyEntry = JsonReply<'generateImages'>['data'][number];
/** an entry of either kind, each field optional: a reply is read by checking which it carries */
export type ImageEntry = Partial<
  Extract<ImageReplyEntry, { url: string }> & Extract<ImageReplyEntry, { b64_json: string }>
>;

export type ImageRequest = JsonBody<'generateImages'> | JsonBody<'editImage'>;

export async function generateImages(
  http: HttpClient,
  req: ImageRequest,
  signal?: AbortSignal,
): Promise<{ raw: unknown; data: ImageEntry[] }> {
  const path = 'image' in req ? '/v1/images/edits' : '/v1/images/generations';
  const raw = await http.json('POST', path, { json: req, signal });
  return { raw, data: expectArray<ImageEntry>(raw, 'data', 'image') };
}
