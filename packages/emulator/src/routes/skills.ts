// Skills: zip archives uploaded as multipart (`files` part), described by the front matter of SKILL.md.
import { parseFrontMatter } from 'svc-formats/front-matter';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../state/backend.js';
import { queryNumber, type EmuRequest, type EmuResponse, type Router } from '../http/router.js';
import { HttpError, invalid, notFound } from '../core/errors.js';
import { discard, logged, parseForm } from '../http/formdata.js';
import { sendBlob } from '../http/send-blob.js';

export const DEFAULT_MAX_SKILL_BYTES = 50 * 1024 * 1024;

interface StoredSkill {
  id: string;
  object: 'skill';
  name: string;
  description: string;
  created_at: number;
  default_version: string;
  latest_version: string;
  team_id: string;
  seq: number;
  blob: string;
  bytes: number;
}

const skills = (core: Backend) => core.store.collection<StoredSkill>('skills');

function publicSkill(s: StoredSkill) {
  return {
    id: s.id,
    object: 'skill',
    name: s.name,
    description: s.description,
    created_at: s.created_at,
    default_version: s.default_version,
    latest_version: s.latest_version,
  };
}

async function describeArchive(path: string): Promise<{ name: string; description: string }> {
  const { readSkillMd, SkillArchiveError } = await import('svc-formats/skill-archive');
  let text: string | undefined;
  try {
    // the declared sizes are checked before anything is inflated; only SKILL.md is, into a buffer of its checked size
    text = readSkillMd(readFileSync(path));
  } catch (err) {
    if (!(err instanceof SkillArchiveError)) throw err;
    if (err.kind === 'limit') throw new HttpError(413, `The skill archive is refused: ${err.message}`);
    invalid('The uploaded file is not a valid zip archive');
  }
  if (text === undefined) invalid('The archive has no SKILL.md at its top level');
  const fm = parseFrontMatter(text);
  if (!fm) invalid('SKILL.md has no front matter (a --- block with name and description)');
  if (!fm.name) invalid('The front matter of SKILL.md has no `name`');
  if (!fm.description) invalid('The front matter of SKILL.md has no `description`');
  return { name: fm.name, description: fm.description };
}

async function upload(req: EmuRequest, res: EmuResponse, core: Backend): Promise<void> {
  const maxBytes = core.settings.maxSkillBytes ?? DEFAULT_MAX_SKILL_BYTES;
  const dir = core.store.blobDir('skills');
  const parts = await parseForm(logged(req, core), req.headers['content-type'], { dir, maxFileBytes: maxBytes });
  try {
    req.checkForm(parts);
    const files = parts.filter((p) => p.kind === 'file' && p.name === 'files');
    if (files.length === 0) invalid('Missing the `files` part (one zip archive)');
    if (files.length > 1) invalid('Upload exactly one zip archive in the `files` part');
    const file = files[0]!;
    if (file.kind !== 'file') invalid('Missing the `files` part');
    if (file.tooLarge) throw new HttpError(413, `The skill archive exceeds the limit of ${maxBytes} bytes`);
    const meta = await describeArchive(file.path);
    const now = core.nowSec();
    const id = core.id('skill');
    const version = String(core.now() * 1000 + (core.store.next('skill_version') % 1000));
    const rec: StoredSkill = {
      id,
      object: 'skill',
      ...meta,
      created_at: now,
      default_version: version,
      latest_version: version,
      team_id: req.key!.team_id,
      seq: core.store.next('skill_seq'),
      blob: id,
      bytes: file.size,
    };
    renameSync(file.path, join(dir, id));
    discard(parts.filter((p) => p !== file));
    skills(core).set(id, rec);
    core.store.save();
    res.json(200, publicSkill(rec));
  } catch (err) {
    discard(parts);
    throw err;
  }
}

function find(core: Backend, req: EmuRequest): StoredSkill {
  const s = skills(core).get(req.params.id!);
  if (!s || s.team_id !== req.key?.team_id) notFound(`No skill with id ${req.params.id}`);
  return s;
}

function list(req: EmuRequest, res: EmuResponse, core: Backend): void {
  // limit and order are within the document's range and enum (request-check.ts)
  const limit = queryNumber(req, 'limit', 100);
  const order = req.query.get('order') ?? 'desc';
  const all = [...skills(core).values()]
    .filter((s) => s.team_id === req.key!.team_id)
    .sort((a, b) => (order === 'asc' ? a.seq - b.seq : b.seq - a.seq));
  const after = req.query.get('after');
  let start = 0;
  if (after) {
    const i = all.findIndex((s) => s.id === after);
    if (i === -1) invalid(`Invalid value for \`after\`: no skill ${after}`);
    start = i + 1;
  }
  const page = all.slice(start, start + limit);
  res.json(200, {
    object: 'list',
    data: page.map(publicSkill),
    first_id: page[0]?.id ?? null,
    has_more: start + limit < all.length,
    last_id: page[page.length - 1]?.id ?? null,
  });
}

export function register(router: Router): void {
  router.post('/v1/skills', upload);
  router.get('/v1/skills', list);
  router.get('/v1/skills/:id', (req, res, core) => res.json(200, publicSkill(find(core, req))));
  router.delete('/v1/skills/:id', (req, res, core) => {
    const s = find(core, req);
    skills(core).delete(s.id);
    rmSync(join(core.store.blobDir('skills'), s.blob), { force: true });
    core.store.save();
    res.json(200, { id: s.id, object: 'skill.deleted', deleted: true });
  });
  router.get('/v1/skills/:id/content', async (req, res, core) => {
    const s = find(core, req);
    await sendBlob(core, res, join(core.store.blobDir('skills'), s.blob), {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${s.name.replace(/[^A-Za-z0-9._-]/g, '_')}.zip"`,
    });
  });
}
