// Every route module of the emulator. Each resource owns one module; add yours to this list.
import type { Router } from '../http/router.js';
import * as files from './files.js';
import * as skills from './skills.js';
import * as images from './images.js';
import * as videos from './videos.js';
import * as identity from './identity.js';
import * as models from './models.js';
import * as chat from './chat.js';
import * as responses from './responses.js';
import * as messages from './messages.js';
import * as completions from './completions.js';
import * as embeddings from './embeddings.js';
import * as tokenize from './tokenize.js';
import * as documents from './documents.js';
import * as tts from './tts.js';
import * as stt from './stt.js';
import * as agents from './agents.js';
import * as phone from './phone.js';
import * as calls from './calls.js';
import * as secrets from './secrets.js';
import * as voices from './voices.js';
import * as customVoices from './custom-voices.js';
import * as realtime from './realtime.js';

const modules: { register(router: Router): void }[] = [
  identity,
  models,
  files,
  skills,
  images,
  videos,
  chat,
  responses,
  messages,
  completions,
  embeddings,
  tokenize,
  documents,
  agents,
  phone,
  calls,
  secrets,
  voices,
  customVoices,
  realtime,
  tts,
  stt,
];

export function registerAllRoutes(router: Router): void {
  for (const m of modules) m.register(router);
}
