// What generate and edit share: flags, output naming, saving from URLs or base64.
import type { OptionValues } from '../../core/option-spec.js';
import { MAGIC, checkedBody, type BinaryKind } from '../../net/binary-reply.js';
import type { Context } from '../../runtime/context.js';
import { integer, oneOf } from '../../core/validate.js';
import { UsageError } from '../../core/errors.js';
import { sniffImage } from '../../cmdutil/image-ref.js';
import { forceFlags, modelFlag } from '../../cmdutil/flag-sets.js';
import { fillBody, type RequestRow, type RequestTable } from '../../core/request-table.js';
import { imageRef } from '../../cmdutil/image-ref.js';
import { checkTarget, downloadError, saveBytes, saveStream } from '../../net/download.js';
import {
  DEFAULT_IMAGE_MODEL,
  IMAGE_ASPECT_RATIOS,
  IMAGE_RESPONSE_FORMATS,
  generateImages,
  type ImageEntry,
  type ImageRequest,
} from '../../endpoints/images.js';
import { makeDirs } from 'svc-formats/make-dirs';

export type ImageOpts = OptionValues<typeof imageOptions>;

export const imageOptions = [
  modelFlag('image model', { default: DEFAULT_IMAGE_MODEL, field: 'model' }),
  {
    flags: '-n, --n <count>',
    description: 'number of images (1-10, default 1)',
    parse: integer({ min: 1, max: 10 }),
    field: 'n',
  },
  {
    flags: '--aspect-ratio <ratio>',
    description: `one of ${IMAGE_ASPECT_RATIOS.join(', ')}`,
    parse: oneOf(IMAGE_ASPECT_RATIOS),
    choices: IMAGE_ASPECT_RATIOS,
    field: 'aspect_ratio',
  },
  {
    flags: '--response-format <format>',
    description: 'how the API returns images: url or b64_json (the files are saved either way)',
    parse: oneOf(IMAGE_RESPONSE_FORMATS),
    choices: IMAGE_RESPONSE_FORMATS,
    field: 'response_format',
  },
  {
    flags: '-o, --output <path>',
    description:
      'a directory (DIR/: made if missing), or a file name (with -n > 1: name-1.png, name-2.png …); default: ' +
      'image-N.png here',
  },
  ...forceFlags('existing files'),
] as const satisfies readonly RequestRow[];

const PROMPT_INPUT = { prompt: 'PROMPT words' };
export const GENERATE_TABLE = {
  operation: 'POST /v1/images/generations',
  rows: imageOptions,
  inputs: PROMPT_INPUT,
} as const satisfies RequestTable;
export const EDIT_TABLE = {
  operation: 'POST /v1/images/edits',
  rows: [
    {
      flags: '--image <path|url>',
      description: 'the image to edit (required)',
      field: 'image',
      send: (v?: string) => (v === undefined ? undefined : { url: imageRef(v, '--image') }),
    },
    ...imageOptions,
  ],
  inputs: PROMPT_INPUT,
} as const satisfies RequestTable;

/** The request of a table's flags and the prompt. */
export function imageRequest(table: RequestTable, prompt: string, opts: ImageOpts): ImageRequest {
  return fillBody(table.rows, opts, { prompt } as ImageRequest);
}

const EXT: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/jpg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
};

interface Plan {
  /** where image i goes, given its extension */
  pathFor(i: number, ext: string): Promise<string>;
}

