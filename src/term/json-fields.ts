// `--json FIELD,FIELD`: what is printed keeps the fields asked for (cmdutil/json-fields.ts checks them).

/** The value with only the fields asked for (a dotted name: that nested field, under its parents). */
export function projectFields(value: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => projectFields(v, fields));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const field of fields) copyPath(value as Record<string, unknown>, out, field.split('.'));
  return out;
}

function copyPath(from: Record<string, unknown>, to: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path as [string, ...string[]];
  if (!Object.hasOwn(from, head)) return;
  const v = from[head];
  if (rest.length === 0 || v === null || typeof v !== 'object' || Array.isArray(v)) {
    to[head] = v;
    return;
  }
  const inner = (to[head] ??= {}) as Record<string, unknown>;
  copyPath(v as Record<string, unknown>, inner, rest);
}
