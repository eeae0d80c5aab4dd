// The project's own source read as data (syntax only, no type checking, so it takes well under a second): which
// module imports which, with the names it takes, and what each module of src/ exports. Used by the
// import-direction test and the unused-export check (test/repo/).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typescript, type TS } from './typescript.js';

export interface Import {
  from: string;
  /** a file under src/ (relative to the root) */
  to: string;
  /** the names taken; 'all' when they cannot be told (a namespace passed around, an unusual dynamic import) */
  names: Set<string> | 'all';
  typeOnly: boolean;
  dynamic: boolean;
}

export interface SourceGraph {
  /** src/ files → their exported names (line of each) */
  exports: Map<string, Map<string, number>>;
  /** src/ files → modules they re-export wholesale (`export * from`) */
  reexportAll: Map<string, string[]>;
  imports: Import[];
  /** file → bare package names it imports (the package part of the specifier) */
  packages: Map<string, Set<string>>;
  /** file → how many functions it has, and those of LONG_FUNCTION lines or more (test/repo/function-length) */
  functions: Map<string, { count: number; long: [name: string, line: number, lines: number][] }>;
  files: string[];
}

/** functions this long or longer are listed by name in the graph (the limit the repo keeps is above it) */
export const LONG_FUNCTION = 40;

/** TypeScript's compiler API, loaded when a file has to be parsed (not when every file's facts are cached) */
let ts: typeof TS;

const SCANNED = ['src', 'test', 'bench', 'scripts', 'bin', 'packages'];

/** svc's own packages: name → folder (a bare `svc-emulator/faults` is packages/emulator/src/state/faults.ts) */
export const OWN_PACKAGES: Record<string, string> = {
  'svc-emulator': 'packages/emulator',
  'svc-formats': 'packages/formats',
};

/** whether a file is source of a package (src/ of the CLI, packages/NAME/src/ of the others) */
export const isSource = (file: string): boolean => /^(packages\/[^/]+\/)?src\//.test(file);

function walk(root: string, dir: string, out: string[]): void {
  if (!existsSync(join(root, dir))) return;
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    // a package's build output and installed modules are not its source
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && !(dir.startsWith('packages') && e.name === 'dist')) walk(root, p, out);
    } else if (/\.(ts|cts|mts|mjs|cjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
}

/** The source file a package specifier of svc's own names, through its package.json's exports. */
function ownPackageFile(root: string, spec: string): string | undefined {
  const name = spec.split('/')[0]!;
  const dir = OWN_PACKAGES[name];
  if (!dir) return undefined;
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string }>;
  };
  const entry = pkg.exports[`.${spec.slice(name.length)}`];
  return entry ? join(dir, entry.types) : undefined;
}

/**
 * `./x.js` from a file, a path into a dist/, or a specifier of svc's own packages → the source file it stands for
 * (undefined when it is not svc's source).
 */
