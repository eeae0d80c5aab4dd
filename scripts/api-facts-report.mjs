#!/usr/bin/env node
// The figures of issue 38's closing note: how much of the API is still written by hand beside the document.
// Run by hand, not by the suite: `node scripts/api-facts-report.mjs [--lists] [REV …]`, one column per source tree
// (`.` the working tree, the default; any other argument a git revision, read through git without a checkout);
// --lists prints the literal lists found in both the client and the emulator, and those that restate an enum of
// the document, after the table.
// Counted from the text, by regular expressions (no TypeScript parse): each row says what it counts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GENERATED = /^(src\/endpoints\/json-fields\.ts|packages\/formats\/src\/api-(facts|types)\.ts)$/;
const git = (args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });

/** the .ts files of a tree under `dirs`, generated ones left out, as path → text */
function sources(rev, dirs) {
  const list = rev === '.' ? git(['ls-files', ...dirs]) : git(['ls-tree', '-r', '--name-only', rev, ...dirs]);
  const files = new Map();
  for (const path of list.split('\n').filter((p) => p.endsWith('.ts') && !GENERATED.test(p)))
    files.set(path, rev === '.' ? readFileSync(join(ROOT, path), 'utf8') : git(['show', `${rev}:${path}`]));
  return files;
}

const STRING = String.raw`'(?:[^'\\\n]|\\.)*'`;
/** a literal list of at least two single-quoted strings (biome writes single quotes) */
const LIST = new RegExp(String.raw`\[\s*(?:${STRING}\s*,\s*)+${STRING}\s*,?\s*\]`, 'g');
const elements = (list) => [...list.matchAll(new RegExp(STRING, 'g'))].map((m) => m[0]);

/** the text between the `{` at `open` and its closing brace */
function block(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return '';
}

