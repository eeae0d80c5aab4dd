import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { formatBytes } from '../../term/output.js';
import { MAX_SKILL_BYTES, uploadSkill } from '../../endpoints/skills.js';
import { parseFrontMatter } from 'svc-formats/front-matter';

/** The folder's files, relative paths with `/`, skipping VCS and OS litter. */
async function walk(root: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const out: string[] = [];
  async function visit(rel: string) {
    for (const e of await readdir(rel ? `${root}/${rel}` : root, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === '.DS_Store' || e.name === 'node_modules') continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await visit(p);
      else if (e.isFile()) out.push(p);
    }
  }
  await visit('');
  return out.sort();
}

/** The archive's SKILL.md, its sizes checked before inflating (a zip bomb is a usage error naming the limit). */
async function skillMdOf(path: string, zip: Uint8Array): Promise<string | undefined> {
  const { readSkillMd, SkillArchiveError } = await import('svc-formats/skill-archive');
  try {
    return readSkillMd(zip);
  } catch (err) {
    if (!(err instanceof SkillArchiveError)) throw err;
    if (err.kind === 'limit') throw new UsageError(`${path}: ${err.message}`);
    throw new UsageError(`${path}: not a zip archive (give a .zip file or a folder)`);
  }
}

function checkFrontMatter(text: string | undefined, where: string): { name: string; description: string } {
  if (text === undefined) throw new UsageError(`${where}: no SKILL.md at the top level`);
  const fm = parseFrontMatter(text);
  if (!fm) throw new UsageError(`${where}: SKILL.md has no front matter (a --- block with name: and description:)`);
  if (!fm.name) throw new UsageError(`${where}: the front matter of SKILL.md has no name`);
  if (!fm.description) throw new UsageError(`${where}: the front matter of SKILL.md has no description`);
  return { name: fm.name, description: fm.description };
}

export default defineCommand({
  description:
    `The archive (or folder) must hold a SKILL.md whose front matter gives name and description; this is ` +
    `checked before uploading. At most ${formatBytes(MAX_SKILL_BYTES)}.`,
  args: [{ name: 'path', description: 'a .zip archive or a folder', required: true }],
  examples: ['svc skills upload ./my-skill', 'svc skills upload my-skill.zip --json'],
  async run(ctx, [path]) {
    const { stat, readFile } = await import('node:fs/promises');
    const { basename, resolve } = await import('node:path');
    const st = await stat(path).catch(() => undefined);
    if (!st) throw new UsageError(`${path}: no such file or folder`);
    let upload: { filename: string; size: number; path?: string; data?: Uint8Array };
    if (st.isDirectory()) {
      const files = await walk(path);
      const md = files.includes('SKILL.md') ? await readFile(`${path}/SKILL.md`, 'utf8') : undefined;
      checkFrontMatter(md, path);
      const top = basename(resolve(path));
      const { zipSync } = await import('fflate');
      const tree: Record<string, Uint8Array> = {};
      let total = 0;
      for (const f of files) {
        const data = await readFile(`${path}/${f}`);
        total += data.length;
        if (total > MAX_SKILL_BYTES)
          throw new UsageError(
            `${path}: more than ${formatBytes(MAX_SKILL_BYTES)} of files; a skill is at most ${MAX_SKILL_BYTES} bytes`,
          );
        tree[`${top}/${f}`] = data;
      }
      const zip = zipSync(tree, { level: 6, mtime: new Date('2000-01-01T00:00:00Z') });
      if (zip.length > MAX_SKILL_BYTES)
        throw new UsageError(`${path}: the archive is ${zip.length} bytes, over the limit of ${MAX_SKILL_BYTES} bytes`);
      upload = { filename: `${top}.zip`, size: zip.length, data: zip };
    } else if (st.isFile()) {
      if (st.size > MAX_SKILL_BYTES)
        throw new UsageError(
          `${path}: ${st.size} bytes is over the limit of ${MAX_SKILL_BYTES} bytes (${formatBytes(MAX_SKILL_BYTES)})`,
        );
      checkFrontMatter(await skillMdOf(path, await readFile(path)), path);
      upload = { filename: basename(path), size: st.size, path };
    } else {
      throw new UsageError(`${path}: not a file or folder`);
    }
    const http = await ctx.http();
    const { progressBar } = await import('../../term/progress.js');
    const bar = progressBar(ctx.out, upload.filename, upload.size);
    let skill;
    try {
      skill = await uploadSkill(http, upload, (sent, total) => bar.update(sent, total));
    } finally {
      bar.done();
    }
    if (ctx.out.json) ctx.out.printJson(skill);
    else ctx.out.line(`${skill.id}\t${skill.name}`);
    return 0;
  },
});
