// Front matter (a `---` block of YAML at the top of a text): SKILL.md for skills, and the metadata fields of the
// emulator's document collections. Parsed with the `yaml` library (block scalars `>`/`|`, quoting, escapes), loaded
// on first use; a block that is not valid YAML (`description: Use when: …` is common) is read line by line instead.
import { createRequire } from 'node:module';

type YamlModule = typeof import('yaml');
let yaml: YamlModule | undefined;
const loadYaml = (): YamlModule => (yaml ??= createRequire(import.meta.url)('yaml') as YamlModule);

/** The keys (values as text) and the text after the block, or undefined when there is no block. */
export function splitFrontMatter(text: string): { fields: Record<string, string>; body: string } | undefined {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!m) return undefined;
  return { fields: yamlFields(m[1]!) ?? lineFields(m[1]!), body: text.slice(m[0].length) };
}

export function parseFrontMatter(text: string): Record<string, string> | undefined {
  return splitFrontMatter(text)?.fields;
}

function yamlFields(block: string): Record<string, string> | undefined {
  let doc: unknown;
  try {
    doc = loadYaml().parse(block, { prettyErrors: false });
  } catch {
    return undefined;
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (v === null || v === undefined) fields[k] = '';
    else if (typeof v === 'object') fields[k] = JSON.stringify(v);
    else fields[k] = String(v);
  }
  return fields;
}

function lineFields(block: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const kv = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    let v = kv[2]!.trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    fields[kv[1]!] = v;
  }
  return fields;
}
