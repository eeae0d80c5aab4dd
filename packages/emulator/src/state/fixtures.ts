// Fixtures (`svc emulator serve --fixtures FILE`, JSON or YAML): keys with ACLs, agents, phone numbers, files,
// skills, custom voices and document collections, created through the emulator's own API once it listens (so
// each entry is checked like a real request), and again after every reset. The format is in
// packages/emulator/README.md.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { KeyRecord } from './auth.js';
import type { Backend } from './backend.js';
import { registerCollections } from '../text/search-index.js';

type Json = Record<string, unknown>;

export interface Fixtures {
  keys?: Partial<KeyRecord>[];
  agents?: (Json & { key?: string })[];
  phone_numbers?: (Json & { api?: 'v1' | 'v2'; agent?: string; key?: string })[];
  files?: {
    filename?: string;
    content?: string;
    content_base64?: string;
    path?: string;
    expires_after?: number;
    key?: string;
  }[];
  skills?: { path: string; key?: string }[];
  custom_voices?: { path: string; name?: string; key?: string }[];
  collections?: Record<string, string | string[]>;
}

const AUDIO_TYPES: Record<string, string> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.flac': 'audio/flac',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
};

const SECTIONS = ['keys', 'agents', 'phone_numbers', 'files', 'skills', 'custom_voices', 'collections'];

export class FixtureError extends Error {}