/** fields at the top level of a type's body: `name:` or `name?:` outside nested braces */
function fieldCount(body) {
  let depth = 0;
  let flat = '';
  for (const c of body) {
    if (c === '{' || c === '(' || c === '<') depth++;
    else if (c === '}' || c === ')' || c === '>') depth--;
    else if (depth === 0) flat += c;
  }
  return [...flat.matchAll(/(?:^|[;,\n])\s*(?:readonly\s+)?['\w-]+\??\s*:/g)].length;
}

function emulatorChecks(files) {
  const counts = { invalid: 0, checkRange: 0, requireFields: 0, checkEnum: 0 };
  for (const text of files.values())
    for (const m of text.matchAll(/(?<![\w$])(function\s+)?(invalid|checkRange|requireFields|checkEnum)\(/g))
      if (!m[1]) counts[m[2]]++;
  return counts;
}

/** the error events a realtime session answers a client event with by hand (state and rules besides the document's) */
const eventRefusals = (files) =>
  [...files.values()].reduce((n, t) => n + t.split('new ClientEventError(').length - 1, 0);

/** `oneOf(` and `choices:` sites of src/: an inline literal list, a const literal list of src/, or anything else */
function clientChoices(files) {
  const named = new Map();
  for (const text of files.values())
    for (const m of text.matchAll(
      new RegExp(String.raw`\bconst\s+(\w+)(?:\s*:[^=]+)?\s*=\s*(?:new Set\()?(${LIST.source})`, 'g'),
    ))
      named.set(m[1], m[2]);
  const sites = { literal: 0, namedLiteral: 0, other: 0 };
  const lists = new Set();
  for (const text of files.values())
    for (const m of text.matchAll(/(?:(?<![\w.])oneOf\(|\bchoices:)\s*(\[|[\w.]+)/g)) {
      if (m[1] === '[') {
        const list = new RegExp(`^${LIST.source}`).exec(text.slice(m.index + m[0].length - 1))?.[0];
        if (list) sites.literal++, lists.add(list);
        else sites.other++;
      } else if (named.has(m[1])) sites.namedLiteral++, lists.add(named.get(m[1]));
      else if (m[1] !== 'values') sites.other++; // `oneOf(values` is the definition's own parameter
    }
  return { ...sites, lists: lists.size };
}

/** literal lists with the same elements (as sets) in both src/ and packages/emulator/src */
function duplicatedLists(client, emulator) {
  const keys = (files) => {
    const out = new Map();
    for (const text of files.values())
      for (const m of text.matchAll(LIST)) out.set([...new Set(elements(m[0]))].sort().join(' '), m[0]);
    return out;
  };
  const ours = keys(client);
  return [...keys(emulator).keys()].filter((k) => ours.has(k));
}

/** the string enums of the revision's API document, each as the sorted set of its values (none before it existed) */
function documentEnums(rev) {
  const path = 'packages/emulator/spec/openapi.json';
  let doc;
  try {
    doc = JSON.parse(rev === '.' ? readFileSync(join(ROOT, path), 'utf8') : git(['show', `${rev}:${path}`]));
  } catch {
    return new Set();
  }
  const out = new Set();
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const strings = key === 'enum' && Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
      if (strings.length > 1) out.add([...new Set(strings)].sort().join(' '));
      visit(value);
    }
  };
  visit(doc);
  return out;
}

/** literal lists of `files` whose values (as a set) are an enum of the document: a fact written beside it */
function restatedEnums(files, enums) {
  const found = [];
  for (const [path, text] of files)
    for (const m of text.matchAll(LIST))
      if (enums.has([...new Set(elements(m[0]).map((e) => e.slice(1, -1)))].sort().join(' ')))
        found.push(`${path}: ${m[0]}`);
  return found;
}

/**
 * Option types written by hand in src/commands: object types named *Opts, *Options or *Flags (a type derived from
 * the option specs, `OptionValues<typeof ROWS>`, is no object literal and not counted), and an explicit
 * defineCommand<…> (inferred from the options since issue 38 item 4). Also counts helpers' option bags by name.
 */
function optionFields(files) {
  let fields = 0;
  let types = 0;
  for (const [path, text] of files) {
    if (!path.startsWith('src/commands/')) continue;
    const names = new Set([...text.matchAll(/defineCommand<(\w+)>/g)].map((m) => m[1]));
    for (const m of text.matchAll(/\b(?:interface\s+(\w+)(?:\s+extends\s+[^{]+)?|type\s+(\w+)\s*=)\s*\{/g)) {
      const name = m[1] ?? m[2];
      if (!names.has(name) && !/(Opts|Options|Flags)$/.test(name)) continue;
      types++;
      fields += fieldCount(block(text, m.index + m[0].length - 1));
    }
    for (const m of text.matchAll(/defineCommand<\{/g)) {
      types++;
      fields += fieldCount(block(text, m.index + m[0].length - 1));
    }
  }
  return { types, fields };
}

/** exported interfaces and object types of src/endpoints/: replies, or requests/options by their name */
function endpointTypes(files) {
  const out = { replies: 0, requests: 0 };
  for (const [path, text] of files) {
    if (!path.startsWith('src/endpoints/')) continue;
    for (const m of text.matchAll(/export\s+(?:interface\s+(\w+)|type\s+(\w+)\s*=\s*\{)/g))
      out[/(Options|Opts|Params|Request|Query|Input|Args|Body|Init)$/.test(m[1] ?? m[2]) ? 'requests' : 'replies']++;
  }
  return out;
}

function report(rev) {
  const client = sources(rev, ['src']);
  const emulator = sources(rev, ['packages/emulator/src']);
  const checks = emulatorChecks(emulator);
  const choices = clientChoices(client);
  const options = optionFields(client);
  const types = endpointTypes(client);
  const readers = (files) => [...files.values()].filter((t) => /svc-formats\/api-(facts|types)/.test(t)).length;
  const duplicated = duplicatedLists(client, emulator);
  const enums = documentEnums(rev);
  const restated = [...restatedEnums(client, enums), ...restatedEnums(emulator, enums)];
  if (showLists) for (const list of [...duplicated, ...restated]) console.error(`${rev}: ${list}`);
  return [
    ['emulator: hand-written request checks (calls)', Object.values(checks).reduce((a, b) => a + b, 0)],
    ...Object.entries(checks).map(([name, n]) => [`  ${name}(`, n]),
    ["emulator: realtime session's refusals (new ClientEventError()", eventRefusals(emulator)],
    ['client: oneOf( / choices: sites', choices.literal + choices.namedLiteral + choices.other],
    ['  with a literal list inline', choices.literal],
    ['  with a const literal list of src/', choices.namedLiteral],
    ['  with a list from elsewhere (api-facts, computed)', choices.other],
    ['  distinct literal lists used as choices', choices.lists],
    ['literal lists in both src/ and the emulator', duplicated.length],
    [
      'literal lists that are an enum of the document (src, emulator)',
      `${restatedEnums(client, enums).length}, ${restatedEnums(emulator, enums).length}`,
    ],
    ['command option types (src/commands)', options.types],
    ['  their fields', options.fields],
    ['src/endpoints exported reply types', types.replies],
    ['  request/option types beside them', types.requests],
    ['files importing svc-formats/api-facts|types (src, emulator)', `${readers(client)}, ${readers(emulator)}`],
  ];
}

const showLists = process.argv.includes('--lists');
const given = process.argv.slice(2).filter((a) => a !== '--lists');
const revs = given.length ? given : ['.'];
const columns = revs.map(report);
const width = Math.max(...columns[0].map(([label]) => label.length));
console.log(`${''.padEnd(width)}  ${revs.map((r) => r.padStart(10)).join('  ')}`);
columns[0].forEach(([label], i) =>
  console.log(`${label.padEnd(width)}  ${columns.map((c) => String(c[i][1]).padStart(10)).join('  ')}`),
);
