// Front matter (a `---` block of `key: value` lines at the top of a text): SKILL.md for skills, and the metadata
// fields of the emulator's document collections.

/** The keys (quotes removed) and the text after the block, or undefined when there is no block. */
export function splitFrontMatter(text: string): { fields: Record<string, string>; body: string } | undefined {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!m) return undefined;
  const fields: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^\s*([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    let v = kv[2]!.trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    fields[kv[1]!] = v;
  }
  return { fields, body: text.slice(m[0].length) };
}

export function parseFrontMatter(text: string): Record<string, string> | undefined {
  return splitFrontMatter(text)?.fields;
}
