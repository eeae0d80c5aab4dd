import { basename } from 'node:path';
import { defineCommand } from '../../cmdutil/command.js';
import { OPERATIONS } from 'svc-formats/api-facts';
import { maxLength } from '../../core/validate.js';
import { createCustomVoice } from '../../endpoints/custom-voices.js';
import { inspectClip } from './clip.js';
import { printCustomVoice } from './shared.js';

const { 'body.name': NAME, 'body.file': FILE } = OPERATIONS.createCustomVoice.fields;
const NAME_MAX = NAME.maxLength;
/** the longest reference clip, in seconds (the document's x-max-duration-seconds) */
const CLIP_SECONDS = FILE['x-max-duration-seconds'];

export default defineCommand({
  description:
    'The clip is checked before it is uploaded: readable audio (WAV, MP3, FLAC, OGG, Opus, M4A, AAC, MKV, MP4) of at ' +
    `most ${CLIP_SECONDS} seconds. WAV, MP3 and FLAC are measured from their headers; other containers with ffprobe ` +
    'when it is installed. The returned voice_id works as --voice in `svc tts say` and `svc agents create`.',
  args: [{ name: 'clip', description: 'reference audio file', required: true }],
  options: [{ flags: '--name <name>', description: 'a name for the voice', parse: maxLength(NAME_MAX) }],
  examples: ['svc custom-voices create me.wav --name "my voice"', 'svc custom-voices create sample.mp3 --json'],
  async run(ctx, [clip], opts) {
    const info = await inspectClip(clip, CLIP_SECONDS, ctx.env);
    if (info.duration === undefined)
      ctx.out.info(
        `note: could not measure ${basename(clip)} (no ffprobe); trusting its extension (.${info.format}); ` +
          `the server checks the ${CLIP_SECONDS} s limit`,
      );
    const spinner = await ctx.out.spinner(`uploading ${basename(clip)}`);
    let voice;
    try {
      voice = await createCustomVoice(
        await ctx.http(),
        { path: clip, filename: basename(clip), contentType: info.contentType },
        opts.name,
      );
    } finally {
      spinner.stop();
    }
    if (ctx.out.json) ctx.out.printJson(voice);
    else printCustomVoice(ctx.out, voice);
    return 0;
  },
});
