// The model catalogue: GET /v1/models and the four kind lists, each with its get.
import { EMBEDDING_MODELS, IMAGE_MODELS, LANGUAGE_MODELS, VIDEO_MODELS, publicModel } from '../text/catalog.js';
import type { Router } from '../http/router.js';
import { notFound } from '../core/errors.js';

const ALL = [...LANGUAGE_MODELS, ...EMBEDDING_MODELS, ...IMAGE_MODELS, ...VIDEO_MODELS];

function minimal(m: (typeof ALL)[number]) {
  const extra: Record<string, unknown> = { aliases: m.aliases };
  if ('context_length' in m) extra.context_length = m.context_length;
  if ('image_price' in m) extra.image_price = m.image_price;
  return { id: m.id, created: m.created, object: 'model', owned_by: m.owned_by, ...extra };
}

function find<T extends { id: string; aliases: string[] }>(list: T[], id: string): T {
  const m = list.find((x) => x.id === id || x.aliases.includes(id));
  if (!m) notFound(`The model ${id} does not exist or your team does not have access to it`);
  return m;
}

export function register(router: Router): void {
  router.get('/v1/models', (_req, res) => res.json(200, { object: 'list', data: ALL.map(minimal) }));
  router.get('/v1/models/:id', (req, res) => res.json(200, minimal(find(ALL, req.params.id!))));
  const kinds: [string, { id: string; aliases: string[] }[]][] = [
    ['language-models', LANGUAGE_MODELS],
    ['embedding-models', EMBEDDING_MODELS],
    ['image-generation-models', IMAGE_MODELS],
    ['video-generation-models', VIDEO_MODELS],
  ];
  for (const [path, list] of kinds) {
    router.get(`/v1/${path}`, (_req, res) => res.json(200, { models: list.map(publicModel) }), { endpoint: 'models' });
    router.get(`/v1/${path}/:id`, (req, res) => res.json(200, publicModel(find(list, req.params.id!))), {
      endpoint: 'models',
    });
  }
}
