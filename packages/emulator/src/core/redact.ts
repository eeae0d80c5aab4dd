// The request log keeps no credential (issue 26, item 4): every carrier is redacted when a request is recorded, so
// neither the admin API, `svc emulator requests` nor a test's look at the log can show one. Carriers: the
// Authorization header of any scheme and the other headers that carry keys or sessions (x-api-key, api-key,
// x-goog-api-key, cookies, the admin token), the client secret offered as a WebSocket subprotocol, query parameters
// named like credentials (?api_key=, ?key=, ?token=, …), and in bodies every key the emulator knows, the known
// secret shapes (bearer tokens, svc-/sk- keys, client and webhook secrets, cloud keys) and fields named like
// credentials.

/** Headers whose value is a credential: the log says `[present]`. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'set-cookie',
  'x-emulator-admin-token',
  'x-auth-token',
  'x-access-token',
]);

/** Query parameters whose value is a credential. */
const SECRET_PARAM = /^(api[-_]?key|key|token|access[-_]?token|auth|client[-_]?secret|secret|password|sig|signature)$/i;

/** Secret shapes found in bodies. */
const KEY_SHAPES = [
  'svc-(?:cs|emu|emulator|key|live|test)-[A-Za-z0-9_-]{12,}',
  'sk-[A-Za-z0-9_-]{16,}',
  'whsec_[A-Za-z0-9+/=_-]{6,}',
  'xai-[A-Za-z0-9]{16,}',
  'AIza[0-9A-Za-z_-]{30,}',
  'gh[pousr]_[A-Za-z0-9]{30,}',
  'AKIA[0-9A-Z]{16}',
];
const CREDENTIAL_FIELDS = 'api[-_]?key|apiKey|password|secret|client[-_]?secret|access[-_]?token|token|authorization';
const SECRET_SHAPES: [RegExp, string][] = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 [REDACTED]'],
  [new RegExp(`\\b(?:${KEY_SHAPES.join('|')})`, 'g'), '[REDACTED]'],
  [new RegExp(`("(?:${CREDENTIAL_FIELDS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi'), '$1"[REDACTED]"'],
];

export const REDACTED = '[REDACTED]';

/** Whether a header carries a credential (the request log says `[present]`; a replay fixture drops it). */
export function isCredentialHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase());
}

/**
 * Text kept in a replay fixture: the keys given and every known secret shape replaced, and fields named like
 * credentials, but not `token` (a reply's log probabilities and tokenizations are made of `token` fields).
 */
const RECORDED_SHAPES: [RegExp, string][] = [
  SECRET_SHAPES[0]!,
  SECRET_SHAPES[1]!,
  [
    new RegExp(`("(?:${CREDENTIAL_FIELDS.replace('|token|', '|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi'),
    '$1"[REDACTED]"',
  ],
];

export function redactRecorded(text: string, keys: Iterable<string>): string {
  let out = text;
  for (const k of keys) if (k.length >= 8) out = out.split(k).join(REDACTED);
  for (const [re, by] of RECORDED_SHAPES) out = out.replace(re, by);
  return out;
}

type Values = string | string[];
const each = (v: Values, f: (s: string) => string): Values => (Array.isArray(v) ? v.map(f) : f(v));

/** Headers for the log: credential headers `[present]`, a client secret subprotocol and secrets in others redacted. */
export function redactHeaders(
  headers: Record<string, Values | undefined>,
  keys: Iterable<string>,
): Record<string, Values | undefined> {
  const known = [...keys];
  const out: Record<string, Values | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (SECRET_HEADERS.has(name)) out[name] = '[present]';
    else
      out[name] = each(value, (v) =>
        redactText(v.replace(/svc-client-secret\.[^,\s]+/g, `svc-client-secret.${REDACTED}`), known),
      );
  }
  return out;
}

/** Query parameters for the log: those named like credentials redacted, and secrets in the others. */
export function redactQuery(query: Record<string, Values>, keys: Iterable<string>): Record<string, Values> {
  const known = [...keys];
  return Object.fromEntries(
    Object.entries(query).map(([k, v]) => [
      k,
      each(v, (s) => (SECRET_PARAM.test(k) ? REDACTED : redactText(s, known))),
    ]),
  );
}

/** A body's text with the keys given (every key the emulator knows) and every known secret shape replaced. */
export function redactText(text: string, keys: Iterable<string>): string {
  let out = text;
  for (const k of keys) if (k.length >= 8) out = out.split(k).join(REDACTED);
  for (const [re, by] of SECRET_SHAPES) out = out.replace(re, by);
  return out;
}
