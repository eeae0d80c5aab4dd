// isoTime writes what Date#toISOString writes, without its look-up of the local time zone (src/core/iso-time.ts).
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/core/iso-time.js';

describe('isoTime', () => {
  it("is toISOString's text for times before 1970, at the turns of days and years, and with milliseconds", () => {
    const times = [
      0,
      -1,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
      Date.UTC(2026, 11, 2, 16, 35, 13, 40),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      // the first time of the year 0 and the last before it (-000001-...), then the year 10000 (+010000-...)
      -62167219200000,
      -62167219200001,
      Date.UTC(10000, 0, 1),
    ];
    for (let ms = 0; ms < 4e12; ms += 7_919_999_937) times.push(ms);
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws as toISOString does for a time that is not one', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
