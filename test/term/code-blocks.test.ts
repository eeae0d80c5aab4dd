// -x/--extract as the answer streams: nothing until the first block's closing fence, then the block; the last block
// only at the end; an answer without a block whole; a block never closed ends with the answer.
import { describe, expect, it } from 'vitest';
import { CodeBlockExtractor } from '../../src/term/code-blocks.js';

const ANSWER = 'Here:\n\n```python\nprint(1)\n\nprint(2)\n```\n\nand\n\n~~~~sh\nls\n```\nstill sh\n~~~~\nbye\n';

/** Feed the answer one character at a time (the worst case of a stream); what each push printed, and the end. */
function streamed(which: 'first' | 'last', text: string): { pushes: string[]; end: string } {
  const x = new CodeBlockExtractor(which);
  const pushes = [...text].map((c) => x.push(c));
  return { pushes, end: x.end() };
}

describe('CodeBlockExtractor', () => {
  it('first: nothing until the closing fence arrives, then the block once; nothing after', () => {
    const { pushes, end } = streamed('first', ANSWER);
    const closeAt = ANSWER.indexOf('```\n\nand') + 3; // the newline after the closing fence
    expect(pushes.slice(0, closeAt).join('')).toBe('');
    expect(pushes[closeAt]).toBe('print(1)\n\nprint(2)\n');
    expect(pushes.slice(closeAt + 1).join('') + end).toBe('');
  });

  it('last: only at the end; a shorter fence of another kind inside a block is its text', () => {
    const { pushes, end } = streamed('last', ANSWER);
    expect(pushes.join('')).toBe('');
    expect(end).toBe('ls\n```\nstill sh\n');
  });

  it('an answer without a fenced block is given whole at the end; a block left open ends with the answer', () => {
    expect(streamed('first', 'no code here').end).toBe('no code here\n');
    expect(streamed('last', 'plain\n').end).toBe('plain\n');
    expect(streamed('first', 'x\n```js\nlet a = 1;\nlet b').end).toBe('let a = 1;\nlet b\n');
    // a closing fence without a newline after it, at the very end
    expect(streamed('first', '```\nA\n```').end).toBe('A\n');
  });
});
