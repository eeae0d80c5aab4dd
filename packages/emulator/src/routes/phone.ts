// Phone numbers v1 (/v1/phone-numbers: buy, list, get, update with a field mask, release) and v2
// (/v2/phone-numbers: create with origin svc_provisioned|byo_trunk and an optional signed webhook, paged list,
// delete). Both need a key with agent access (403).
import { isIP } from 'node:net';
import type { Backend } from '../state/backend.js';
import { generateSecret } from 'svc-formats/webhooks';
import { queryNumber, tokenPage, type EmuRequest, type Handler, type Router } from '../http/router.js';
import { HttpError, invalid, notFound } from '../core/errors.js';
import { phoneNumbersV1, phoneNumbersV2, type PhoneV1Record, type PhoneV2Record } from '../voice/phone-numbers.js';

type Json = Record<string, any>;

export function publicV1(p: PhoneV1Record): Json {
  const { team_id: _t, ...rest } = p;
  return rest;
}

export function publicV2(p: PhoneV2Record): Json {
  return {
    phone_number_id: p.phone_number_id,
    phone_number: p.phone_number,
    name: p.name,
    origin: p.origin,
    agent_id: p.agent_id,
    created_at: p.created_at,
  };
}

const E164 = /^\+[1-9]\d{1,14}$/;

function numberInUse(core: Backend, e164: string): boolean {
  for (const p of phoneNumbersV1(core).values()) if (p.phone_number === e164) return true;
  for (const p of phoneNumbersV2(core).values()) if (p.phone_number === e164) return true;
  return false;
}

/** A free US number in the area code: +1 NPA NXX XXXX (exchange first digit 2-9). */
function freshNumber(core: Backend, area: string): string {
  for (let i = 0; i < 1000; i++) {
    const r = core.random(4, 'phone-number').readUInt32LE(0);
    const n = `+1${area}${2 + (r % 8)}${String(Math.floor(r / 8) % 1_000_000).padStart(6, '0')}`;
    if (!numberInUse(core, n)) return n;
  }
  throw new HttpError(409, `No free number left in area code ${area}`);
}

/** A name not blank: its presence, type and length are the document's (request-check.ts); blank is not. */
function checkName(body: Json): void {
  if (typeof body.name !== 'string' || body.name.trim() === '')
    invalid('Invalid value for `name`: a non-empty string is required');
}

function v1Of(core: Backend, req: EmuRequest): PhoneV1Record {
  const id = req.params.id!;
  const p = phoneNumbersV1(core).get(id);
  if (!p || p.team_id !== req.key?.team_id) notFound(`Phone number ${id} not found`);
  return p;
}

function validCidr(s: unknown): boolean {
  if (typeof s !== 'string') return false;
  const m = /^([^/]+)\/(\d{1,3})$/.exec(s);
  if (!m) return false;
  const fam = isIP(m[1]!);
  return fam !== 0 && Number(m[2]) <= (fam === 4 ? 32 : 128);
}

// ---- v1

const createV1: Handler = async (req, res, core) => {
  const body = await req.json<Json>();
  if (typeof body.area_code !== 'string' || !/^[2-9]\d{2}$/.test(body.area_code))
    invalid(`Invalid value for \`area_code\`: ${JSON.stringify(body.area_code)}; must be a 3-digit US area code`);
  checkName(body);
  const now = new Date().toISOString();
  const rec: PhoneV1Record = {
    phone_number_id: core.id('pn'),
    team_id: req.key!.team_id,
    phone_number: freshNumber(core, body.area_code),
    name: body.name,
    description: body.description ?? null,
    area_code: body.area_code,
    agent_id: null,
    created_at: now,
    updated_at: now,
  };
  phoneNumbersV1(core).set(rec.phone_number_id, rec);
  core.store.save();
  res.json(200, { phone_number: publicV1(rec) });
};

const listV1: Handler = (req, res, core) => {
  const limit = queryNumber(req, 'limit', 100);
  const list = [...phoneNumbersV1(core).values()].filter((p) => p.team_id === req.key!.team_id).slice(0, limit);
  res.json(200, { phone_numbers: list.map(publicV1) });
};

const getV1: Handler = (req, res, core) => res.json(200, { phone_number: publicV1(v1Of(core, req)) });

const updateV1: Handler = async (req, res, core) => {
  const current = v1Of(core, req);
  const body = await req.json<Json>();
  const paths = body.field_mask?.paths;
  // field_mask.paths: required, each of the document's enum (request-check.ts)
  const next: PhoneV1Record = { ...current, updated_at: new Date().toISOString() };
  if (paths.includes('name')) {
    if (body.name === undefined || body.name === null) invalid('Invalid value for `name`: the name cannot be cleared');
    checkName(body);
    next.name = body.name;
  }
  if (paths.includes('description')) {
    next.description = body.description ?? null;
  }
  phoneNumbersV1(core).set(next.phone_number_id, next);
  core.store.save();
  res.json(200, { phone_number: publicV1(next) });
};

