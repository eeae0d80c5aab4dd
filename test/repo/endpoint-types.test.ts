// The endpoints' request and reply types are the generated ones (issue 38 item 4): src/endpoints aliases
// svc-formats/api-types (through endpoints/api-shapes.ts) instead of restating a shape the API document holds.
// A hand-written object type named like a component schema fails here, and so does any new hand-written one: the
// list below is what is left, each svc's own or a shape the document does not give (each says why in its comment).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/files.js';

const DIR = 'src/endpoints';
const files = readdirSync(join(ROOT, DIR))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: `${DIR}/${f}`, text: readFileSync(join(ROOT, DIR, f), 'utf8') }));

/** exported interfaces and object-literal type aliases (the shapes scripts/api-facts-report.mjs counts) */
const handWritten = files.flatMap(({ file, text }) =>
  [...text.matchAll(/^export\s+(?:interface\s+(\w+)|type\s+(\w+)\s*=\s*\{)/gm)].map((m) => `${file} ${m[1] ?? m[2]}`),
);

const doc = JSON.parse(readFileSync(join(ROOT, 'packages/emulator/spec/openapi.json'), 'utf8'));
const schemaNames = new Set(Object.keys(doc.components.schemas));

describe('src/endpoints types come from the API document', () => {
  it('no hand-written shape bears the name of a component schema (alias Schema<Name> instead)', () => {
    expect(handWritten.filter((entry) => schemaNames.has(entry.split(' ')[1]!))).toEqual([]);
  });

  it('the hand-written shapes are only those the document does not give (68 before: 53 replies, 15 requests)', () => {
    expect(handWritten).toEqual([
      'src/endpoints/files.ts UploadInput',
      'src/endpoints/legacy.ts TextCompletionChunk',
      'src/endpoints/messages.ts MessagesEvent',
      'src/endpoints/realtime.ts ConnectOptions',
      'src/endpoints/responses.ts StreamHandlers',
      'src/endpoints/stt.ts SttForm',
      'src/endpoints/stt.ts TranscribeInput',
      'src/endpoints/stt.ts SttStreamQuery',
      'src/endpoints/tts.ts TtsStreamQuery',
    ]);
  });

  it("a schema-named type is the schema's alias, so it follows the document", () => {
    const aliases = files.flatMap(({ file, text }) =>
      [...text.matchAll(/^export\s+type\s+(\w+)\s*=\s*Schema<'(\w+)'>/gm)].map((m) => ({
        file,
        name: m[1]!,
        of: m[2]!,
      })),
    );
    expect(aliases.length).toBeGreaterThan(30);
    for (const { of } of aliases) expect(schemaNames.has(of), of).toBe(true);
  });
});
