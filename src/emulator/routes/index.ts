// Every route module of the emulator. Each resource owns one module; add yours to this list.
import type { Router } from '../router.js';
import * as identity from './identity.js';
import * as models from './models.js';
import * as chat from './chat.js';
import * as responses from './responses.js';
import * as messages from './messages.js';
import * as completions from './completions.js';
import * as embeddings from './embeddings.js';
import * as tokenize from './tokenize.js';
import * as documents from './documents.js';

const modules: { register(router: Router): void }[] = [identity, models, chat, responses, messages, completions, embeddings, tokenize, documents];

export function registerAllRoutes(router: Router): void {
  for (const m of modules) m.register(router);
}
