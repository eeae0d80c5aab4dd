// The lists of allowed values the client checks before sending are in the API document (packages/emulator/spec/
// openapi.json) as enums on the fields they are for, equal to the client's (issue 38: one source of API facts).
import { describe, expect, it } from 'vitest';
import { INCLUDES } from '../../src/commands/responses/create.js';
import { IMAGE_ASPECT_RATIOS } from '../../src/endpoints/images.js';
import { AUDIO_FORMATS, wireFormat } from '../../src/endpoints/realtime.js';
import { TTS_LANGUAGES } from '../../src/endpoints/tts.js';
import { VIDEO_ASPECT_RATIOS } from '../../src/endpoints/videos.js';
import { readApiDocument } from '../helpers/api-document.js';
import { loadCommandSpecs } from '../helpers/command-tree.js';

type Json = Record<string, any>;
const doc = readApiDocument();
const resolve = (n: Json): Json =>
  typeof n?.$ref === 'string'
    ? resolve(
        n.$ref
          .slice(2)
          .split('/')
          .reduce((o: Json, k: string) => o[k], doc),
      )
    : n;
const requestBody = (path: string) =>
  resolve(doc.paths[path].post.requestBody.content['application/json'].schema).properties as Json;
/** the enum of a schema, or of the one arm of its anyOf that has one */
const enumOf = (s: Json): unknown[] => resolve(s).enum ?? resolve(s).anyOf?.find((a: Json) => a.enum)?.enum;

describe('the API document lists the values the client allows', () => {
  it('TTS languages: the supported list, beside any well-formed BCP-47 tag', () => {
    for (const at of [
      doc.paths['/v1/tts'].post.requestBody.content['application/json'].schema.properties.language,
      doc.paths['/v1/tts'].get.parameters.find((p: Json) => p.name === 'language').schema,
    ])
      expect(enumOf(at)).toEqual([...TTS_LANGUAGES]);
    const other = resolve(doc.components.schemas.SpeechLanguage).anyOf.find((a: Json) => a.pattern);
    const tag = new RegExp(other.pattern);
    for (const ok of ['nl', 'NL-be', 'zh-Hant-TW', 'x-private']) expect(tag.test(ok), ok).toBe(true);
    for (const bad of ['', 'english!', 'e', 'en--us']) expect(tag.test(bad), bad).toBe(false);
  });

  it('image and video aspect ratios, on every operation that takes one', () => {
    for (const path of ['/v1/images/generations', '/v1/images/edits'])
      expect(enumOf(requestBody(path).aspect_ratio), path).toEqual([...IMAGE_ASPECT_RATIOS]);
    for (const path of ['/v1/videos/generations', '/v1/videos/edits', '/v1/videos/extensions'])
      expect(enumOf(requestBody(path).aspect_ratio), path).toEqual([...VIDEO_ASPECT_RATIOS]);
  });

  it("responses: include's values and truncation's modes", async () => {
    const props = requestBody('/v1/responses');
    expect(enumOf(props.include.items)).toEqual([...INCLUDES]);
    const truncation = (await loadCommandSpecs())
      .get('responses create')!
      .options!.find((o) => o.flags.startsWith('--truncation'))!;
    expect(enumOf(props.truncation).filter((v) => v !== null)).toEqual(truncation.choices);
  });

  it("realtime: the audio formats of session.update's input and output", () => {
    const event = resolve(doc.components.schemas.RealtimeClientEvent);
    const audio = event.allOf[0].then.properties.session.properties.audio.properties;
    const types = AUDIO_FORMATS.map((f) => wireFormat(f).format.type);
    for (const side of ['input', 'output'])
      expect(enumOf(resolve(audio[side].properties.format).properties.type)).toEqual(types);
  });
});
