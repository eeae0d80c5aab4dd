// `svc __complete KIND WORDS…`: the dynamic values behind TAB. Ids and names from the API, cached on disk; a server
// that never answers costs at most the time limit and gives the cached values; no key gives nothing; never a prompt.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeWav } from 'svc-formats/audio-codecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/endpoints/resources.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcInProcess } from '../helpers/in-process.js';
import { svcProcess } from '../helpers/subprocess.js';
import { tempDir, writeTemp } from '../helpers/files.js';
import { alsaRoom, fakeTools } from '../commands/audio/audio-helpers.js';

let emu: TestEmulator;
let fileId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  const r = await svcInProcess(['files', 'upload', writeTemp('report.txt', 'x'), '--json'], { emu });
  fileId = JSON.parse(r.stdout).id;
});
afterAll(() => emu.close());

const lines = (out: string) => out.split('\n').filter(Boolean);

describe('svc __complete', () => {
  it('file ids with their names; the second TAB is served from the cache', async () => {
    const cache = tempDir();
    // generous limit: this machine may be loaded; the default (1 s) is exercised below
    const env = { SVC_CACHE_DIR: cache, SVC_COMPLETE_TIMEOUT_MS: '30000' };
    const r = await svcInProcess(['__complete', 'files', 'files', 'get'], { emu, env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toContain(`${fileId}\treport.txt`);
    emu.clearRequests();
    const again = await svcInProcess(['__complete', 'files'], { emu, env });
    expect(again.stdout).toBe(r.stdout);
    expect(emu.requests()).toHaveLength(0);
  });

  it('a server that never answers: the stale cache is printed within the default limit, exit 0', async () => {
    const cache = tempDir();
    await svcInProcess(['__complete', 'files'], {
      emu,
      env: { SVC_CACHE_DIR: cache, SVC_COMPLETE_TIMEOUT_MS: '30000' },
    });
    const dir = join(cache, 'completion');
    const [name] = readdirSync(dir);
    const file = join(dir, name!);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), at: 0 }));
    emu.faults.add({ kind: 'slow', delayMs: 60_000, times: 5 });
    // the launcher's own path: it prints and exits at the limit, the request still open
    const r = await svcProcess(['__complete', 'files'], { emu, env: { SVC_CACHE_DIR: cache } });
    emu.faults.clear();
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toEqual([`${fileId}\treport.txt`]);
  });

  it('--emulator on the line: ids and models of the emulator --emulator starts, no key', async () => {
    const data = tempDir();
    // no emu: `--emulator` starts its own in-process emulator on SVC_DATA_DIR/emulator; no key anywhere
    const env = {
      SVC_DATA_DIR: data,
      SVC_CACHE_DIR: tempDir(),
      SVC_BASE_URL: undefined,
      SVC_COMPLETE_TIMEOUT_MS: '20000',
    };
    const up = await svcProcess(['--emulator', 'files', 'upload', writeTemp('tides.txt', 'x'), '--json'], {
      key: null,
      env,
    });
    expect(up.exitCode, up.stderr).toBe(0);
    const id = JSON.parse(up.stdout).id as string;
    // the launcher's path, within its limit (the default with --emulator)
    const files = await svcProcess(['__complete', 'files', '--emulator', 'files', 'get'], { key: null, env });
    expect([files.exitCode, files.stderr]).toEqual([0, '']);
    expect(lines(files.stdout)).toEqual([`${id}\ttides.txt`]);
    const models = await svcInProcess(['__complete', 'models:language', '--emulator', 'chat', '-m'], {
      key: null,
      env,
    });
    expect(lines(models.stdout)).toContain('svc-4-mini\tlanguage');
    // without --emulator there is no key: nothing
    const none = await svcInProcess(['__complete', 'files', 'files', 'get'], { key: null, env });
    expect(none.stdout).toBe('');
    // not cached: an id made since shows at the next TAB
    await svcInProcess(['--emulator', 'files', 'upload', writeTemp('moon.txt', 'y')], { key: null, env });
    const again = await svcInProcess(['__complete', 'files', '--emulator'], { key: null, env });
    expect(lines(again.stdout)).toHaveLength(2);
    expect(again.stdout).toContain('moon.txt');
  });

  it('no API key: nothing, no request, no prompt; voices still lists the built-in ones', async () => {
    emu.clearRequests();
    const r = await svcInProcess(['__complete', 'files'], { emu, key: null, env: { SVC_CACHE_DIR: tempDir() } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    const v = await svcInProcess(['__complete', 'voices'], { emu, key: null, env: { SVC_CACHE_DIR: tempDir() } });
    expect(lines(v.stdout).map((l) => l.split('\t')[0])).toEqual(['eve', 'ara', 'rex', 'sal', 'leo']);
    expect(emu.requests()).toHaveLength(0);
  });

  it('models of the kind the command takes, aliases included; profiles from the config file', async () => {
    const env = { SVC_CACHE_DIR: tempDir(), SVC_COMPLETE_TIMEOUT_MS: '30000' };
    const m = await svcInProcess(['__complete', 'models:image'], { emu, env });
    expect(lines(m.stdout).map((l) => l.split('\t')[0])).toContain('svc-image-1');
    expect(m.stdout).not.toContain('svc-4\t');
    const configDir = tempDir();
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ current_profile: 'b', profiles: { a: {}, b: { base_url: 'http://x' } } }),
    );
    const p = await svcInProcess(['__complete', 'profiles'], { emu, configDir });
    expect(lines(p.stdout)).toEqual(['a\tdefault API', 'b\tcurrent · http://x']);
  });

  it('--profile and --base-url typed on the line choose the endpoint', async () => {
    const r = await svcInProcess(['__complete', 'files', '--base-url', 'http://127.0.0.1:9', 'files', 'get'], {
      emu,
      env: { SVC_CACHE_DIR: tempDir(), SVC_COMPLETE_TIMEOUT_MS: '30000' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
  });

  it("every kind a descriptor fetches from the API offers that resource's ids (a row per kind)", async () => {
    // the id field of what a create command prints (`{"agent": {…}}` or the object itself)
    const made = async (args: string[], field: string, wrapper?: string) => {
      const r = await svcInProcess([...args, '--json'], { emu });
      expect(r.exitCode, r.stderr).toBe(0);
      const body = JSON.parse(r.stdout) as Record<string, Record<string, string>>;
      return (wrapper ? body[wrapper]![field] : body[field]) as string;
    };
    const skill = tempDir();
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: tidy\ndescription: tidies up\n---\n');
    const clip = writeTemp('clip.wav', encodeWav(Buffer.alloc(8000 * 2), { sampleRate: 8000, channels: 1 }));
    const voice = await made(['custom-voices', 'create', clip], 'voice_id');
    const expected: Record<string, string> = {
      files: fileId,
      agents: await made(['agents', 'create', '--name', 'helper'], 'agent_id', 'agent'),
      numbers: await made(
        ['phone', 'buy', '--area-code', '415', '--name', 'desk', '--yes'],
        'phone_number_id',
        'phone_number',
      ),
      'custom-voices': voice,
      voices: voice,
      skills: await made(['skills', 'upload', skill], 'id'),
      models: 'svc-4',
      'models:language': 'svc-4',
      'models:embedding': 'svc-embed-1',
      'models:image': 'svc-image-1',
      'models:video': 'svc-video-1',
    };
    const apiKinds = RESOURCES.flatMap((r) => (r.completion && 'entries' in r.completion ? [r.completion.kind] : []));
    expect(Object.keys(expected).sort()).toEqual(apiKinds.sort());
    const env = { SVC_CACHE_DIR: tempDir(), SVC_COMPLETE_TIMEOUT_MS: '30000' };
    for (const [kind, id] of Object.entries(expected)) {
      const r = await svcInProcess(['__complete', kind], { emu, env });
      expect(
        lines(r.stdout).map((l) => l.split('\t')[0]),
        kind,
      ).toContain(id);
    }
  });

  it('sound devices for --input-device / --output-device: the names of `svc audio devices`, in its order', async () => {
    // an ALSA configuration with named devices, and PulseAudio names through a fake pactl (the audio tests' own)
    const room = alsaRoom();
    const clip = writeTemp('clip.wav', encodeWav(Buffer.alloc(800), { sampleRate: 8000, channels: 1 }));
    const tools = fakeTools(clip, { pulse: true });
    const env = {
      ALSA_CONFIG_PATH: room.conf,
      PATH: `${tools.bin}:${process.env.PATH}`,
      SVC_COMPLETE_TIMEOUT_MS: '30000',
    };
    const alsa = [
      'default\tdefault · Built-in audio',
      'studio\tStudio monitors',
      'headset\tUSB headset',
      'lineIn\tLine input',
    ];
    emu.clearRequests();
    const input = await svcInProcess(['__complete', 'devices:input', 'realtime', 'talk'], { emu, env });
    expect(input.exitCode).toBe(0);
    expect(input.stderr).toBe('');
    expect(lines(input.stdout)).toEqual([
      ...alsa,
      'alsa_input.usb-mic\tPulseAudio default, s16le 1ch 48000Hz, running',
      'alsa_output.speakers.monitor\tPulseAudio, s16le 2ch 48000Hz, idle',
    ]);
    const output = await svcInProcess(['__complete', 'devices:output', 'tts', 'say'], { emu, env });
    expect(lines(output.stdout)).toEqual([
      ...alsa,
      'alsa_output.speakers\tPulseAudio default, s16le 2ch 48000Hz, idle',
      'bluez_output.headphones\tPulseAudio, s16le 2ch 48000Hz, suspended',
    ]);
    // the very names a voice command takes: those of `svc audio devices`, in its order
    for (const [kind, r] of [
      ['input', input],
      ['output', output],
    ] as const) {
      const listed = await svcInProcess(['audio', 'devices', `--${kind}`, '--json'], { env });
      const names = lines(listed.stdout).map((l) => (JSON.parse(l) as { name: string }).name);
      expect(lines(r.stdout).map((l) => l.split('\t')[0])).toEqual(names);
    }
    expect(emu.requests()).toEqual([]);
  });
});
