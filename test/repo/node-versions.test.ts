// CI tests exact Node releases, listed once in .ci/node-versions: a new patch release of Node (24.22.3 broke the
// emulator's mid-stream cut) becomes a reviewed bump of that file instead of a red run on an unchanged tree.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/files.js';

const listed = readFileSync(join(ROOT, '.ci/node-versions'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

describe('.ci/node-versions', () => {
  it('lists one exact release of each Node line package.json supports', () => {
    for (const v of listed) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    const majors = [...engines.matchAll(/(\d+)(?:\.\d+)?/g)].map((m) => m[1]);
    expect(listed.map((v) => v.split('.')[0]).sort()).toEqual([...new Set(majors)].sort());
  });

  it('.ci/run runs the suite on the machine Node, then on each other listed release', () => {
    // a copy of .ci/run beside a fake npm and node: what it would run, in order
    const dir = tempDir();
    mkdirSync(join(dir, '.ci'));
    mkdirSync(join(dir, 'bin'));
    for (const f of ['run', 'node-versions']) copyFileSync(join(ROOT, '.ci', f), join(dir, '.ci', f));
    const log = join(dir, 'npm.log');
    writeFileSync(join(dir, 'bin/npm'), `#!/bin/sh\necho "$*" >> ${log}\n`);
    writeFileSync(join(dir, 'bin/node'), `#!/bin/sh\necho v${listed[0]}\n`);
    for (const f of ['npm', 'node']) chmodSync(join(dir, 'bin', f), 0o755);
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(dir, 'bin')}:/usr/bin:/bin` };
    delete env.SVC_CI_EXTRA_NODES;
    const r = spawnSync('bash', [join(dir, '.ci/run')], { env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
      'run setup',
      'test',
      ...listed.slice(1).map((v) => `run test:node -- ${v}`),
    ]);
  });
});
