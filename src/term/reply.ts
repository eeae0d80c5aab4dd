// The one --json rule for single resources: print the reply body as the API sent it, wrapper included
// (`{"agent": {…}}`, `{"phone_number": {…}}`). The api layer may hand commands the inner object for convenience;
// it keeps the reply it came from here, and Output.printJson prints that reply.

const REPLY = Symbol('svc.apiReply');

/** Return `value` (the unwrapped resource) remembering the reply body it came from. */
export function withReply<T extends object>(value: T, reply: unknown): T {
  if (value !== reply) Object.defineProperty(value, REPLY, { value: reply, enumerable: false });
  return value;
}

/** The reply body a value came from, or the value itself. */
export function replyOf(value: unknown): unknown {
  return value && typeof value === 'object' && REPLY in value ? (value as Record<symbol, unknown>)[REPLY] : value;
}
