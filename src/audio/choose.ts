// --input-device / --output-device: a device by its index in `svc audio devices` or by its name, checked against
// the backend's list before anything is sent (an unknown one is exit 2, listing the ones there are).
import { UsageError } from '../core/errors.js';
import { audioBackend, type AudioBackend, type AudioDevice, type DeviceKind } from './backend.js';

export interface ChooseOptions {
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** the flag, for messages (default --input-device / --output-device) */
  flag?: string;
}

/** The device `spec` names, or undefined for the backend's default (no flag). */
export async function chooseDevice(
  kind: DeviceKind,
  spec: string | undefined,
  opts: ChooseOptions,
): Promise<AudioDevice | undefined> {
  if (spec === undefined) return undefined;
  const backend = audioBackend(opts.platform);
  const flag = opts.flag ?? (kind === 'input' ? '--input-device' : '--output-device');
  if (!spec.trim()) throw new UsageError(`${flag}: give a device name or index (\`svc audio devices\` lists them)`);
  const { devices, notes } = await backend.list(kind, opts.env);
  if (/^\d+$/.test(spec)) {
    const d = devices[Number(spec)];
    if (d) return d;
    throw unknown(flag, kind, spec, devices, notes, `there is no ${kind} device ${spec}`);
  }
  const exact = devices.find((d) => d.name === spec);
  if (exact) return exact;
  const folded = devices.filter((d) => d.name.toLowerCase() === spec.toLowerCase());
  if (folded.length === 1) return folded[0];
  const passed = passThrough(backend, kind, spec, notes);
  if (passed) return passed;
  throw unknown(flag, kind, spec, devices, notes, `no ${kind} device is named "${spec}"`);
}

/**
 * Names the list cannot hold still reach the device, which is then probed: an ALSA name with arguments
 * (`hw:1,0`, `plughw:CARD=USB,DEV=0`: ALSA lists one form of each), the platform's default, or any name when
 * the list itself could not be had.
 */
function passThrough(backend: AudioBackend, kind: DeviceKind, spec: string, notes: string[]): AudioDevice | undefined {
  const alsa = backend.platform === 'linux';
  const listless = notes.length > 0;
  if (!(alsa && spec.includes(':')) && spec !== 'default' && !listless) return undefined;
  const name = alsa ? 'alsa' : backend.platform === 'darwin' ? 'coreaudio' : 'waveaudio';
  return { kind, index: -1, name: spec, description: '', default: spec === 'default', backend: name };
}

function unknown(
  flag: string,
  kind: DeviceKind,
  spec: string,
  devices: AudioDevice[],
  notes: string[],
  what: string,
): UsageError {
  const shown = devices.map((d) => `  ${d.index}  ${d.name}${d.description ? ` (${d.description})` : ''}`);
  const list = shown.length ? `; the ${kind} devices are:\n${shown.join('\n')}` : `; no ${kind} devices were found`;
  const why = notes.length ? `\n(${notes.join('; ')})` : '';
  return new UsageError(
    `${flag}: ${JSON.stringify(spec)} is not allowed: ${what}${list}${why}\nchoose one by index or name ` +
      '(`svc audio devices` lists them)',
  );
}
