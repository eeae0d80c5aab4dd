// The emulator's longest event-loop hold during each heavy request (issue 26, item 2: none over ~100 ms, so health,
// other clients and SIGTERM are always answered). The emulator runs as its own process (`svc emulator serve`); the
// figure is its own (GET /_emulator/health's event_loop_max_delay_ms, monitorEventLoopDelay since the last health
// reply). The baseline, measured in the same run, is the hold during a small request (GET /v1/models): what the
// machine's load adds to any request. Goal: each heavy request's hold within 100 ms (plus the spread) of it.
import { EMULATOR_KEY, startEmulatorProcess } from './lib.mjs';

const RUNS = 3;
const words = (n) => Array.from({ length: n }, (_, i) => `word${i % 997} tide moon`).join(' ');

export default async function main() {
  const { textToTones } = await import('../packages/emulator/dist/voice/tones.js');
  const { encodeWav } = await import('../packages/formats/dist/audio-codecs.js');
  const emu = await startEmulatorProcess();
  const base = emu.url;
  const auth = { authorization: `Bearer ${EMULATOR_KEY}` };
  const held = async () => (await (await fetch(new URL('/_emulator/health', base))).json()).event_loop_max_delay_ms;
  const json = (path, body) => () =>
    fetch(new URL(path, base), {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const line = Buffer.concat([textToTones('tide moon', 16000), Buffer.alloc(32_000)]);
  const pcm = Buffer.concat(Array.from({ length: Math.ceil((600 * 32_000) / line.length) }, () => line));
  const audio = encodeWav(pcm, { sampleRate: 16000, channels: 1 });
  const cases = [
    ['GET /v1/models (baseline)', () => fetch(new URL('/v1/models', base), { headers: auth })],
    [
      'embeddings, 128 inputs of 21 k characters',
      json('/v1/embeddings', {
        model: 'svc-embed-1',
        input: Array.from({ length: 128 }, (_, i) => `${i} ${words(1500)}`),
      }),
    ],
    ['tokenize 800 k characters', json('/v1/tokenize-text', { model: 'svc-4', text: words(60_000) })],
    ['images, n=10', json('/v1/images/generations', { model: 'svc-image-1', prompt: 'a kite', n: 10 })],
    [
      'REST speech to text, 10 minutes',
      () => {
        const form = new FormData();
        form.append('file', new Blob([audio]), 'long.wav');
        return fetch(new URL('/v1/stt', base), { method: 'POST', headers: auth, body: form });
      },
    ],
  ];
  const rows = [];
  try {
    let baseline;
    for (const [name, request] of cases) {
      const holds = [];
      for (let i = 0; i < RUNS; i++) {
        await held();
        await (await request()).arrayBuffer();
        holds.push(await held());
      }
      holds.sort((a, b) => a - b);
      const value = holds[Math.floor(holds.length / 2)];
      const spread = holds[holds.length - 1] - holds[0];
      if (baseline === undefined) {
        baseline = value;
        rows.push({ name: `loop hold: ${name}`, value, unit: 'ms' });
      } else
        rows.push({
          name: `loop hold: ${name}, above the baseline`,
          value: value - baseline,
          unit: 'ms',
          goal: 100,
          spread,
        });
    }
  } finally {
    emu.stop();
  }
  return rows;
}
