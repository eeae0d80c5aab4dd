import type { Output } from '../../term/output.js';
import type { CustomVoice } from '../../endpoints/custom-voices.js';

export function printCustomVoice(out: Output, v: CustomVoice): void {
  const pairs: [string, unknown][] = [['voice_id', v.voice_id]];
  for (const [k, val] of Object.entries(v)) if (k !== 'voice_id') pairs.push([k, val]);
  out.details(pairs);
}
