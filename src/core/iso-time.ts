// A time as Date#toISOString writes it, from the date's UTC fields: toISOString itself makes V8 look up the local
// time zone (ICU reads /etc/localtime: ~0.4 ms of CPU once per process, as much as the rest of the call log's record),
// which a UTC text never needs (docs/performance.md, issue 41, ninth round).

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `new Date(ms).toISOString()` (2026-12-02T16:35:13.000Z); a RangeError for an invalid time, as toISOString. */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  // NaN, and the years toISOString writes with six digits and a sign: its own text
  if (!(year >= 0 && year <= 9999)) return d.toISOString();
  return (
    `${pad(year, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:` +
    `${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}Z`
  );
}
