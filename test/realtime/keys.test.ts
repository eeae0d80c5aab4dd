// The push-to-talk key reader (attachKeys) with an --approve question waiting (KeyQuestion): y answers yes, another
// key no; space stays the talk key and q the quit key, neither answers. Keys come through a stream as a terminal's do.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { KeyQuestion, PushToTalkKeys, attachKeys } from '../../src/realtime/keys.js';

function reader() {
  const stdin = new PassThrough();
  const target = {
    isTalking: false,
    setTalking(on: boolean) {
      this.isTalking = on;
    },
  };
  const quit = { n: 0 };
  const question = new KeyQuestion();
  const detach = attachKeys(stdin, new PushToTalkKeys(target, () => 0), () => quit.n++, question);
  const type = (keys: string) =>
    new Promise<void>((resolve) => {
      stdin.write(keys);
      setImmediate(resolve);
    });
  return { target, quit, question, type, detach };
}

describe('the talk keys with a question waiting', () => {
  it('y answers yes; space toggles talking meanwhile and does not answer', async () => {
    const r = reader();
    const stop = new AbortController();
    let answer: boolean | undefined;
    void r.question.ask(stop.signal).then((yes) => (answer = yes));
    await r.type(' ');
    expect(r.target.isTalking).toBe(true);
    expect(answer).toBeUndefined();
    await r.type('y');
    expect(answer).toBe(true);
    // no question waits: y is no key of the session
    await r.type('y');
    expect(r.quit.n).toBe(0);
    r.detach();
  });

  it('any other key (n, Enter) answers no; q and Ctrl-C quit and leave the answer to the session end', async () => {
    const r = reader();
    const stop = new AbortController();
    const no = r.question.ask(stop.signal);
    await r.type('\r');
    expect(await no).toBe(false);
    let answer: boolean | undefined;
    const asked = r.question.ask(stop.signal).then((yes) => (answer = yes));
    await r.type('q\u0003');
    expect(r.quit.n).toBe(2);
    expect(answer).toBeUndefined();
    stop.abort();
    await asked;
    expect(answer).toBe(false);
    r.detach();
  });
});
