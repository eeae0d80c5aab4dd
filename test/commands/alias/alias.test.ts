// svc alias set/list/delete, and aliases expanded before commander parses: $1… from the arguments (the rest
// appended), global flags before the alias name, shell aliases (!) with "$@", and completion offering them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../helpers/files.js';
import { itWithEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { svcBinDir, svcShell } from '../../helpers/subprocess.js';
import { needTools } from '../../helpers/tools.js';
import { svcOnTerminal } from '../../helpers/terminal.js';

const withEmu = itWithEmulator();
const bin = svcBinDir();
const PATH = `${bin}:${process.env.PATH}`;

/** A config folder of its own, with these aliases set through the CLI. */
async function aliasesIn(aliases: Record<string, string>): Promise<string> {
  const configDir = tempDir('svc-alias-');
  for (const [name, expansion] of Object.entries(aliases)) {
    const r = await svcInProcess(['alias', 'set', name, expansion], { configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  }
  return configDir;
}

describe.concurrent('svc alias', () => {
  it('set, list (pipe, --json, terminal), delete', async () => {
    const configDir = await aliasesIn({ ask: 'chat -m svc-4-mini', fid: 'files get $1 --json id,filename' });
    const list = await svcInProcess(['alias', 'list'], { configDir });
    expect(list.stdout).toBe('ask\tchat -m svc-4-mini\nfid\tfiles get $1 --json id,filename\n');
    const json = await svcInProcess(['alias', 'list', '--json'], { configDir });
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { name: 'ask', expansion: 'chat -m svc-4-mini' },
      { name: 'fid', expansion: 'files get $1 --json id,filename' },
    ]);
    const tty = await svcInProcess(['alias', 'list'], { configDir, tty: true, columns: 60 });
    expect(tty.stdout).toMatch(/NAME +EXPANSION\nask +chat -m svc-4-mini\n/);
    const del = await svcInProcess(['alias', 'delete', 'ask'], { configDir });
    expect(del.exitCode).toBe(0);
    expect((await svcInProcess(['alias', 'list'], { configDir })).stdout).toBe(
      'fid\tfiles get $1 --json id,filename\n',
    );
    const missing = await svcInProcess(['alias', 'rm', 'ask', 'fid'], { configDir });
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toContain('no alias ask');
    // nothing deleted when one name is missing
    expect((await svcInProcess(['alias', 'list'], { configDir })).stdout).toContain('fid');
  });

  it('refuses a command name, a bad expansion, a set again without --force (--clobber replaces)', async () => {
    const configDir = await aliasesIn({ ask: 'chat' });
    const cases: [string[], string][] = [
      [['alias', 'set', 'models', 'chat'], '"models" is an svc command'],
      [['alias', 'set', 'x', 'chta hi'], '"chta" is not an svc command'],
      [['alias', 'set', '-x', 'chat'], ''],
      [['alias', 'set', 'ask', 'models list'], 'alias ask exists (chat); --force replaces it'],
      [['alias', 'set', 'q', "chat 'open"], "the quote ' is not closed"],
    ];
    for (const [args, message] of cases) {
      const r = await svcInProcess(args, { configDir });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
    const clobber = await svcInProcess(['alias', 'set', 'ask', 'models list', '--clobber'], { configDir });
    expect(clobber.exitCode).toBe(0);
    expect((await svcInProcess(['alias', 'list'], { configDir })).stdout).toBe('ask\tmodels list\n');
    const force = await svcInProcess(['alias', 'set', 'ask', 'files list', '-f'], { configDir });
    expect(force.exitCode, force.stderr).toBe(0);
    expect((await svcInProcess(['alias', 'list'], { configDir })).stdout).toBe('ask\tfiles list\n');
  });

  withEmu('expands $1, appends the other arguments, keeps global flags before the name', async ({ emu }) => {
    const configDir = await aliasesIn({ mg: 'models get $1 --json', ml: 'models list' });
    const r = await svcInProcess(['mg', 'svc-4', 'id,owned_by'], { configDir, emu });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'svc-4', owned_by: 'svc' });
    const g = await svcInProcess(['--json', 'id', 'ml'], { configDir, emu });
    expect(g.exitCode, g.stderr).toBe(0);
    expect(g.stdout.split('\n')[0]).toBe('{"id":"svc-4"}');
    emu.clearRequests();
    const short = await svcInProcess(['mg'], { configDir, emu });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('alias mg takes 1 argument ($1), got 0');
    expect(emu.requests()).toHaveLength(0);
    // an unknown word is still an unknown command
    const typo = await svcInProcess(['mgg', 'x'], { configDir, emu });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain("unknown command 'mgg'");
  });

  withEmu('a shell alias runs with the arguments as "$@", in-process and in a shell pipeline', async ({ emu }) => {
    const configDir = await aliasesIn({
      first: '!svc models list --json "$@" | head -n 2',
      say: '!echo "[$1]" "$#"',
      key: '!echo "[${SVC_API_KEY:-none}]"',
    });
    // svc hands its key to no child (core/environment.ts): the svc of a shell alias finds it in the profile
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: { api_key: emu.key } } }));
    expect((await svcInProcess(['key'], { configDir, emu })).stdout).toBe('[none]\n');
    const r = await svcInProcess(['first', 'id'], { configDir, emu, env: { PATH } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"id":"svc-4"}\n{"id":"svc-4-mini"}\n');
    const sh = await svcShell('svc say "two words" x | tr a-z A-Z; svc say; echo "exit $?"', { configDir });
    expect(sh.stdout).toBe('[TWO WORDS] 2\n[] 0\nexit 0');
    const fails = await svcInProcess(['say2'], { configDir });
    expect(fails.exitCode).toBe(2);
    const status = await svcShell('svc alias set bad \'!exit 7\' && svc bad; echo "exit $?"', { configDir });
    expect(status.stdout).toBe('exit 7');
  });

  it('a shell alias on a real terminal: the shell line gets the terminal', async () => {
    const configDir = await aliasesIn({ tty: '!if [ -t 0 ] && [ -t 1 ]; then echo "on a terminal: $1"; fi' });
    const r = await svcOnTerminal(['tty', 'yes'], { configDir });
    expect(r.exitCode, r.screen).toBe(0);
    expect(r.screen).toContain('on a terminal: yes');
  });

  it('completion offers the aliases at the root and to alias delete (bash)', async () => {
    const configDir = await aliasesIn({ fid: 'files get $1', fav: 'chat -m svc-4' });
    const complete = async (line: string) => {
      const words = line.split(' ');
      const script =
        `source ${join(ROOT, 'completions/svc.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); ` +
        `COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await execa('bash', ['-c', script], {
        env: { PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir, NO_COLOR: '1' },
        extendEnv: false,
      });
      return r.stdout.split('\n').filter(Boolean).sort();
    };
    expect(await complete('svc fi')).toEqual(['fid', 'files']);
    expect(await complete('svc fa')).toEqual(['fav']);
    expect(await complete('svc alias delete ')).toEqual(['fav', 'fid']);
    expect(await complete('svc models f')).toEqual([]);
    // fish, with its own completion engine
    needTools('fish');
    const fish = await execa(
      'fish',
      ['--no-config', '-c', `source ${join(ROOT, 'completions/svc.fish')}; complete -C 'svc fa'`],
      { env: { PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir }, extendEnv: false },
    );
    expect(fish.stdout).toBe('fav\talias: chat -m svc-4');
  });
});
