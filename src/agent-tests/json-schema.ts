// JSON Schema checks of the agent runners (draft 2020-12, ajv: the reference validator), loaded only when needed:
// a tool expectation's arguments_schema in `agents test`, the judge's structured answer in `agents simulate`.

type Validate = ((v: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
const compiled = new Map<string, Validate>();

/** The schema compiled once (throws when it is not a valid JSON Schema). */
export async function schemaValidator(schema: Record<string, unknown>): Promise<Validate> {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    v = new Ajv2020({ allErrors: true, strict: false }).compile(schema) as Validate;
    compiled.set(key, v);
  }
  return v;
}

/** undefined when `value` matches, else why not, each problem named from `what` (its place in the value). */
export async function checkSchema(
  schema: Record<string, unknown>,
  value: unknown,
  what = 'arguments',
): Promise<string | undefined> {
  const validate = await schemaValidator(schema);
  if (validate(value)) return undefined;
  return (
    (validate.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message ?? 'is not valid'}`).join(', ') ||
    'does not match the schema'
  );
}
