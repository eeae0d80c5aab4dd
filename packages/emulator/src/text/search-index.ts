// Document collections of the emulator and their search. The API has no endpoint to create a collection, so
// they are given to the emulator from local files (`svc emulator serve --collection NAME=DIR_OR_FILE`, or
// `startEmulator({collections})`) and remembered in its state. Files are read, split into chunks and ranked for
// real: BM25 over words (keyword), cosine of the emulator's embeddings (semantic), or both (hybrid).
import { ordered, type Op } from '../core/aip160.js';
import { splitFrontMatter } from 'svc-formats/front-matter';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import type { Backend } from '../state/backend.js';
import { cosine, embed, words } from './embedder.js';
import { invalid } from '../core/errors.js';
import { yieldToLoop } from '../core/yield-loop.js';

export interface CollectionRecord {
  id: string;
  /** absolute paths of the files and folders it holds */
  paths: string[];
}

export interface Chunk {
  file_id: string;
  chunk_id: string;
  chunk_content: string;
  collection_id: string;
  fields: Record<string, string>;
  terms: string[];
  vector?: number[];
}

export type RetrievalMode = 'hybrid' | 'semantic' | 'keyword';

export interface SearchMatch {
  file_id: string;
  chunk_id: string;
  chunk_content: string;
  score: number;
  collection_ids: string[];
  fields: Record<string, string>;
}

const EMBED_MODEL = 'svc-embed-1';
const EMBED_DIMS = 256;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const CHUNK_CHARS = 700;

/** `NAME=PATH` pairs (or a record) → stored collections; a name given again gains the path. */
export function registerCollections(core: Backend, collections: Record<string, string | string[]>): void {
  const store = core.store.collection<CollectionRecord>('document_collections');
  for (const [id, p] of Object.entries(collections)) {
    const paths = (Array.isArray(p) ? p : [p]).map((x) => resolve(x));
    for (const path of paths) statSync(path); // a missing path fails at start-up, not at the first search
    const prev = store.get(id);
    store.set(id, { id, paths: [...new Set([...(prev?.paths ?? []), ...paths])] });
  }
  core.store.save();
  indexes.delete(core);
}

const indexes = new WeakMap<Backend, Map<string, { signature: string; chunks: Chunk[] }>>();

function listFiles(path: string): string[] {
  const st = statSync(path);
  if (st.isFile()) return [path];
  if (!st.isDirectory()) return [];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    out.push(...listFiles(join(path, name)));
  }
  return out;
}

/** Paragraphs packed into chunks of about CHUNK_CHARS; a longer paragraph is cut at sentence ends. */
export function chunkText(text: string): string[] {
  const paras = text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const pieces: string[] = [];
  for (const p of paras) {
    if (p.length <= CHUNK_CHARS) pieces.push(p);
    else {
      let cur = '';
      for (const s of p.match(/[^.!?]+[.!?]*\s*/g) ?? [p]) {
        if (cur && cur.length + s.length > CHUNK_CHARS) {
          pieces.push(cur.trim());
          cur = '';
        }
        cur += s;
        while (cur.length > CHUNK_CHARS * 1.5) {
          pieces.push(cur.slice(0, CHUNK_CHARS));
          cur = cur.slice(CHUNK_CHARS);
        }
      }
      if (cur.trim()) pieces.push(cur.trim());
    }
  }
  const chunks: string[] = [];
  let cur = '';
  for (const p of pieces) {
    if (cur && cur.length + p.length + 2 > CHUNK_CHARS) {
      chunks.push(cur);
      cur = '';
    }
    cur = cur ? `${cur}\n\n${p}` : p;
  }
  if (cur) chunks.push(cur);
  return chunks;
}

/** Text read between two turns of the event loop while a collection is indexed (~10 ms of chunking). */
const YIELD_EVERY_BYTES = 512 * 1024;
/** Chunks embedded between two turns of the event loop (~30 ms). */
const YIELD_EVERY_CHUNKS = 64;