/** Decide (and check) where the images go, before anything is sent. */
export async function planOutput(output: string | undefined, n: number, force: boolean): Promise<Plan> {
  const { existsSync, statSync } = await import('node:fs');
  const { join, extname } = await import('node:path');
  const isDir =
    output !== undefined && (output.endsWith('/') || (existsSync(output) && statSync(output).isDirectory()));
  if (output === undefined || isDir) {
    const dir = output ?? '.';
    // `-o icons/` names a folder: made now (with its parents), before anything is sent, as mkdir -p would
    if (!existsSync(dir)) {
      const { mkdirSync } = await import('node:fs');
      try {
        makeDirs(dir);
      } catch (err) {
        throw new UsageError(`--output: cannot create the directory ${dir} (${(err as NodeJS.ErrnoException).code})`);
      }
    }
    if (!statSync(dir).isDirectory()) throw new UsageError(`--output: ${dir} is not a directory`);
    let next = 1;
    return {
      // free names only: never overwrites in this mode
      async pathFor(_i, ext) {
        for (;;) {
          const p = join(dir, `image-${next++}${ext}`);
          if (!existsSync(p)) return p;
        }
      },
    };
  }
  const ext = extname(output);
  const stem = ext ? output.slice(0, -ext.length) : output;
  const names = (e: string) =>
    n === 1 ? [ext ? output : `${output}${e}`] : Array.from({ length: n }, (_, i) => `${stem}-${i + 1}${ext || e}`);
  // without an extension the final one depends on the reply: check the likely one now
  for (const p of names(ext || '.png')) checkTarget(p, { force, flag: '--output' });
  return {
    async pathFor(i, e) {
      const p = names(e)[i]!;
      if (!ext) checkTarget(p, { force, flag: '--output' });
      return p;
    },
  };
}

export async function runImages(ctx: Context, req: ImageRequest, opts: ImageOpts): Promise<number> {
  if (req.prompt.trim() === '') throw new UsageError('PROMPT: an empty prompt is not allowed');
  const n = opts.n ?? 1;
  const save = !ctx.out.json || opts.output !== undefined;
  const plan = save ? await planOutput(opts.output, n, !!opts.force) : undefined;
  const http = await ctx.http();
  const spinner = await ctx.out.spinner(n === 1 ? 'generating the image' : `generating ${n} images`);
  let result;
  try {
    result = await generateImages(http, req);
  } finally {
    spinner.stop();
  }
  if (ctx.out.json) ctx.out.printJson(result.raw);
  if (!plan) return 0;
  for (let i = 0; i < result.data.length; i++) {
    const path = await saveImage(ctx, result.data[i]!, i, plan, !!opts.force);
    if (ctx.out.json) ctx.out.info(path);
    else ctx.out.line(path);
  }
  return 0;
}

/** An image reply: an image content type and the first bytes of PNG, JPEG, WebP or GIF. */
const IMAGE: BinaryKind = {
  what: 'an image',
  contentTypes: /^image\//,
  magic: (h) => MAGIC.png(h) || MAGIC.jpeg(h) || MAGIC.webp(h) || MAGIC.gif(h),
};

async function saveImage(ctx: Context, entry: ImageEntry, i: number, plan: Plan, force: boolean): Promise<string> {
  if (typeof entry.b64_json === 'string') {
    const data = Buffer.from(entry.b64_json, 'base64');
    const mime = entry.mime_type ?? sniffImage(data) ?? 'image/png';
    const path = await plan.pathFor(i, EXT[mime] ?? '.png');
    await saveBytes(data, path, { force, signal: ctx.signal });
    return path;
  }
  if (typeof entry.url !== 'string') throw new Error(`image ${i + 1} of the reply has neither url nor b64_json`);
  const http = await ctx.http();
  // the URL is not the API's: never send the key along
  const res = await http.request({ method: 'GET', path: entry.url, auth: false, headers: { accept: 'image/*' } });
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  const fromUrl = /\.(png|jpe?g|webp|gif)(\?|$)/i.exec(entry.url)?.[1]?.toLowerCase();
  const ext = EXT[type] ?? (fromUrl ? `.${fromUrl === 'jpeg' ? 'jpg' : fromUrl}` : '.png');
  const path = await plan.pathFor(i, ext);
  try {
    await saveStream(checkedBody(res, IMAGE), path, { force, signal: ctx.signal });
  } catch (err) {
    throw downloadError(err, res.requestId, ctx.signal);
  }
  return path;
}
