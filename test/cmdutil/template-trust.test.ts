// A template that runs a program (an MCP server, a tool command) or reads a file outside the working folder is used
// only after a yes (issue 36, item 5): asked on a terminal, --yes in scripts, exit 2 in a pipe without it (nothing
// started, nothing sent). The yes is kept as the hash of the template's text (0600 file in a 0700 folder): the same
// text is not asked about again, an edited one is.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itWithEmulator } from '../helpers/emulator.js';
import { ROOT, tempDir } from '../helpers/files.js';
import { svcInProcess } from '../helpers/in-process.js';

const it = itWithEmulator();
const SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;

/** A config folder holding template NAME with these YAML lines. */
function configWith(name: string, yaml: string): string {
  const configDir = tempDir('svc-trust-');
  mkdirSync(join(configDir, 'templates'));
  writeFileSync(join(configDir, 'templates', `${name}.yaml`), yaml);
  return configDir;
}

describe('templates that run programs or read files outside the folder', () => {
  it('in a pipe without --yes: exit 2 naming what it runs; the program never starts, nothing is sent', async ({
    emu,
  }) => {
    const marker = join(tempDir('svc-trust-mark-'), 'ran');
    const configDir = configWith('evil', `prompt: hi\noptions:\n  mcp: sh -c 'touch ${marker}'\n`);
    const r = await svcInProcess(['chat', '-t', 'evil', 'hello'], { emu, configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /-t evil: the template runs mcp: sh -c 'touch .*ran'; use it: confirmation needed, and stdin is not a terminal; pass --yes/,
    );
    expect(existsSync(marker)).toBe(false);
    expect(emu.requests()).toEqual([]);
  });

  it('a file outside the folder asks too; one inside it, or a URL, does not', async ({ emu }) => {
    const here = tempDir('svc-trust-cwd-');
    writeFileSync(join(here, 'notes.txt'), 'the notes');
    const secret = join(tempDir('svc-trust-secret-'), 'id_key');
    writeFileSync(secret, 'PRIVATE');
    const configDir = configWith('reads', `prompt: hi\noptions:\n  attach: ${secret}\n`);
    writeFileSync(join(configDir, 'templates', 'local.yaml'), 'prompt: hi\noptions:\n  attach: notes.txt\n');
    const outside = await svcInProcess(['chat', '-t', 'reads', 'x'], { emu, configDir, cwd: here });
    expect(outside.exitCode).toBe(2);
    expect(outside.stderr).toMatch(/-t reads: the template reads .*id_key \(outside this folder\); use it/);
    expect(emu.requests()).toEqual([]);
    const inside = await svcInProcess(['chat', '-t', 'local', 'x'], { emu, configDir, cwd: here });
    expect(inside.exitCode, inside.stderr).toBe(0);
    expect(emu.requests().at(-1)!.body).toContain('the notes');
  });

  it('--yes uses it for this run (and keeps no trust); a template cannot set yes itself', async ({ emu }) => {
    const configDir = configWith('tools', `prompt: use city_facts\noptions:\n  mcp: ${SERVER}\n`);
    const r = await svcInProcess(['chat', '-t', 'tools', '--yes'], { emu, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/has 2 rivers/);
    expect(existsSync(join(configDir, 'data', 'trust', 'templates.json'))).toBe(false);
    writeFileSync(join(configDir, 'templates', 'sly.yaml'), `prompt: hi\noptions:\n  yes: true\n  mcp: ${SERVER}\n`);
    // its own `yes: true` does not skip the question, and is no flag a template may set
    const sly = await svcInProcess(['chat', '-t', 'sly'], { emu, configDir });
    expect(sly.exitCode).toBe(2);
    expect(sly.stderr).toMatch(/-t sly: the template runs mcp: .*confirmation needed/);
    const slyYes = await svcInProcess(['chat', '-t', 'sly', '--yes'], { emu, configDir });
    expect(slyYes.exitCode).toBe(2);
    expect(slyYes.stderr).toMatch(/-t sly: option "yes" is not a flag of svc chat/);
  });

  it('on a terminal it asks; a yes is kept for that text (0600 in 0700), an edit asks again, a no is exit 3', async ({
    emu,
  }) => {
    const configDir = configWith('tools', `prompt: use city_facts\noptions:\n  mcp: ${SERVER}\n`);
    const asked = await svcInProcess(['chat', '-t', 'tools'], {
      emu,
      configDir,
      tty: true,
      stdinTty: true,
      input: 'y\n',
    });
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(/-t tools: the template runs mcp: node .*two-tools\.mjs; use it\? \[y\/N\]/);
    const trust = join(configDir, 'data', 'trust', 'templates.json');
    expect(statSync(trust).mode & 0o777).toBe(0o600);
    expect(statSync(join(configDir, 'data', 'trust')).mode & 0o777).toBe(0o700);
    expect(Object.values(JSON.parse(readFileSync(trust, 'utf8')).trusted)).toEqual(['tools']);
    // the same text: used without a question, even in a pipe
    const again = await svcInProcess(['chat', '-t', 'tools'], { emu, configDir });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/use it/);
    // edited: asked again
    appendFileSync(join(configDir, 'templates', 'tools.yaml'), 'description: changed\n');
    const edited = await svcInProcess(['chat', '-t', 'tools'], { emu, configDir });
    expect(edited.exitCode).toBe(2);
    expect(edited.stderr).toMatch(/-t tools: the template runs mcp: .*confirmation needed/);
    const no = await svcInProcess(['chat', '-t', 'tools'], { emu, configDir, tty: true, stdinTty: true, input: 'n\n' });
    expect(no.exitCode).toBe(3);
  });

  it('a template with neither runs as before, without a question', async ({ emu }) => {
    const configDir = configWith('plain', 'prompt: hi\nmodel: svc-4-mini\noptions:\n  temperature: 0.2\n');
    const r = await svcInProcess(['chat', '-t', 'plain'], { emu, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});
