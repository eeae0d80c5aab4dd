// Images: generations and edits. Results are `{url}` or `{b64_json, mime_type}` entries.
import type { HttpClient } from '../net/http.js';
import { expectArray } from './guard.js';
import { OPERATIONS, SCHEMAS } from 'svc-formats/api-facts';

export const IMAGE_ASPECT_RATIOS = SCHEMAS.ImageAspectRatio.$.enum;
export const IMAGE_RESPONSE_FORMATS = OPERATIONS.generateImages.fields['body.response_format'].enum;
export const DEFAULT_IMAGE_MODEL = 'svc-image-1';

export interface ImageEntry {
  url?: string;
  b64_json?: string;
  mime_type?: string;
  [k: string]: unknown;
}

export interface ImageRequest {
  prompt: string;
  model: string;
  n?: number;
  response_format?: string;
  aspect_ratio?: string;
  image?: { url: string };
}

export async function generateImages(
  http: HttpClient,
  req: ImageRequest,
  signal?: AbortSignal,
): Promise<{ raw: unknown; data: ImageEntry[] }> {
  const path = req.image ? '/v1/images/edits' : '/v1/images/generations';
  const raw = await http.json('POST', path, { json: req, signal });
  return { raw, data: expectArray<ImageEntry>(raw, 'data', 'image') };
}
