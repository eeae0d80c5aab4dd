// Subtitles (SubRip and WebVTT) from word timings: `stt transcribe --srt/--vtt` prints them for a whole file,
// `stt listen --srt/--vtt` writes each cue as its final segment arrives.

export type SubtitleKind = 'srt' | 'vtt';

export interface TimedWord {
  text: string;
  start: number;
  end: number;
  speaker?: number;
}

export interface Cue {
  start: number;
  end: number;
  text: string;
}

/** Seconds as a cue time: 00:01:02,345 (SubRip) or 00:01:02.345 (WebVTT). */
export function stamp(sec: number, kind: SubtitleKind): string {
  const ms = Math.max(0, Math.round(sec * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${kind === 'srt' ? ',' : '.'}${pad(ms % 1000, 3)}`;
}

/**
 * Words grouped into cues: at most 7 words or 3.5 s, a new cue after sentence punctuation, a speaker change or a
 * pause of 1 s.
 */
export function cues(words: TimedWord[]): Cue[] {
  const out: { start: number; end: number; text: string; n: number; speaker?: number }[] = [];
  for (const w of words) {
    const cur = out[out.length - 1];
    const prevText = cur?.text ?? '';
    const breakHere =
      !cur ||
      cur.n >= 7 ||
      w.end - cur.start > 3.5 ||
      /[.?!]$/.test(prevText) ||
      w.start - cur.end > 1 ||
      cur.speaker !== w.speaker;
    if (breakHere) out.push({ start: w.start, end: w.end, text: w.text, n: 1, speaker: w.speaker });
    else {
      cur.text += ` ${w.text}`;
      cur.end = w.end;
      cur.n++;
    }
  }
  return out.map((c) => ({
    start: c.start,
    end: c.end,
    text: c.speaker !== undefined ? `[speaker ${c.speaker}] ${c.text}` : c.text,
  }));
}

/** What a subtitle file starts with (WebVTT's signature; nothing for SubRip). */
export function subtitleHeader(kind: SubtitleKind): string {
  return kind === 'vtt' ? 'WEBVTT\n\n' : '';
}

/** One cue, numbered from 1, with the blank line that ends it. */
export function formatCue(kind: SubtitleKind, n: number, cue: Cue): string {
  const number = kind === 'srt' ? `${n}\n` : '';
  // a blank line would end the cue early: the text is kept on one line
  const text = cue.text.replace(/\s*\n\s*/g, ' ');
  return `${number}${stamp(cue.start, kind)} --> ${stamp(cue.end, kind)}\n${text}\n\n`;
}