/** A collection's chunks, read a file at a time with the event loop running between every half megabyte. */
async function buildCollection(rec: CollectionRecord): Promise<{ signature: string; chunks: Chunk[] }> {
  const files: { path: string; root: string; size: number; mtime: number }[] = [];
  for (const root of rec.paths) {
    let list: string[] = [];
    try {
      list = listFiles(root);
    } catch {
      continue; // a path that disappeared holds nothing
    }
    for (const f of list) {
      const st = statSync(f);
      if (st.size <= MAX_FILE_BYTES) files.push({ path: f, root, size: st.size, mtime: st.mtimeMs });
    }
  }
  const signature = files.map((f) => `${f.path}:${f.size}:${f.mtime}`).join('|');
  const chunks: Chunk[] = [];
  let sinceYield = 0;
  for (const f of files) {
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await yieldToLoop();
    }
    sinceYield += f.size;
    const buf = readFileSync(f.path);
    if (buf.includes(0)) continue; // binary
    const text = buf.toString('utf8');
    const fileId = `file_${createHash('sha256').update(f.path).digest('hex').slice(0, 24)}`;
    const { fields: meta, body } = splitFrontMatter(text) ?? { fields: {}, body: text };
    const rel = relative(statSync(f.root).isDirectory() ? f.root : resolve(f.root, '..'), f.path) || basename(f.path);
    const fields: Record<string, string> = {
      ...meta,
      file_name: basename(f.path),
      path: rel,
      extension: extname(f.path).replace(/^\./, ''),
      size_bytes: String(f.size),
      collection_id: rec.id,
    };
    chunkText(body).forEach((content, i) => {
      chunks.push({
        file_id: fileId,
        chunk_id: `${fileId}_c${i}`,
        chunk_content: content,
        collection_id: rec.id,
        fields,
        terms: words(content),
      });
    });
  }
  return { signature, chunks };
}

function signatureOf(rec: CollectionRecord): string {
  const parts: string[] = [];
  for (const root of rec.paths) {
    try {
      for (const f of listFiles(root)) {
        const st = statSync(f);
        if (st.size <= MAX_FILE_BYTES) parts.push(`${f}:${st.size}:${st.mtimeMs}`);
      }
    } catch {
      // gone
    }
  }
  return parts.join('|');
}

export async function collectionChunks(core: Backend, id: string): Promise<Chunk[] | undefined> {
  const rec = core.store.collection<CollectionRecord>('document_collections').get(id);
  if (!rec) return undefined;
  let perCore = indexes.get(core);
  if (!perCore) indexes.set(core, (perCore = new Map()));
  const cached = perCore.get(id);
  if (cached && cached.signature === signatureOf(rec)) return cached.chunks;
  const built = await buildCollection(rec);
  perCore.set(id, built);
  return built.chunks;
}

// ---- filter expressions: field OP value, AND / OR / NOT, parentheses ----

type Node =
  | { kind: 'cmp'; field: string; op: string; value: string; numeric: boolean }
  | { kind: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'not'; inner: Node };

