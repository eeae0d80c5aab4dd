// An ALSA configuration with several named devices (each playback one writes its raw samples to a file through
// ALSA's `file` plugin), a fake `arecord` (first on PATH) that "records" a clip and keeps its argv, and a fake
// `pactl` for PulseAudio names.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/files.js';

export interface AlsaRoom {
  conf: string;
  /** the file each named device plays into */
  played: (device: 'default' | 'studio' | 'headset' | 'pulse') => string;
  /** what $PULSE_SINK was when ALSA's `pulse` device was opened */
  pulseSink: () => string;
}

/** default, studio, headset (playback into files) and lineIn (capture only by description) */
export function alsaRoom(): AlsaRoom {
  const dir = tempDir('svc-alsa-');
  const out = (d: string) => join(dir, `${d}.raw`);
  const file = (d: string, about: string) =>
    `pcm.${d === 'default' ? '!default' : d} {\n  type file\n  slave.pcm "nul"\n  file "|cat >> ${out(d)}"\n` +
    `  format "raw"\n  hint { show on description "${about}" }\n}\n`;
  const conf = join(dir, 'asound.conf');
  // ALSA's `pulse` device stands in for PulseAudio's: it keeps the environment its opener gave it, then the samples
  const pulse = join(dir, 'pulse.sh');
  writeFileSync(pulse, `#!/bin/sh\nprintf '%s' "$PULSE_SINK" > "${dir}/pulse.sink"\nexec cat >> "${out('pulse')}"\n`);
  chmodSync(pulse, 0o755);
  writeFileSync(
    conf,
    'pcm.nul { type null }\n' +
      file('default', 'Built-in audio') +
      file('studio', 'Studio monitors') +
      file('headset', 'USB headset') +
      'pcm.lineIn { type null hint { show on description "Line input" } }\nctl.!default { type hw card 0 }\n' +
      `pcm.pulse {\n  type file\n  slave.pcm "nul"\n  file "|${pulse}"\n  format "raw"\n}\n`,
  );
  return { conf, played: (d) => out(d), pulseSink: () => readFileSync(join(dir, 'pulse.sink'), 'utf8') };
}

export interface FakeTools {
  /** a directory to put first on PATH */
  bin: string;
  /** the argv of the last run of `tool` (one argument per line), and what it had in $PULSE_SOURCE */
  argv: (tool: string) => string[];
  pulseSource: () => string;
}

/**
 * `arecord` that "records" `clip` (a WAV), then stays open like a microphone; `arecord -L` is the real one (it
 * reads the ALSA configuration); with `hold: false` it ends after the clip. `pactl` with `pulse`: two sources and
 * two sinks.
 */
export function fakeTools(clip: string, opts: { pulse?: boolean; hold?: boolean } = {}): FakeTools {
  const bin = tempDir('svc-audio-bin-');
  const keep = (tool: string) => `printf '%s\\n' "$@" > "${bin}/${tool}.argv"\n`;
  writeFileSync(
    join(bin, 'arecord'),
    '#!/bin/sh\nif [ "$1" = "-L" ]; then exec /usr/bin/arecord "$@"; fi\n' +
      keep('arecord') +
      `printf '%s' "$PULSE_SOURCE" > "${bin}/pulse-source"\ncat "${clip}"\n` +
      (opts.hold === false ? '' : 'exec sleep 60\n'),
  );
  chmodSync(join(bin, 'arecord'), 0o755);
  if (opts.pulse) {
    writeFileSync(
      join(bin, 'pactl'),
      '#!/bin/sh\n' +
        keep('pactl') +
        'case "$*" in\n' +
        '  "list short sources") printf "1\\talsa_input.usb-mic\\tPipeWire\\ts16le 1ch 48000Hz\\tRUNNING\\n' +
        '2\\talsa_output.speakers.monitor\\tPipeWire\\ts16le 2ch 48000Hz\\tIDLE\\n";;\n' +
        '  "list short sinks") printf "3\\talsa_output.speakers\\tPipeWire\\ts16le 2ch 48000Hz\\tIDLE\\n' +
        '4\\tbluez_output.headphones\\tPipeWire\\ts16le 2ch 48000Hz\\tSUSPENDED\\n";;\n' +
        '  info) printf "Server Name: PulseAudio (on PipeWire 1.0.5)\\nDefault Sink: alsa_output.speakers\\n' +
        'Default Source: alsa_input.usb-mic\\n";;\n' +
        '  *) exit 1;;\nesac\n',
    );
    chmodSync(join(bin, 'pactl'), 0o755);
  }
  return {
    bin,
    argv: (tool) =>
      readFileSync(join(bin, `${tool}.argv`), 'utf8')
        .split('\n')
        .slice(0, -1),
    pulseSource: () => readFileSync(join(bin, 'pulse-source'), 'utf8'),
  };
}
