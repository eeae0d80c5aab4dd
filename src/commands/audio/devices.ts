import { defineCommand } from '../../cmdutil/command.js';
import type { AudioDevice, DeviceKind } from '../../audio/backend.js';

export default defineCommand({
  description:
    'The capture (input) and playback (output) devices of this machine, numbered per kind from 0, the one used ' +
    'without --input-device / --output-device marked with *. Give a voice command the index or the name. Linux: ' +
    'the ALSA devices (arecord -L, aplay -L) and, where pactl is installed, the PulseAudio/PipeWire sources and ' +
    'sinks; macOS: the CoreAudio devices (system_profiler); Windows: default and the audio endpoints (PowerShell). ' +
    'A table on a terminal, tab-separated rows in a pipe (kind, index, *, name, description, backend), --json one ' +
    'object per device.',
  options: [
    { flags: '--input', description: 'only the inputs (microphones)' },
    { flags: '--output', description: 'only the outputs (speakers)' },
  ],
  examples: ['svc audio devices', 'svc audio devices --input --json', 'svc stt listen --input-device 1'],
  async run(ctx, _args, opts) {
    const { audioBackend } = await import('../../audio/backend.js');
    const backend = audioBackend();
    const kinds: DeviceKind[] =
      opts.input && !opts.output ? ['input'] : opts.output && !opts.input ? ['output'] : ['input', 'output'];
    const listings = await Promise.all(kinds.map((k) => backend.list(k, ctx.env)));
    for (const note of new Set(listings.flatMap((l) => l.notes))) ctx.out.warn(note);
    const rows = listings.flatMap((l) => l.devices);
    if (!rows.length) {
      const { AudioDeviceError } = await import('../../audio/devices.js');
      throw new AudioDeviceError(`no sound devices were found (${backend.describe}); ${backend.install}`);
    }
    if (ctx.out.json) {
      for (const d of rows) ctx.out.printJsonLine(d);
      return 0;
    }
    await ctx.out.table<AudioDevice>(rows, [
      { header: 'KIND', get: (d) => d.kind },
      { header: '#', get: (d) => d.index, align: 'right' },
      { header: 'DEFAULT', get: (d) => (d.default ? '*' : '') },
      { header: 'NAME', get: (d) => d.name, keep: true },
      { header: 'DESCRIPTION', get: (d) => d.description },
      { header: 'BACKEND', get: (d) => d.backend },
    ]);
    return 0;
  },
});
