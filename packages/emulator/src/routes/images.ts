// Images: generations and edits answer real PNG files derived from the request, as URLs served by the emulator's
// public address, or inline as base64.
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_MODELS } from '../text/catalog.js';
import type { Backend } from '../state/backend.js';
import { yieldToLoop } from '../core/yield-loop.js';
import { PRIVATE_FILE } from '../state/state.js';
import type { EmuRequest, EmuResponse, Router } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';
import { dimensions, pictureFromSeed } from '../core/png.js';
import { sendBlob } from '../http/send-blob.js';

function model(core: Backend, req: EmuRequest, id: unknown) {
  const name = typeof id === 'string' ? id : 'svc-image-1';
  const m = IMAGE_MODELS.find((x) => x.id === name || x.aliases.includes(name));
  if (!m) notFound(`The model ${name} does not exist or your team does not have access to it`);
  core.checkModelAcl(req, m.id);
  return m;
}

function checkCommon(body: Record<string, unknown>, maxPrompt: number): void {
  const prompt = body.prompt as string; // a string, as the document says (request-check.ts)
  if ([...prompt].length > maxPrompt)
    invalid(`The prompt is ${[...prompt].length} characters long; the model accepts at most ${maxPrompt}`);
  if (prompt.trim() === '') invalid('The prompt is empty');
}

function checkImageRef(v: unknown, field: string): string {
  const url = (v as { url?: unknown } | undefined)?.url;
  if (!v || typeof v !== 'object' || typeof url !== 'string')
    invalid(`Invalid value for \`${field}\`: must be an object with a \`url\` string`);
  if (!/^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i.test(url) && !/^https?:\/\//i.test(url))
    invalid(`Invalid value for \`${field}.url\`: must be an http(s) URL or a base64 data URL of an image`);
  return url;
}

/** The pictures, one at a time with the event loop running between them (10 take ~170 ms). */
async function answer(res: EmuResponse, core: Backend, body: Record<string, unknown>, seed: string): Promise<void> {
  const n = (body.n as number | undefined) ?? 1;
  const aspect = body.aspect_ratio === 'auto' ? undefined : (body.aspect_ratio as string | undefined);
  const { width, height } = dimensions(aspect);
  const dir = core.store.blobDir('images');
  const data = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) await yieldToLoop();
    const png = pictureFromSeed(
      `${core.seed === undefined ? '' : `${core.seed}\u0000`}${seed}\u0000${i}`,
      width,
      height,
    );
    if (body.response_format === 'b64_json') data.push({ b64_json: png.toString('base64'), mime_type: 'image/png' });
    else {
      // content-addressed: the same request gives the same URL
      const name = `${createHash('sha256').update(png).digest('hex').slice(0, 32)}.png`;
      const path = join(dir, name);
      if (!existsSync(path)) writeFileSync(path, png, { mode: PRIVATE_FILE });
      data.push({ url: `${core.publicUrl}/images/${name}` });
    }
  }
  res.json(200, { data });
}

export function register(router: Router): void {
  router.post('/v1/images/generations', async (req, res, core) => {
    const body = await req.json();
    const m = model(core, req, body.model);
    checkCommon(body, m.max_prompt_length);
    await answer(res, core, body, `gen\u0000${m.id}\u0000${body.prompt}\u0000${body.aspect_ratio ?? ''}`);
  });
  router.post('/v1/images/edits', async (req, res, core) => {
    const body = await req.json();
    const m = model(core, req, body.model);
    checkCommon(body, m.max_prompt_length);
    const url = checkImageRef(body.image, 'image');
    const ref = createHash('sha256').update(url).digest('hex');
    await answer(res, core, body, `edit\u0000${m.id}\u0000${body.prompt}\u0000${ref}\u0000${body.aspect_ratio ?? ''}`);
  });
  router.get(
    '/public/images/:name',
    async (req, res, core) => {
      const name = req.params.name!;
      const path = join(core.store.blobDir('images'), name);
      if (!/^[0-9a-f]{32}\.png$/.test(name) || !existsSync(path)) notFound('No such image');
      await sendBlob(core, res, path, { 'content-type': 'image/png' });
    },
    { auth: false },
  );
}
