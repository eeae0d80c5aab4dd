// A fake `arecord` for the full-duplex echo tests: a room with a loudspeaker and a person. It hears what svc
// plays: the speaker's samples reach ALSA's file plugin, which appends them to `played`; this program plays them
// on its own clock as a sound card would (a chunk follows the one before while that still plays; given to a device
// that ran dry, it starts once the device's buffer has filled), sends them through a room response (a direct path
// `delayMs` later at `gainDb`, early reflections, a decaying tail), adds room noise and the person's questions, and
// writes the result on stdout as s16le at `rate`, at real time (every 20 ms what the clock says is due). The person
// asks question i, waits for the answer to be played, and asks the next one once the speaker has been quiet for
// `pauseMs` and svc has shown the answer whole (the test writes the count it printed to `answered`; a loaded run's
// answer can fall quiet for longer, and a question then is a true barge-in). With `driftPpm` the speaker's clock runs
// that much faster than the microphone's (two devices): it plays n·(1 + drift) samples while n are recorded, read
// between samples (cubic interpolation).
// ALSA's file plugin writes a sample out only once the application has written its whole buffer past it (the speaker
// package asks for 0.5 s): the room hears the playback ~0.5 s late, and an answer's last 0.5 s when the next one
// starts. That echo path (~0.6 s) is longer than the canceller's filter and its delay search: these tests show the
// start-up hold keeping the agent from hearing itself; bench/echo.mjs measures the canceller.
// Usage: arecord (any arguments) with ECHO_ROOM=config.json in its environment.
import { closeSync, openSync, readFileSync, readSync, writeFileSync, appendFileSync } from 'node:fs';

const cfg = JSON.parse(readFileSync(process.env.ECHO_ROOM, 'utf8'));
const rate = cfg.rate;
writeFileSync(cfg.args, `${process.argv.slice(2).join(' ')}\n`);
const questions = cfg.questions.map((f) => {
  const b = readFileSync(f);
  return new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
});
const log = (ev) => appendFileSync(cfg.log, `${JSON.stringify({ ...ev, at: +(k / rate).toFixed(3) })}\n`);

// the room: sparse taps (sample delay, gain)
let seed = 12345;
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const g = 10 ** (cfg.gainDb / 20);
const d = Math.round((cfg.delayMs / 1000) * rate);
const taps = [[d, g]];
for (let i = 0; i < 6; i++) taps.push([d + Math.round((0.002 + rand() * 0.028) * rate), g * (rand() - 0.5) * 0.6]);
for (let i = 0; i < 40; i++) {
  const t = 0.03 + rand() * 0.17;
  taps.push([d + Math.round(t * rate), g * 0.15 * (rand() * 2 - 1) * 10 ** (-3 * (t / 0.3))]);
}
const noiseAmp = 10 ** (cfg.noiseDb / 20) * Math.sqrt(3) * 32768;

// the speaker's clock: played sample p sounds at recorded sample p / r
const r = 1 + (cfg.driftPpm ?? 0) / 1e6;
// the speaker's samples on its clock (a ring of about 21 s; indices are absolute sample numbers)
const RING = 1 << 19;
const ring = new Float32Array(RING);
let playEnd = 0;
let readOffset = 0;
let fd;
let carry = Buffer.alloc(0);
// the device's buffer (played samples): a chunk given to a device that ran dry sounds this much later
const buffer = Math.round(((cfg.bufferMs ?? 40) / 1000) * rate);

/** what svc's speaker wrote since the last look, scheduled from `now` */
function takePlayed(now) {
  if (fd === undefined) {
    try {
      fd = openSync(cfg.played, 'r');
    } catch {
      return;
    }
  }
  const buf = Buffer.alloc(1 << 16);
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, readOffset);
    if (n <= 0) break;
    readOffset += n;
    const all = Buffer.concat([carry, buf.subarray(0, n)]);
    const whole = all.length - (all.length % 2);
    carry = Buffer.from(all.subarray(whole));
    const s = new Int16Array(all.buffer.slice(all.byteOffset, all.byteOffset + whole));
    // still playing: this chunk follows it (the device's queue); run dry: it sounds once the device's buffer filled
    const start = playEnd >= now ? playEnd : now + buffer;
    for (let i = playEnd; i < start; i++) ring[i % RING] = 0;
    for (let i = 0; i < s.length; i++) ring[(start + i) % RING] = s[i];
    if (start > playEnd) log({ ev: 'play', from: +(start / rate).toFixed(3) });
    playEnd = start + s.length;
  }
}

let k = 0; // samples written so far
let q = 0; // the next question
let speaking; // { pcm, at } while a question is being said
let askedEnd = -1; // where the last question ended
const nextAt = Math.round(((cfg.firstMs ?? 800) / 1000) * rate);
const pause = Math.round((cfg.pauseMs / 1000) * rate);
const t0 = performance.now();

/** the speaker's output at (fractional) played sample p: Catmull-Rom between its samples */
const sampleAt = (j) => (j >= 0 && j < playEnd ? ring[j % RING] : 0);
function playedAt(p) {
  const i = Math.floor(p);
  const f = p - i;
  const a = sampleAt(i - 1);
  const b = sampleAt(i);
  const c = sampleAt(i + 1);
  const d = sampleAt(i + 2);
  return b + 0.5 * f * (c - a + f * (2 * a - 5 * b + 4 * c - d + f * (3 * (b - c) + d - a)));
}

/** answers svc printed so far (no `answered` file in the config: the quiet alone ends an answer) */
function answeredSoFar() {
  if (!cfg.answered) return Number.POSITIVE_INFINITY;
  try {
    return Number(readFileSync(cfg.answered, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

function tick() {
  const shown = answeredSoFar();
  const due = Math.floor(((performance.now() - t0) / 1000) * rate);
  // a chunk read now starts no earlier than now: from the last sample put out, after a stall of this process (load),
  // its echo came before svc had written it (~80 ms in a loaded run), which no device does
  takePlayed(Math.floor(Math.max(k, due) * r));
  if (due <= k) return;
  const out = new Int16Array(due - k);
  for (let j = 0; j < out.length; j++, k++) {
    if (!speaking && q < questions.length) {
      const answered = playEnd / r > askedEnd && k >= playEnd / r + pause && askedEnd >= 0 && shown >= q;
      const gaveUp = askedEnd >= 0 && k >= askedEnd + Math.round((cfg.answerTimeoutMs / 1000) * rate);
      if ((askedEnd < 0 && k >= nextAt) || answered || gaveUp) {
        speaking = { pcm: questions[q], at: k };
        log({ ev: 'ask', q });
        q++;
      }
    }
    let v = (rand() * 2 - 1) * noiseAmp;
    if (r === 1) for (const [t, a] of taps) v += k - t >= 0 && k - t < playEnd ? a * ring[(k - t) % RING] : 0;
    else for (const [t, a] of taps) v += k - t >= 0 ? a * playedAt((k - t) * r) : 0;
    if (speaking) {
      v += speaking.pcm[k - speaking.at];
      if (k - speaking.at + 1 >= speaking.pcm.length) {
        speaking = undefined;
        askedEnd = k + 1;
      }
    }
    out[j] = Math.max(-32768, Math.min(32767, Math.round(v)));
  }
  if (!process.stdout.write(Buffer.from(out.buffer))) process.stdout.once('drain', () => undefined);
}

process.stdout.on('error', () => process.exit(0));
process.on('SIGTERM', () => {
  if (fd !== undefined) closeSync(fd);
  process.exit(0);
});
setInterval(tick, 20);
