// POST /v1/embeddings: stable, normalised vectors of the model's size (svc-embed-1: 256), float or base64.
import { EMBEDDING_MODELS, findLanguageModel } from '../text/catalog.js';
import { embedYielding, toBase64 } from '../text/embedder.js';
import { textSlices, yieldToLoop } from '../core/yield-loop.js';
import { checkRange, type Router } from '../http/router.js';
import { invalid, notFound } from '../core/errors.js';
import { countTokens } from '../text/tokenizer.js';

export const MAX_EMBEDDING_INPUTS = 128;

export function register(router: Router): void {
  router.post('/v1/embeddings', async (req, res, core) => {
    const body = await req.json<Record<string, any>>();
    const model = EMBEDDING_MODELS.find((m) => m.id === body.model || m.aliases.includes(body.model));
    if (!model) {
      if (typeof body.model === 'string' && findLanguageModel(body.model))
        invalid(`Model ${body.model} is not an embedding model`);
      notFound(`The model ${String(body.model)} does not exist or your team does not have access to it`);
    }
    core.checkModelAcl(req, model.id);
    const input: unknown[] = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input)) invalid('Invalid value for `input`: expected a string or an array of strings');
    if (input.length === 0) invalid('Invalid value for `input`: at least one input is required');
    if (input.length > MAX_EMBEDDING_INPUTS)
      invalid(`Invalid value for \`input\`: at most ${MAX_EMBEDDING_INPUTS} inputs per request (got ${input.length})`);
    input.forEach((s, i) => {
      if (typeof s !== 'string') invalid(`Invalid value for \`input[${i}]\`: expected a string`);
      if (s === '') invalid(`Invalid value for \`input[${i}]\`: the string is empty`);
    });
    checkRange(body, 'dimensions', 1, model.dimensions, { integer: true });
    const dims = body.dimensions ?? model.dimensions;
    const b64 = body.encoding_format === 'base64';
    let tokens = 0;
    const data = [];
    // one input at a time (and a long one in pieces), the event loop running between them
    for (const [index, text] of (input as string[]).entries()) {
      if (index > 0) await yieldToLoop();
      for (const slice of textSlices(text, 128_000)) {
        tokens += countTokens(slice);
        if (slice.length < text.length) await yieldToLoop();
      }
      const v = await embedYielding(text, model.id, dims);
      data.push({ index, embedding: b64 ? toBase64(v) : v, object: 'embedding' });
    }
    res.json(200, { object: 'list', model: model.id, data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  });
}
