// The level of PCM s16le audio, for meters: RMS and peak in dBFS (0 = full scale), floored at LEVEL_FLOOR.

export const LEVEL_FLOOR = -90;

export interface Level {
  rms: number;
  peak: number;
}

export function pcmLevel(pcm: Buffer): Level {
  const n = Math.floor(pcm.length / 2);
  let sum = 0;
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const v = pcm.readInt16LE(i * 2);
    sum += v * v;
    const a = Math.abs(v);
    if (a > peak) peak = a;
  }
  const db = (x: number) => (x > 0 ? Math.max(LEVEL_FLOOR, 20 * Math.log10(x / 32768)) : LEVEL_FLOOR);
  return { rms: round1(db(n ? Math.sqrt(sum / n) : 0)), peak: round1(db(peak)) };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/** A bar of `width` cells for a level from -60 dBFS (empty) to 0 (full). */
export function levelBar(db: number, width: number): string {
  const filled = Math.max(0, Math.min(width, Math.round(((db + 60) / 60) * width)));
  return '█'.repeat(filled) + '·'.repeat(width - filled);
}
