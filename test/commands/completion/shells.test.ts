// TAB in real shells: bash, zsh and fish run in tmux with the generated scripts sourced, a `svc` on PATH talking to
// the emulator. What TAB offers is read off the screen: flags after aliases, descriptions (zsh, fish), enum values
// (`--order=`), and dynamic values from `svc __complete` (profiles, models, file and agent ids, sound devices from an
// ALSA configuration with named devices).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir, writeTemp } from '../../helpers/files.js';
import { TmuxTerminal } from '../../helpers/terminal.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { svcInProcess } from '../../helpers/in-process.js';
import { needTools } from '../../helpers/tools.js';
import { alsaRoom } from '../audio/audio-helpers.js';

let emu: TestEmulator;
const fileIds: string[] = [];
let agentId = '';
let home: string;
let configDir: string;
/** default, studio, headset, lineIn (test/commands/audio/audio-helpers.ts) */
const room = alsaRoom();
/**
 * `arecord -L` / `aplay -L` list those, then a name with arguments as ALSA lists a real card's (no card here), whose
 * ":" and "=" bash splits words at
 */
function listingTools(): string {
  const bin = tempDir('svc-alsa-bin-');
  for (const tool of ['arecord', 'aplay']) {
    writeFileSync(
      join(bin, tool),
      `#!/bin/sh\n/usr/bin/${tool} "$@"\n[ "$1" = "-L" ] && printf 'plughw:CARD=USB,DEV=0\\n    USB Audio\\n'\n`,
    );
    chmodSync(join(bin, tool), 0o755);
  }
  return bin;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  home = tempDir();
  configDir = join(home, 'config');
  mkdirSync(configDir);
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ current_profile: 'work', profiles: { work: {}, staging: { base_url: 'http://127.0.0.1:9' } } }),
  );
  for (const name of ['alpha-report.txt', 'beta-notes.txt']) {
    const r = await svcInProcess(['files', 'upload', writeTemp(name, 'x'), '--json'], { emu });
    fileIds.push(JSON.parse(r.stdout).id);
  }
  const a = await svcInProcess(['agents', 'create', '--name', 'front desk', '--json', '--jq', '.agent'], { emu });
  agentId = JSON.parse(a.stdout).agent_id;
});
afterAll(async () => {
  for (const t of Object.values(terminals)) t.stop();
  await emu.close();
});

const terminals: Record<string, TmuxTerminal> = {};

/**
 * Each shell sources its completion script at start-up (an rc file, or fish's init command), not from typed
 * input: keys sent before a loaded machine's shell reads its terminal could be lost, leaving it without completion.
 */
const SHELLS = {
  // one TAB lists every candidate (the default would insert a common prefix first and list on the second TAB)
  bash: {
    start: (rc: string) => `bash --noprofile --rcfile ${rc}`,
    rc: `bind 'set show-all-if-ambiguous on'\nsource ${join(ROOT, 'completions/svc.bash')}\n`,
    tab: ['Tab'],
  },
  zsh: {
    start: () => 'zsh --no-globalrcs',
    rc: `setopt no_list_ambiguous\nautoload -U compinit && compinit -u\nsource ${join(ROOT, 'completions/_svc')}\n`,
    tab: ['Tab'],
  },
  fish: {
    start: (rc: string) => `fish --no-config -C 'source ${rc}'`,
    rc: `source ${join(ROOT, 'completions/svc.fish')}\nfunction fish_prompt; echo '$ '; end\n`,
    tab: ['Tab'],
  },
} as const;

/**
 * An empty screen with only the prompt. Ctrl-C makes the terminal flush input it has not read yet, so keys sent
 * right after it can lose their first letters on a loaded machine ("lear: command not found"): clear again until
 * the screen holds the prompt alone. A Ctrl-C can be lost too (a CI run's zsh showed no new prompt for 30 s after
 * one, sent as its completion had just written an id in full): sent again after 5 s.
 */
async function freshPrompt(t: TmuxTerminal): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    t.keys('C-c');
    try {
      await t.waitFor(/^\$ ?$/m, 0, 50);
    } catch (err) {
      if (attempt >= 5) throw err;
      continue;
    }
    t.keys('clear', 'Enter');
    try {
      await t.waitFor(/^\s*\$ ?\s*$/, 0, 50);
      return;
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}