function lex(src: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(>=|<=|!=|=|>|<|:)|([()])|([^\s()=<>!:"']+))/y;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < src.length) {
    re.lastIndex = pos;
    m = re.exec(src);
    if (!m) {
      if (/^\s*$/.test(src.slice(pos))) break;
      invalid(`Invalid filter: unexpected character at position ${pos + 1} in ${JSON.stringify(src)}`);
    }
    tokens.push(m[0].trim());
    pos = re.lastIndex;
  }
  return tokens.filter((t) => t !== '');
}

export function parseFilter(src: string): Node {
  const t = lex(src);
  let i = 0;
  const peek = () => t[i];
  const bad = (what: string): never => invalid(`Invalid filter ${JSON.stringify(src)}: ${what}`);
  const or = (): Node => {
    let left = and();
    while (peek()?.toUpperCase() === 'OR') {
      i++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  const and = (): Node => {
    let left = not();
    while (peek()?.toUpperCase() === 'AND') {
      i++;
      left = { kind: 'and', left, right: not() };
    }
    return left;
  };
  const not = (): Node => {
    if (peek()?.toUpperCase() === 'NOT') {
      i++;
      return { kind: 'not', inner: not() };
    }
    return primary();
  };
  const primary = (): Node => {
    const tok = peek();
    if (tok === undefined) return bad('expected a comparison such as file_name = "a.md"');
    if (tok === '(') {
      i++;
      const inner = or();
      if (peek() !== ')') bad('missing )');
      i++;
      return inner;
    }
    if (!/^[A-Za-z_][\w.-]*$/.test(tok)) bad(`expected a field name, got ${tok}`);
    i++;
    const op = peek();
    if (!op || !['=', '!=', '>', '>=', '<', '<=', ':'].includes(op))
      return bad(`expected an operator (=, !=, >, >=, <, <=, :) after ${tok}`);
    i++;
    const raw = peek();
    if (raw === undefined || raw === '(' || raw === ')') return bad(`expected a value after ${tok} ${op}`);
    i++;
    const quoted = /^["']/.test(raw);
    const value = quoted ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    return { kind: 'cmp', field: tok, op, value, numeric: !quoted && /^-?\d+(\.\d+)?$/.test(value) };
  };
  const node = or();
  if (i < t.length) bad(`unexpected ${t[i]}`);
  return node;
}

export function matchesFilter(node: Node, fields: Record<string, string>): boolean {
  switch (node.kind) {
    case 'and':
      return matchesFilter(node.left, fields) && matchesFilter(node.right, fields);
    case 'or':
      return matchesFilter(node.left, fields) || matchesFilter(node.right, fields);
    case 'not':
      return !matchesFilter(node.inner, fields);
    case 'cmp': {
      const have = fields[node.field];
      if (have === undefined) return node.op === '!=';
      if (node.op === ':') return have.toLowerCase().includes(node.value.toLowerCase());
      const numeric = node.numeric && /^-?\d+(\.\d+)?$/.test(have);
      const c = numeric ? Number(have) - Number(node.value) : have < node.value ? -1 : have > node.value ? 1 : 0;
      return ordered(node.op as Op, c);
    }
  }
}

// ---- ranking ----

function bm25(chunks: Chunk[], query: string[]): number[] {
  const k1 = 1.2;
  const b = 0.75;
  const n = chunks.length;
  const avg = chunks.reduce((s, c) => s + c.terms.length, 0) / Math.max(1, n);
  const df = new Map<string, number>();
  const qset = [...new Set(query)];
  for (const c of chunks) {
    const seen = new Set(c.terms);
    for (const q of qset) if (seen.has(q)) df.set(q, (df.get(q) ?? 0) + 1);
  }
  return chunks.map((c) => {
    const tf = new Map<string, number>();
    for (const w of c.terms) tf.set(w, (tf.get(w) ?? 0) + 1);
    let s = 0;
    for (const q of qset) {
      const f = tf.get(q) ?? 0;
      if (!f) continue;
      const d = df.get(q) ?? 0;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * c.terms.length) / (avg || 1)));
    }
    return s;
  });
}

/** Each chunk's vector, made once, YIELD_EVERY_CHUNKS at a time with the event loop running between them. */
async function embedChunks(pool: Chunk[]): Promise<void> {
  let made = 0;
  for (const c of pool) {
    if (c.vector) continue;
    c.vector = embed(c.chunk_content, EMBED_MODEL, EMBED_DIMS);
    if (++made % YIELD_EVERY_CHUNKS === 0) await yieldToLoop();
  }
}

export async function search(
  core: Backend,
  req: { query: string; collectionIds: string[]; filter?: string; limit: number; mode: RetrievalMode },
): Promise<SearchMatch[]> {
  const filter = req.filter?.trim() ? parseFilter(req.filter) : undefined;
  const pool: Chunk[] = [];
  const owners = new Map<string, Set<string>>();
  for (const id of req.collectionIds) {
    const chunks = await collectionChunks(core, id);
    if (!chunks) invalid(`Invalid value for \`source.collection_ids\`: the collection ${id} does not exist`);
    for (const c of chunks) {
      if (filter && !matchesFilter(filter, c.fields)) continue;
      const key = c.chunk_id;
      if (!owners.has(key)) {
        owners.set(key, new Set());
        pool.push(c);
      }
      owners.get(key)!.add(id);
    }
  }
  if (!pool.length) return [];
  const qTerms = words(req.query);
  const kw = req.mode === 'semantic' ? pool.map(() => 0) : bm25(pool, qTerms);
  let sem: number[] = pool.map(() => 0);
  if (req.mode !== 'keyword') {
    const qv = embed(req.query, EMBED_MODEL, EMBED_DIMS);
    await embedChunks(pool);
    sem = pool.map((c) => Math.max(0, cosine(qv, c.vector!)));
  }
  const maxKw = Math.max(0, ...kw);
  const scored = pool.map((c, i) => {
    const k = maxKw > 0 ? kw[i]! / maxKw : 0;
    const score = req.mode === 'keyword' ? kw[i]! : req.mode === 'semantic' ? sem[i]! : 0.5 * k + 0.5 * sem[i]!;
    return { c, score, kw: kw[i]! };
  });
  return scored
    .filter((s) => (req.mode === 'keyword' ? s.kw > 0 : s.score > 0))
    .sort((a, b) => b.score - a.score || a.c.chunk_id.localeCompare(b.c.chunk_id))
    .slice(0, req.limit)
    .map(({ c, score }) => ({
      file_id: c.file_id,
      chunk_id: c.chunk_id,
      chunk_content: c.chunk_content,
      score: Math.round(score * 1e6) / 1e6,
      collection_ids: [...owners.get(c.chunk_id)!],
      fields: c.fields,
    }));
}
