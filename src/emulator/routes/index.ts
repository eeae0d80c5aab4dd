// Every route module of the emulator. Each resource owns one module; add yours to this list.
import type { Router } from '../router.js';
import * as identity from './identity.js';
import * as models from './models.js';
import * as chat from './chat.js';

const modules: { register(router: Router): void }[] = [identity, models, chat];

export function registerAllRoutes(router: Router): void {
  for (const m of modules) m.register(router);
}
