// Small guards at the API boundary: a reply missing a field we rely on is a protocol error naming it.
import { ProtocolError } from '../core/errors.js';

export function expectFields<T>(value: T, fields: string[], what: string): T {
  if (!value || typeof value !== 'object') throw new ProtocolError(`the ${what} reply is not a JSON object`);
  for (const f of fields) {
    if ((value as Record<string, unknown>)[f] === undefined)
      throw new ProtocolError(`the ${what} reply has no \`${f}\` field`);
  }
  return value;
}

export function expectArray<T>(value: unknown, field: string, what: string): T[] {
  const list = (value as Record<string, unknown> | undefined)?.[field];
  if (!Array.isArray(list)) throw new ProtocolError(`the ${what} reply has no \`${field}\` list`);
  return list as T[];
}