/** Read and check the shape of a fixtures file; paths inside it are resolved against its folder. */
export async function loadFixtures(file: string): Promise<{ fixtures: Fixtures; dir: string }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new FixtureError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = /\.json$/i.test(file) ? JSON.parse(text) : (await import('yaml')).parse(text);
  } catch (err) {
    throw new FixtureError(
      `${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new FixtureError(`${file}: expected a mapping with sections ${SECTIONS.join(', ')}`);
  for (const [k, v] of Object.entries(data as Json)) {
    if (!SECTIONS.includes(k))
      throw new FixtureError(`${file}: unknown section ${k}; sections: ${SECTIONS.join(', ')}`);
    const isList = k !== 'collections';
    if (isList ? !Array.isArray(v) : typeof v !== 'object' || v === null || Array.isArray(v))
      throw new FixtureError(`${file}: ${k} must be ${isList ? 'a list' : 'a mapping of name → path(s)'}`);
  }
  return { fixtures: data as Fixtures, dir: dirname(resolve(file)) };
}

/**
 * Apply the fixtures unless this state already has them (the same fixtures, by content): a kept state dir is not
 * seeded twice. Reset clears the mark, so the fixtures come back after it.
 */
export async function seedFixtures(
  core: Backend,
  fixtures: Fixtures,
  dir: string,
): Promise<Record<string, number> | undefined> {
  const mark = createHash('sha256').update(JSON.stringify(fixtures)).update(dir).digest('hex');
  const meta = core.store.collection<string>('fixtures');
  if (meta.get('applied') === mark) {
    if (fixtures.collections) await applyFixtures(core, { collections: fixtures.collections }, dir);
    return undefined;
  }
  const counts = await applyFixtures(core, fixtures, dir);
  meta.set('applied', mark);
  core.store.save();
  return counts;
}

/** Create everything in the fixtures through the API; returns how many of each were made. Throws naming the entry. */
export async function applyFixtures(core: Backend, fixtures: Fixtures, dir: string): Promise<Record<string, number>> {
  const run = new FixtureRun(core, dir);
  for (const [i, k] of (fixtures.keys ?? []).entries()) {
    try {
      core.addKey(k);
    } catch (err) {
      throw new FixtureError(`fixtures keys[${i}]: ${(err as Error).message}`);
    }
    run.count('keys');
  }
  const agentIds = await createAgents(run, fixtures.agents ?? []);
  await createPhoneNumbers(run, fixtures.phone_numbers ?? [], agentIds);
  await uploadFiles(run, fixtures.files ?? []);
  await uploadSkills(run, fixtures.skills ?? []);
  await uploadCustomVoices(run, fixtures.custom_voices ?? []);
  if (fixtures.collections) {
    const named = Object.fromEntries(
      Object.entries(fixtures.collections).map(([name, paths]) => [
        name,
        (Array.isArray(paths) ? paths : [paths]).map((p) => resolve(dir, p)),
      ]),
    );
    registerCollections(core, named);
    run.counts.collections = Object.keys(named).length;
  }
  return run.counts;
}

/** One application of the fixtures: requests to the emulator's API, files read from their folder, counts. */
class FixtureRun {
  readonly counts: Record<string, number> = {};

  constructor(
    readonly core: Backend,
    readonly dir: string,
  ) {}

  count(k: string): void {
    this.counts[k] = (this.counts[k] ?? 0) + 1;
  }

  /** A request as the entry's key (the default key when it names none); an error names the entry. */
  async call(
    where: string,
    method: string,
    path: string,
    key: string | undefined,
    body: Json | FormData,
  ): Promise<Json> {
    const headers: Record<string, string> = { authorization: `Bearer ${key ?? this.core.defaultKey}` };
    if (!(body instanceof FormData)) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.core.url}${path}`, {
      method,
      headers,
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new FixtureError(`fixtures ${where}: ${res.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as Json) : {};
  }

  /** A file an entry names, relative to the fixtures' folder. */
  read(where: string, p: string) {
    try {
      return readFileSync(resolve(this.dir, p));
    } catch (err) {
      throw new FixtureError(`fixtures ${where}: cannot read ${p}: ${(err as Error).message}`);
    }
  }
}

/** The agents; returns each one's id by its name (phone numbers name their agent). */
async function createAgents(run: FixtureRun, list: NonNullable<Fixtures['agents']>): Promise<Map<string, string>> {
  const agentIds = new Map<string, string>();
  for (const [i, a] of list.entries()) {
    const { key, ...body } = a;
    const made = await run.call(`agents[${i}]`, 'POST', '/v1/agents', key, body);
    agentIds.set(String(a.name), String((made.agent as Json).agent_id));
    run.count('agents');
  }
  return agentIds;
}

async function createPhoneNumbers(
  run: FixtureRun,
  list: NonNullable<Fixtures['phone_numbers']>,
  agentIds: Map<string, string>,
): Promise<void> {
  const core = run.core;
  for (const [i, p] of list.entries()) {
    const { api = 'v2', agent, key, ...body } = p;
    if (agent !== undefined) {
      if (!agentIds.has(agent))
        throw new FixtureError(`fixtures phone_numbers[${i}]: no agent named ${agent} in the fixtures`);
      body.agent_id = agentIds.get(agent);
    }
    // a fixture may fix the webhook's signing secret, so that a CI job can verify deliveries with a known one
    const webhook = body.webhook as Json | undefined;
    const secret = typeof webhook?.secret === 'string' ? webhook.secret : undefined;
    if (secret !== undefined) body.webhook = { ...webhook, secret: undefined };
    const made = await run.call(
      `phone_numbers[${i}]`,
      'POST',
      api === 'v1' ? '/v1/phone-numbers' : '/v2/phone-numbers',
      key,
      { ...(api === 'v2' ? { origin: 'svc_provisioned' } : {}), ...body },
    );
    if (secret !== undefined) {
      const id = String((made.phone_number as Json | undefined)?.phone_number_id);
      const rec = core.store.collection<{ webhook: { secret: string } | null }>('phone_numbers_v2').get(id);
      if (!rec?.webhook)
        throw new FixtureError(`fixtures phone_numbers[${i}]: webhook.secret needs a v2 number with a webhook`);
      rec.webhook.secret = secret;
      core.store.save();
    }
    run.count('phone_numbers');
  }
}

async function uploadFiles(run: FixtureRun, list: NonNullable<Fixtures['files']>): Promise<void> {
  for (const [i, f] of list.entries()) {
    const where = `files[${i}]`;
    const bytes =
      f.path !== undefined
        ? run.read(where, f.path)
        : f.content_base64 !== undefined
          ? Buffer.from(f.content_base64, 'base64')
          : f.content !== undefined
            ? Buffer.from(f.content)
            : undefined;
    if (!bytes) throw new FixtureError(`fixtures ${where}: give content, content_base64 or path`);
    const form = new FormData();
    if (f.expires_after !== undefined) form.append('expires_after', String(f.expires_after));
    form.append('file', new Blob([bytes]), f.filename ?? (f.path ? basename(f.path) : `file-${i}.txt`));
    await run.call(where, 'POST', '/v1/files', f.key, form);
    run.count('files');
  }
}

async function uploadSkills(run: FixtureRun, list: NonNullable<Fixtures['skills']>): Promise<void> {
  for (const [i, s] of list.entries()) {
    const form = new FormData();
    form.append('files', new Blob([run.read(`skills[${i}]`, s.path)], { type: 'application/zip' }), basename(s.path));
    await run.call(`skills[${i}]`, 'POST', '/v1/skills', s.key, form);
    run.count('skills');
  }
}

async function uploadCustomVoices(run: FixtureRun, list: NonNullable<Fixtures['custom_voices']>): Promise<void> {
  for (const [i, v] of list.entries()) {
    const form = new FormData();
    if (v.name !== undefined) form.append('name', v.name);
    const type = AUDIO_TYPES[extname(v.path).toLowerCase()] ?? 'application/octet-stream';
    form.append('file', new Blob([run.read(`custom_voices[${i}]`, v.path)], { type }), basename(v.path));
    await run.call(`custom_voices[${i}]`, 'POST', '/v1/custom-voices', v.key, form);
    run.count('custom_voices');
  }
}