function resolveSpecifier(root: string, from: string, spec: string): string | undefined {
  let target: string;
  if (spec.startsWith('.')) target = relative(root, resolve(root, dirname(from), spec));
  else if (spec.startsWith('/')) target = relative(root, spec);
  else return ownPackageFile(root, spec);
  target = target.replace(/^(packages\/[^/]+\/)?dist\//, '$1src/');
  if (!isSource(target)) return undefined;
  // `./x.js` is x.ts, `./x.cjs` x.cts, `./x.mjs` x.mts (TypeScript's output names)
  const ts = target.replace(/\.([cm]?)js$/, '.$1ts');
  return existsSync(join(root, ts)) ? ts : existsSync(join(root, target)) ? target : undefined;
}

const packageOf = (spec: string): string | undefined => {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};

/** Names read from identifier `id` as `id.name` in the file; 'all' when it is used any other way. */
function propertiesRead(sf: TS.SourceFile, id: string, declaration: TS.Node): Set<string> | 'all' {
  const names = new Set<string>();
  let all = false;
  const visit = (n: TS.Node): void => {
    if (all) return;
    if (ts.isIdentifier(n) && n.text === id && n !== declaration) {
      const p = n.parent;
      if (ts.isPropertyAccessExpression(p) && p.expression === n) names.add(p.name.text);
      else if (ts.isQualifiedName(p) && p.left === n) names.add(p.right.text);
      else if (!(ts.isPropertyAccessExpression(p) && p.name === n) && !ts.isPropertyAssignment(p)) all = true;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return all ? 'all' : names;
}

function bindingNames(pattern: TS.ObjectBindingPattern): Set<string> | 'all' {
  const names = new Set<string>();
  for (const el of pattern.elements) {
    if (el.dotDotDotToken) return 'all';
    const key = el.propertyName ?? el.name;
    if (!ts.isIdentifier(key) && !ts.isStringLiteral(key)) return 'all';
    names.add(key.text);
  }
  return names;
}

/** What a dynamic `import(…)` takes, from the code around it. */
function dynamicNames(sf: TS.SourceFile, call: TS.CallExpression): Set<string> | 'all' {
  let n: TS.Node = call;
  while (ts.isParenthesizedExpression(n.parent) || ts.isAwaitExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isVariableDeclaration(p) && p.initializer === n) {
    if (ts.isObjectBindingPattern(p.name)) return bindingNames(p.name);
    if (ts.isIdentifier(p.name)) return propertiesRead(sf, p.name.text, p.name);
  }
  if (ts.isPropertyAccessExpression(p) && p.expression === n) {
    if (p.name.text !== 'then') return new Set([p.name.text]);
    const cb = (p.parent as TS.CallExpression).arguments?.[0];
    if (cb && (ts.isArrowFunction(cb) || ts.isFunctionExpression(cb))) {
      const param = cb.parameters[0]?.name;
      if (param && ts.isObjectBindingPattern(param)) return bindingNames(param);
    }
    return 'all';
  }
  // `load: () => import('./verb.js')` in the command tree: a command module, read by the CLI as `.default`
  if (
    ts.isArrowFunction(p) &&
    p.body === n &&
    ts.isPropertyAssignment(p.parent) &&
    p.parent.name.getText(sf) === 'load'
  )
    return new Set(['default']);
  return 'all';
}

function specifierOf(arg: TS.Expression | undefined): string | undefined {
  if (!arg) return undefined;
  if (ts.isStringLiteralLike(arg)) return arg.text;
  // import(join(ROOT, 'dist/x.js')) and import(`${…}/dist/x.js`) in scripts: the literal naming dist/
  let found: string | undefined;
  const visit = (n: TS.Node) => {
    if (!found && ts.isStringLiteralLike(n) && /(^|\/)dist\/.+\.js$/.test(n.text))
      found = n.text.replace(/^.*?((packages\/[^/]+\/)?dist\/)/, '$1');
    ts.forEachChild(n, visit);
  };
  visit(arg);
  return found ? `/${found}` : undefined;
}

/** What one file says, as TypeScript's parser reads it: its exports and what it imports, the specifiers unresolved. */
interface FileFacts {
  /** exported names and the line of each */
  exported: [string, number][];
  imports: { spec: string; names: string[] | 'all'; typeOnly: boolean; dynamic: boolean }[];
  /** the specifiers of its `export * from` */
  reexportAll: string[];
  functionCount: number;
  longFunctions: [string, number, number][];
}

/** The file's functions (declarations, methods, arrows, expressions): how many, and the long ones. */
function functionsOf(sf: TS.SourceFile, facts: FileFacts): void {
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: TS.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)
    ) {
      facts.functionCount++;
      const start = lineOf(node.getStart(sf));
      const lines = lineOf(node.getEnd()) - start;
      const name = (node as TS.FunctionDeclaration).name?.getText(sf) ?? '(anonymous)';
      if (lines >= LONG_FUNCTION) facts.longFunctions.push([name, start + 1, lines]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

function parseFile(file: string, text: string): FileFacts {
  ts ??= typescript();
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const facts: FileFacts = { exported: [], imports: [], reexportAll: [], functionCount: 0, longFunctions: [] };
  functionsOf(sf, facts);
  const exported = (name: string, line: number) => facts.exported.push([name, line]);
  const line = (n: TS.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const addImport = (spec: string | undefined, names: Set<string> | 'all', typeOnly: boolean, dynamic: boolean) => {
    if (spec !== undefined)
      facts.imports.push({ spec, names: names === 'all' ? 'all' : [...names], typeOnly, dynamic });
  };

  const visit = (n: TS.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      let names: Set<string> | 'all' = new Set();
      if (c?.name) names.add('default');
      const nb = c?.namedBindings;
      if (nb && ts.isNamedImports(nb))
        for (const el of nb.elements) (names as Set<string>).add((el.propertyName ?? el.name).text);
      if (nb && ts.isNamespaceImport(nb)) names = propertiesRead(sf, nb.name.text, nb.name);
      const allTypes =
        !!c &&
        !c.name &&
        !!nb &&
        ts.isNamedImports(nb) &&
        nb.elements.length > 0 &&
        nb.elements.every((el) => el.isTypeOnly);
      addImport(n.moduleSpecifier.text, names, !!c?.isTypeOnly || allTypes, false);
    } else if (ts.isExportDeclaration(n)) {
      const spec = n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier) ? n.moduleSpecifier.text : undefined;
      if (n.exportClause && ts.isNamedExports(n.exportClause)) {
        for (const el of n.exportClause.elements) exported(el.name.text, line(el));
        if (spec)
          addImport(
            spec,
            new Set(n.exportClause.elements.map((el) => (el.propertyName ?? el.name).text)),
            n.isTypeOnly,
            false,
          );
      } else if (spec) {
        facts.reexportAll.push(spec);
        addImport(spec, new Set(), n.isTypeOnly, false);
      }
    } else if (ts.isExportAssignment(n)) {
      exported('default', line(n));
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      addImport(specifierOf(n.arguments[0]), dynamicNames(sf, n), false, true);
    } else if (
      ts.isCallExpression(n) &&
      ts.isIdentifier(n.expression) &&
      /require/i.test(n.expression.text) &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    ) {
      // require() and createRequire'd functions (requireCjs('alawmulaw'))
      addImport(n.arguments[0].text, 'all', false, false);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      const q = n.qualifier;
      addImport(
        n.argument.literal.text,
        q ? new Set([ts.isIdentifier(q) ? q.text : q.left.getText(sf)]) : 'all',
        true,
        false,
      );
    }
    const mods = ts.canHaveModifiers(n) ? ts.getModifiers(n) : undefined;
    if (mods?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const isDefault = mods.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      if (ts.isVariableStatement(n)) {
        for (const d of n.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) exported(d.name.text, line(d));
          else
            for (const el of d.name.elements)
              if (ts.isBindingElement(el) && ts.isIdentifier(el.name)) exported(el.name.text, line(el));
        }
      } else if (isDefault) exported('default', line(n));
      else if ((n as TS.DeclarationStatement).name && ts.isIdentifier((n as TS.DeclarationStatement).name!)) {
        exported(((n as TS.DeclarationStatement).name as TS.Identifier).text, line(n));
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return facts;
}

/**
 * Every file's facts, from the cache of an earlier run where the file's text and this reader are unchanged: parsing
 * every file costs ~1 s of CPU, and three test files read the graph. The cache (node_modules/.cache/svc-source-graph/,
 * never committed) holds the facts of the last run's files by a hash of each one's text; it is rewritten whole
 * (written aside, then renamed into place) when a file had to be parsed. The readers of a run start at once: the
 * one that parses holds a lock, and the others wait for it and take its facts (cold, three parsed all: ~7 s of CPU).
 */
function readFacts(root: string, files: string[]): FileFacts[] {
  const version = createHash('sha1')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(readFileSync(join(root, 'node_modules', 'typescript', 'package.json')))
    .digest('hex');
  const cacheFile = join(root, 'node_modules', '.cache', 'svc-source-graph', 'facts.json');
  const texts = files.map((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const key = createHash('sha1')
      .update(`${file.endsWith('.ts') ? 'ts' : 'js'}\0${text}`)
      .digest('hex');
    return { file, text, key };
  });
  let cached = readCache(cacheFile, version);
  if (texts.every(({ key }) => cached[key])) return texts.map(({ key }) => cached[key]!);
  const unlock = lockCache(`${cacheFile}.lock`);
  try {
    cached = readCache(cacheFile, version);
    const kept: Record<string, FileFacts> = {};
    let parsed = 0;
    const facts = texts.map(({ file, text, key }) => {
      if (!cached[key]) parsed++;
      kept[key] = cached[key] ?? parseFile(file, text);
      return kept[key];
    });
    if (parsed) {
      const temp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ version, facts: kept }));
      renameSync(temp, cacheFile);
    }
    return facts;
  } finally {
    unlock();
  }
}

function readCache(cacheFile: string, version: string): Record<string, FileFacts> {
  try {
    const c = JSON.parse(readFileSync(cacheFile, 'utf8')) as { version: string; facts: Record<string, FileFacts> };
    return c.version === version ? c.facts : {};
  } catch {
    return {}; // no cache yet, or an unreadable one: every file is parsed
  }
}

/**
 * Waits (synchronously: the graph is read as a test file is imported) until no other reader holds the lock, then
 * holds it; returns its release. A lock older than 30 s is a run's that was killed mid-parse: taken over.
 */
function lockCache(lock: string): () => void {
  mkdirSync(dirname(lock), { recursive: true });
  const sleep = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return () => {};
      try {
        if (Date.now() - statSync(lock).mtimeMs > 30_000) rmSync(lock, { force: true });
      } catch {} // released meanwhile
      Atomics.wait(sleep, 0, 0, 50);
    }
  }
}

