// Issue 26 item 12: every malformed fault spec is refused, naming what is wrong — by the parser, the admin API
// and the standalone `svc-emulator serve --fault` — and none arms a fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultList } from '../src/state/faults.js';
import { main } from '../src/main.js';
import { startTestEmulator, type TestEmulator } from 'svc-emulator/testing';
import { MALFORMED } from './fault-specs.js';
import { capturingStderr } from './stderr.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('fault specs', () => {
  it('parses the documented forms, with every option', () => {
    expect(FaultList.parse('slow:ms=250')).toEqual({ kind: 'slow', delayMs: 250 });
    expect(FaultList.parse('slow')).toEqual({ kind: 'slow', delayMs: 1000 });
    expect(FaultList.parse('drop:after=3:times=2:method=ws')).toEqual({
      kind: 'drop',
      afterEvents: 3,
      times: 2,
      method: 'WS',
    });
    expect(FaultList.parse('429:retry-after=1:message=busy:path=^/v1/chat')).toEqual({
      kind: 'status',
      status: 429,
      retryAfter: '1',
      message: 'busy',
      path: '^/v1/chat',
    });
  });

  it.each(MALFORMED)('FaultList.parse refuses %j, naming the part', (spec, reason) => {
    expect(() => FaultList.parse(spec)).toThrow(reason);
  });

  it('the admin API refuses a malformed fault object (400) naming the field', async () => {
    for (const [fault, reason] of [
      [{ kind: 'slow', delayMs: 'abc' }, /delayMs must be an integer from 0 to 600000/],
      [{ kind: 'drop', afterEvents: -1 }, /afterEvents must be an integer/],
      [{ kind: 'status', status: 429, retryAfter: 'soon' }, /retry-after must be seconds/],
      [{ kind: 'status', status: 500, method: 'FETCH' }, /method must be one of/],
    ] as const) {
      const r = await fetch(`${emu.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      });
      expect(r.status).toBe(400);
      expect(await r.text()).toMatch(reason);
    }
    expect(emu.faults.list()).toEqual([]);
  });

  it('the admin API takes retryAfter as a number or as digits, as the README shows (issue 37 item 19)', async () => {
    for (const retryAfter of [1, '1']) {
      const r = await fetch(`${emu.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'status', status: 429, retryAfter, path: '^/v1/models$' }),
      });
      expect(r.status, JSON.stringify(retryAfter)).toBe(200);
      const reply = await fetch(`${emu.url}/v1/models`, { headers: { authorization: `Bearer ${emu.key}` } });
      expect(reply.status).toBe(429);
      expect(reply.headers.get('retry-after')).toBe('1');
    }
    for (const retryAfter of [-1, 1.5, 86_401]) {
      const r = await fetch(`${emu.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'status', status: 429, retryAfter }),
      });
      expect(r.status, String(retryAfter)).toBe(400);
      expect(await r.text()).toMatch(/retry-after must be seconds \(0 to 86400\)/);
    }
    expect(emu.faults.list()).toEqual([]);
  });

  it('svc-emulator serve --fault (the package on its own) refuses them with exit 2', async () => {
    for (const [spec, reason] of MALFORMED) {
      let code: number | undefined;
      const said = await capturingStderr(async () => {
        code = await main(['serve', '--port', '0', `--fault=${spec}`]);
      });
      expect(code, spec).toBe(2);
      expect(said, spec).toMatch(reason);
    }
  });
});
