// POST /v1/documents/search: ranks the chunks of the collections' files (see ../search-index.ts).
import type { Router } from '../http/router.js';
import { invalid } from '../core/errors.js';
import { search, type RetrievalMode } from '../text/search-index.js';

export function register(router: Router): void {
  router.post('/v1/documents/search', async (req, res, core) => {
    const body = await req.json<Record<string, any>>();
    if (typeof body.query !== 'string' || body.query.trim() === '')
      invalid('Invalid value for `query`: a non-empty string is required');
    // source.collection_ids: at least one non-empty id (the document's, request-check.ts)
    const ids: string[] = body.source.collection_ids;
    // retrieval_mode.type is one of the document's enum (request-check.ts)
    const mode: RetrievalMode = body.retrieval_mode?.type ?? 'hybrid';
    const matches = await search(core, {
      query: body.query,
      collectionIds: ids,
      filter: body.filter ?? undefined,
      limit: body.limit ?? 10,
      mode,
    });
    res.json(200, { matches });
  });
}
