// svc-emulator as users get it without the CLI: its tarball (and svc-formats', which it depends on) installed into
// an empty prefix; `svc-emulator serve` answers the API with its built-in key and stops on SIGTERM (exit 143).
// Third-party dependencies come from npm's cache when it has them (--prefer-offline), else the registry.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMULATOR_KEY } from '../src/state/auth.js';

const PACKAGES = resolve(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'svc-emulator-pack-'));
const prefix = join(work, 'prefix');
const npmEnv = { ...process.env, npm_config_update_notifier: 'false' };
const tarballs: Record<string, string[]> = {};

beforeAll(async () => {
  for (const name of ['formats', 'emulator']) {
    const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: join(PACKAGES, name),
      env: npmEnv,
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarballs[name] = [join(work, info!.filename), ...info!.files.map((f) => f.path)];
  }
  mkdirSync(prefix);
  await execa(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      tarballs.formats![0]!,
      tarballs.emulator![0]!,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ],
    { cwd: work, env: npmEnv },
  );
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
  });

  it('serves the API and /openapi.json from the installed tarball until SIGTERM', async () => {
    const child = execa(join(prefix, 'bin', 'svc-emulator'), ['serve', '--print-env', '--seed', '1'], {
      reject: false,
      env: npmEnv,
      cwd: work,
    });
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
    child.kill('SIGTERM');
    const r = await child;
    expect(r.exitCode).toBe(143);
    expect(r.stderr).toContain('svc-emulator stopped');
  });

  it('refuses a bad flag before listening, naming it (exit 2)', async () => {
    const r = await execa(join(prefix, 'bin', 'svc-emulator'), ['serve', '--port', '70000'], {
      reject: false,
      env: npmEnv,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--port: "70000" is not allowed (a whole number from 0 to 65535)');
  });
});