export function readSourceGraph(root: string): SourceGraph {
  const files: string[] = [];
  for (const d of SCANNED) walk(root, d, files);
  const graph: SourceGraph = {
    exports: new Map(),
    reexportAll: new Map(),
    imports: [],
    packages: new Map(),
    functions: new Map(),
    files,
  };
  readFacts(root, files).forEach((facts, i) => {
    const file = files[i]!;
    const pkgs = new Set<string>();
    for (const { spec, names, typeOnly, dynamic } of facts.imports) {
      const pkg = packageOf(spec);
      if (pkg) pkgs.add(pkg);
      const resolvedSpec = /^\/(packages\/[^/]+\/)?dist\//.test(spec) ? join(root, spec.slice(1)) : spec;
      const to = resolveSpecifier(root, file, resolvedSpec);
      if (to)
        graph.imports.push({ from: file, to, names: names === 'all' ? 'all' : new Set(names), typeOnly, dynamic });
    }
    for (const spec of facts.reexportAll) {
      const to = resolveSpecifier(root, file, spec);
      if (to) graph.reexportAll.set(file, [...(graph.reexportAll.get(file) ?? []), to]);
    }
    if (isSource(file)) graph.exports.set(file, new Map(facts.exported));
    graph.packages.set(file, pkgs);
    graph.functions.set(file, { count: facts.functionCount, long: facts.longFunctions });
  });
  return graph;
}

/** Cycles of a module graph: its strongly connected components of more than one module (Tarjan), each sorted. */
export function cyclesOf(next: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!idx.has(v)) connect(v);
  return cycles;
}