/** Type `line` into a fresh prompt, press TAB and return the screen once `expected` shows. */
async function offered(shell: keyof typeof SHELLS, line: string, expected: string | RegExp): Promise<string> {
  const t = terminals[shell]!;
  await freshPrompt(t);
  t.keys(line);
  t.keys(...SHELLS[shell].tab);
  return t.waitFor(expected, 0, 400);
}

for (const shell of Object.keys(SHELLS) as (keyof typeof SHELLS)[]) {
  describe(`${shell}: TAB`, () => {
    beforeAll(async () => {
      needTools('tmux', shell);
      const t = (terminals[shell] = new TmuxTerminal());
      // a generous time limit for __complete: this machine may be loaded (the 1 s default is tested in test/completion)
      // zsh reads its rc file from ZDOTDIR; bash and fish are given theirs
      const dotDir = join(home, `rc-${shell}`);
      mkdirSync(dotDir);
      const rc = join(dotDir, shell === 'zsh' ? '.zshrc' : 'rc');
      writeFileSync(rc, shell === 'fish' ? SHELLS[shell].rc : `PS1='$ '\n${SHELLS[shell].rc}`);
      const env = {
        HOME: home,
        ZDOTDIR: dotDir,
        SVC_CACHE_DIR: join(home, `cache-${shell}`),
        SVC_COMPLETE_TIMEOUT_MS: '30000',
        ALSA_CONFIG_PATH: room.conf,
        PATH: `${listingTools()}:${process.env.PATH}`,
        PS1: '$ ',
      };
      t.startShell(SHELLS[shell].start(rc), { emu, configDir, env, cols: 200, rows: 50 });
      await t.waitFor(/^\$ ?$/m);
      await freshPrompt(t);
    });

    it('offers the flags of a command after its alias (files ls, files rm)', async () => {
      let screen = await offered(shell, 'svc files ls --so', /--sort-by/);
      expect(screen).toContain('--sort-by');
      screen = await offered(shell, 'svc files ls --', /--page-token/);
      expect(screen).toMatch(/--order/);
      expect(screen).toMatch(/--no-color/);
      screen = await offered(shell, 'svc files rm --', /--help/);
      expect(screen).toMatch(/--json/);
    });

    if (shell !== 'bash') {
      it('shows descriptions of commands and flags', async () => {
        let screen = await offered(shell, 'svc files ls --', /files per page/);
        expect(screen).toMatch(/--sort-by.*(created_at|sort)/);
        screen = await offered(shell, 'svc c', /Print a shell completion script/);
        expect(screen).toContain('conversations');
        expect(screen).toContain('custom-voices');
      });
    }

    it('completes enum values after --order and --order=', async () => {
      let screen = await offered(shell, 'svc files ls --order ', /desc/);
      expect(screen).toContain('asc');
      screen = await offered(shell, 'svc files list --order=', /desc/);
      expect(screen).toMatch(/asc/);
    });

    it('completes file and agent ids from the API, with names as descriptions', async () => {
      let screen = await offered(shell, 'svc files rm ', new RegExp(fileIds[1]!));
      expect(screen).toContain(fileIds[0]);
      if (shell !== 'bash') expect(screen).toContain('alpha-report.txt');
      // the only agent: TAB writes its id in full
      screen = await offered(shell, 'svc agents get ', agentId);
      expect(screen).toContain(`svc agents get ${agentId}`);
    });

    it('completes profiles and model ids', async () => {
      let screen = await offered(shell, 'svc --profile ', /staging/);
      expect(screen).toContain('work');
      screen = await offered(shell, 'svc chat -m svc-4', /svc-4-mini/);
      expect(screen).toContain('svc-4-reasoning');
    });

    it('completes sound device names after --input-device and --output-device', async () => {
      let screen = await offered(shell, 'svc realtime talk --input-device ', /lineIn/);
      expect(screen).toContain('studio');
      expect(screen).toContain('headset');
      if (shell !== 'bash') expect(screen).toContain('USB headset');
      // the only name starting so: TAB writes it in full
      screen = await offered(shell, 'svc tts say hi --output-device hea', /--output-device headset/);
      expect(screen).toContain('svc tts say hi --output-device headset');
      // a name with ":" and "=", typed past them (bash has split the word there)
      screen = await offered(shell, 'svc realtime talk --output-device plughw:CARD=U', /DEV=0/);
      expect(screen).toContain('svc realtime talk --output-device plughw:CARD=USB,DEV=0');
      screen = await offered(shell, 'svc realtime talk --input-device=plughw:', /DEV=0/);
      expect(screen).toContain('svc realtime talk --input-device=plughw:CARD=USB,DEV=0');
    });
  });
}