const deleteV1: Handler = (req, res, core) => {
  const p = v1Of(core, req);
  phoneNumbersV1(core).delete(p.phone_number_id);
  core.store.save();
  res.empty(204);
};

// ---- v2

/** The webhook of a v2 create body (null without one), with its signing secret (seeded under --seed). */
function webhookOf(core: Backend, body: Json): PhoneV2Record['webhook'] {
  if (body.webhook === undefined || body.webhook === null) return null;
  const w = body.webhook as Json;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(String(w.url)).protocol);
  } catch {
    ok = false;
  }
  if (!ok) invalid(`Invalid value for \`webhook.url\`: ${JSON.stringify(w.url)}; must be an http(s) URL`);
  const secret =
    core.seed === undefined ? generateSecret() : `whsec_${core.random(24, 'webhook-secret').toString('base64')}`;
  return { name: typeof w.name === 'string' && w.name ? w.name : body.name, url: String(w.url), secret };
}

function sipAuthOf(body: Json): PhoneV2Record['sip_auth'] {
  if (body.sip_auth === undefined || body.sip_auth === null) return null;
  const list = body.sip_auth.allowed_addresses;
  // an array, required (the document's); each a CIDR block, a form checked here
  list.forEach((c: unknown, i: number) => {
    if (!validCidr(c))
      invalid(`Invalid value for \`sip_auth.allowed_addresses[${i}]\`: ${JSON.stringify(c)} is not a CIDR block`);
  });
  return { allowed_addresses: list };
}

const createV2: Handler = async (req, res, core) => {
  const body = await req.json<Json>();
  checkName(body);
  const team = req.key!.team_id;
  let e164: string;
  if (body.origin === 'byo_trunk') {
    if (typeof body.phone_number !== 'string' || !E164.test(body.phone_number))
      invalid(
        `Invalid value for \`phone_number\`: ${JSON.stringify(body.phone_number)}; a byo_trunk number in ` +
          `E.164 form is required`,
      );
    e164 = body.phone_number;
    if (numberInUse(core, e164)) throw new HttpError(409, `Phone number ${e164} is already registered`);
  } else {
    if (body.phone_number !== undefined && body.phone_number !== null)
      invalid(
        'Invalid value for `phone_number`: only byo_trunk numbers carry a phone_number; svc_provisioned ' +
          'numbers are chosen by the service',
      );
    e164 = freshNumber(core, '415');
  }
  if (body.agent_id !== undefined && body.agent_id !== null) {
    const a = core.store.collection<{ team_id: string }>('agents').get(String(body.agent_id));
    if (!a || a.team_id !== team) notFound(`Agent ${body.agent_id} not found`);
  }
  const webhook = webhookOf(core, body);
  const sipAuth = sipAuthOf(body);
  const rec: PhoneV2Record = {
    phone_number_id: core.id('pn'),
    team_id: team,
    phone_number: e164,
    name: body.name,
    origin: body.origin,
    agent_id: body.agent_id ?? null,
    created_at: new Date().toISOString(),
    webhook,
    sip_auth: sipAuth,
  };
  phoneNumbersV2(core).set(rec.phone_number_id, rec);
  core.store.save();
  res.json(200, { phone_number: publicV2(rec), webhook: webhook ? { ...webhook } : null });
};

const listV2: Handler = (req, res, core) => {
  // an integer of at least 1 (the document's, request-check.ts); above 100 clamped, as the API does
  const limit = Math.min(queryNumber(req, 'limit', 20), 100);
  const agent = req.query.get('agent_id');
  const team = req.key!.team_id;
  const all = [...phoneNumbersV2(core).values()].filter(
    (p) => p.team_id === team && (agent === null || p.agent_id === agent),
  );
  const { page, next } = tokenPage(all, req.query.get('pagination_token'), limit, (p) => p.phone_number_id);
  res.json(200, { phone_numbers: page.map(publicV2), ...(next !== undefined ? { pagination_token: next } : {}) });
};

const deleteV2: Handler = (req, res, core) => {
  const id = req.params.id!;
  const p = phoneNumbersV2(core).get(id);
  if (!p || p.team_id !== req.key?.team_id) notFound(`Phone number ${id} not found`);
  phoneNumbersV2(core).delete(id);
  core.store.save();
  res.empty(204);
};

export function register(router: Router): void {
  const opts = { agentAccess: true } as const;
  router.post('/v1/phone-numbers', createV1, opts);
  router.get('/v1/phone-numbers', listV1, opts);
  router.get('/v1/phone-numbers/:id', getV1, opts);
  router.patch('/v1/phone-numbers/:id', updateV1, opts);
  router.delete('/v1/phone-numbers/:id', deleteV1, opts);
  router.post('/v2/phone-numbers', createV2, opts);
  router.get('/v2/phone-numbers', listV2, opts);
  router.delete('/v2/phone-numbers/:id', deleteV2, opts);
}
