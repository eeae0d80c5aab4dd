// What an MCP tool's result becomes for the model (src/mcp/client.ts lentResult).
import { describe, expect, it } from 'vitest';
import { lentResult } from '../../src/mcp/client.js';

describe('lentResult', () => {
  it('text and text resources as text; images and image resources as images; links and audio named', () => {
    const r = lentResult(
      [
        { type: 'text', text: 'one' },
        { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'two' } },
        { type: 'resource', resource: { uri: 'file:///b.png', blob: 'BBBB', mimeType: 'image/png' } },
        { type: 'resource_link', uri: 'file:///c.pdf', mimeType: 'application/pdf' },
        { type: 'audio', data: 'CCCC', mimeType: 'audio/wav' },
      ],
      false,
    );
    expect(r.text).toBe(
      'one\ntwo\n(resource file:///c.pdf, application/pdf)\n(audio content audio/wav, not passed on)',
    );
    expect(r.images).toEqual([
      { mimeType: 'image/jpeg', data: 'AAAA' },
      { mimeType: 'image/png', data: 'BBBB' },
    ]);
    expect(lentResult([{ type: 'text', text: 'bad' }], true).isError).toBe(true);
  });
});
