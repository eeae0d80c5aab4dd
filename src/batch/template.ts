// --template: prompt text with {{column}} placeholders, or a request-body template (a JSON object whose strings
// hold placeholders). A string that is one placeholder alone takes the row's value as it is (a number, an array
// of a JSON line); elsewhere values are put in as text.

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** `system`: a saved template's system prompt (-t), filled per row like the text. */
export type Template =
  | { kind: 'text'; text: string; system?: string }
  | { kind: 'body'; body: Record<string, unknown> };

/** The names a template uses, in order of first use. */
export function placeholders(t: Template): string[] {
  const names = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const m of v.matchAll(PLACEHOLDER)) names.add(m[1]!);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(t.kind === 'text' ? [t.system ?? '', t.text] : t.body);
  return [...names];
}

const asText = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);

export function renderText(text: string, vars: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (_, name: string) => asText(vars[name]));
}

/** The body template filled in for one row. */
export function renderBody(body: Record<string, unknown>, vars: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const alone = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(v);
      if (alone && vars[alone[1]!] !== undefined) return vars[alone[1]!];
      return renderText(v, vars);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(body) as Record<string, unknown>;
}

/** A template's text (`@FILE` read from the file): a JSON object is a body template, anything else prompt text. */
export function parseTemplate(raw: string, flag = '--template'): Template {
  const trimmed = raw.trim();
  // `{{column}} …` is prompt text that begins with a placeholder, not JSON
  if (trimmed.startsWith('{') && !trimmed.startsWith('{{')) {
    try {
      const body = JSON.parse(trimmed) as unknown;
      if (body && typeof body === 'object' && !Array.isArray(body))
        return { kind: 'body', body: body as Record<string, unknown> };
    } catch (err) {
      throw new TemplateError(`${flag}: a request-body template must be a JSON object: ${(err as Error).message}`);
    }
  }
  if (trimmed === '') throw new TemplateError(`${flag}: the template is empty`);
  return { kind: 'text', text: raw };
}

export class TemplateError extends Error {}
