// svc-emulator as users get it without the CLI: its tarball installed ALONE into an empty folder (it bundles
// svc-formats, which no registry has: issue 39), then `npx svc-emulator serve` answers the API with its built-in key
// and stops on SIGTERM (exit 143); svc-formats' own tarball, alone in another, imports. npm pack runs each package's
// prepack (scripts/pack-package.mjs: a build, the LICENSE, the bundled workspace package). Third-party dependencies
// come from npm's cache when it has them (--prefer-offline), else the registry.
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMULATOR_KEY } from '../src/state/auth.js';

const PACKAGES = resolve(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'svc-emulator-pack-'));
const npmEnv = { ...process.env, npm_config_update_notifier: 'false' };
const tarballs: Record<string, string[]> = {};
/** an empty folder with one tarball installed in it, as `npm install ./svc-emulator-0.1.0.tgz` leaves it */
const alone = (name: string) => join(work, `${name}-alone`);
const npx = (args: string[], opts: { cwd?: string } = {}) =>
  execa('npx', ['--no-install', ...args], { reject: false, env: npmEnv, cwd: alone('emulator'), ...opts });

beforeAll(async () => {
  for (const name of ['formats', 'emulator']) {
    const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: join(PACKAGES, name),
      env: npmEnv,
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarballs[name] = [join(work, info!.filename), ...info!.files.map((f) => f.path)];
  }
  for (const name of ['formats', 'emulator']) {
    mkdirSync(alone(name));
    await execa('npm', ['install', tarballs[name]![0]!, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: alone(name),
      env: npmEnv,
    });
  }
}, 300_000);

describe('svc-emulator on its own', () => {
  it('packs its built modules, its command, its docs and the API document, and no tests', () => {
    const files = tarballs.emulator!.slice(1);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/svc-emulator.js',
        'dist/http/server.js',
        'dist/main.js',
        'dist/routes/chat.js',
        'README.md',
        'package.json',
        'spec/openapi.json',
      ]),
    );
    expect(files.some((f) => f.startsWith('test/'))).toBe(false);
    expect(tarballs.formats!.slice(1)).toEqual(expect.arrayContaining(['dist/audio-codecs.js', 'dist/webhooks.js']));
    // svc-formats inside it, as a bundled dependency, and the licence in both
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'node_modules/svc-formats/package.json', 'node_modules/svc-formats/LICENSE']),
    );
    expect(files.filter((f) => f.startsWith('node_modules/svc-formats/dist/')).sort()).toEqual(
      tarballs
        .formats!.filter((f) => f.startsWith('dist/'))
        .map((f) => `node_modules/svc-formats/${f}`)
        .sort(),
    );
    expect(tarballs.formats!.slice(1)).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
  });

  it('the pack left the working copy as it was (no staged copy shadows the workspace link)', () => {
    expect(readdirSync(join(PACKAGES, 'emulator'))).not.toContain('node_modules');
    expect(readdirSync(join(PACKAGES, 'emulator'))).not.toContain('LICENSE');
    expect(readdirSync(join(PACKAGES, 'formats'))).not.toContain('LICENSE');
  });

  it('npx svc-emulator serve, installed alone, serves the API and /openapi.json until SIGTERM', async () => {
    const child = npx(['svc-emulator', 'serve', '--print-env', '--seed', '1']);
    const env = await new Promise<Record<string, string>>((done, fail) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/SVC_API_KEY=.*\n/.test(out))
          done(
            Object.fromEntries(
              out
                .trim()
                .split('\n')
                .map((l) => l.replace(/^export /, '').split('=') as [string, string]),
            ),
          );
      });
      child.once('exit', () => fail(new Error(`svc-emulator exited before it was ready: ${out}`)));
    });
    expect(env.SVC_API_KEY).toBe(DEFAULT_EMULATOR_KEY);
    const models = await fetch(`${env.SVC_BASE_URL}/v1/models`, {
      headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
    });
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toContain('svc-4');
    // the API document it ships, for the user's own tools
    const doc = await fetch(`${env.SVC_BASE_URL}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string }).openapi).toBe('3.2.0');
    // the emulator's own pid: npx does not pass SIGTERM on to the program it runs
    process.kill(Number(env.SVC_EMULATOR_PID), 'SIGTERM');
    const r = await child;
    expect(r.exitCode).toBe(143);
    expect(r.stderr).toContain('svc-emulator stopped');
  });

  it('refuses a bad flag before listening, naming it (exit 2)', async () => {
    const r = await npx(['svc-emulator', 'serve', '--port', '70000']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--port: "70000" is not allowed (a whole number from 0 to 65535)');
  });
});

describe('svc-formats on its own', () => {
  it('installed alone, its modules import and work (a Standard Webhooks signature verifies)', async () => {
    const script = [
      "import { generateSecret, signedHeaders, verify } from 'svc-formats/webhooks';",
      'const secret = generateSecret();',
      "verify(secret, signedHeaders(secret, 'msg_1', '{}', 1700000000), '{}', { nowSec: 1700000000 });",
      "console.log('verified');",
    ].join('\n');
    const r = await execa('node', ['--input-type=module', '-e', script], { reject: false, cwd: alone('formats') });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('verified');
  });
});
