// Every process svc starts gets childEnvironment(…) (core/environment.ts: the environment without svc's secrets),
// passed at the call that starts it — and with execa, extendEnv: false, or execa would add process.env back. A new
// spawn that forgets it fails here (issue 25, item 2: ffmpeg and ffprobe had the key).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The text of each call `name(…)` in `text`, parentheses matched. */
function calls(text: string, name: RegExp): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(name)) {
    let depth = 0;
    let i = m.index + m[0].length - 1;
    for (; i < text.length; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')' && --depth === 0) break;
    }
    out.push(text.slice(m.index, i + 1));
  }
  return out;
}

const START = /(?<![.\w$])(spawn|spawnSync|execa|execaSync|execFile|execFileSync|exec|execSync|fork)\(/g;

describe('processes svc starts', () => {
  const files = sources(join(ROOT, 'src'));
  const found = files.flatMap((f) =>
    calls(readFileSync(f, 'utf8'), START).map((call) => ({ file: relative(ROOT, f), call })),
  );

  it('each is started with childEnvironment(…) (execa: and extendEnv: false)', () => {
    const bare = found.filter(
      ({ call }) => !/env: childEnvironment\(/.test(call) || (/^execa/.test(call) && !/extendEnv: false/.test(call)),
    );
    expect(bare.map(({ file, call }) => `${file}: ${call.slice(0, 80)}`)).toEqual([]);
  });

  it('the scan finds them (ffmpeg, ffprobe, the tool command, api_key_cmd, the speaker probe)', () => {
    expect(found.length).toBeGreaterThanOrEqual(6);
  });
});
