// POST /v1/tokenize-text: a real byte-level BPE (see ../tokenizer-bpe.ts); the tokens' bytes concatenate back
// to the UTF-8 bytes of the text.
import { requireLanguageModel } from '../text/engine.js';
import type { Router } from '../http/router.js';
import { invalid } from '../core/errors.js';
import { tokenizeYielding } from '../text/tokenizer-bpe.js';

export function register(router: Router): void {
  router.post('/v1/tokenize-text', async (req, res, core) => {
    const body = await req.json<Record<string, any>>();
    // text: a string, as the document says (request-check.ts)
    const model = requireLanguageModel(body.model);
    core.checkModelAcl(req, model.id);
    // a slice at a time, the event loop running between them
    const { tokens, count } = await tokenizeYielding(body.text, model.context_length);
    // a text the model could not read is refused like an over-long prompt (and bounds the reply's size)
    if (count > model.context_length)
      invalid(`This model's maximum prompt length is ${model.context_length} tokens but the text is ${count} tokens`);
    res.json(200, { token_ids: tokens });
  });
}
