// First build step. The index files that list a folder are generated first (scripts/gen-index.mjs: routes/index.ts,
// src/commands/index.ts). Then every module of each package's src/ compiled on its own to that package's dist/ with
// TypeScript's transpileModule (no type check), then each dist/ holds exactly what its src/ has (modules of deleted
// sources are removed). The packages build in dependency order: svc-formats, svc-emulator, then the CLI (the
// repository's root).
// The output is the same
// as tsc's, byte for byte (the code passes --isolatedModules). Types are checked by `npm run typecheck` (incremental),
// which `npm test` runs after biome and before the suite: this step takes ~3 s of CPU where tsc took ~10, and npm
// pack's prepack (a clean build) gets the same saving.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { writeIndexes } from './gen-index.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** the package folders, each with src/ and dist/, in dependency order */
const PACKAGES = [join(ROOT, 'packages', 'formats'), join(ROOT, 'packages', 'emulator'), ROOT];

const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

// tsconfig's module is NodeNext, whose format per file comes from package.json ("type": "module") and the
// extension; transpileModule reads no package.json, so the format is named here: .cts is CommonJS, .ts an ES module.
function buildPackage(dir) {
  const SRC = join(dir, 'src');
  const DIST = join(dir, 'dist');
  /** dist/bundle is the second step's (scripts/bundle.mjs), dist/exe the executables' (scripts/build-exe.mjs) */
  const NOT_OURS = [join(DIST, 'bundle'), join(DIST, 'exe')];
  const BUILT_LISTING = join(DIST, 'mcp', 'built-listing.js');
  const emitted = new Set();
  for (const file of walk(SRC)) {
    if (file.endsWith('.d.ts') || !/\.c?ts$/.test(file)) continue;
    const commonJs = file.endsWith('.cts');
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: {
        ...config.options,
        module: commonJs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ES2022,
        moduleResolution: commonJs ? ts.ModuleResolutionKind.Node10 : ts.ModuleResolutionKind.Bundler,
      },
    });
    if (diagnostics?.length) {
      process.stderr.write(
        ts.formatDiagnostics(diagnostics, {
          getCanonicalFileName: (f) => f,
          getCurrentDirectory: () => ROOT,
          getNewLine: () => '\n',
        }),
      );
      process.exit(1);
    }
    const out = join(DIST, relative(SRC, file))
      .replace(/\.cts$/, '.cjs')
      .replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    // the bundle step writes the MCP tool listing over this stub (scripts/bundle.mjs): a build alone (svc-emulator's
    // prepack, beside running tests) keeps the listing there
    if (out === BUILT_LISTING && existsSync(out)) {
      emitted.add(out);
      continue;
    }
    // an unchanged module is not rewritten: a build beside running tests (svc-emulator's prepack) never truncates one
    if (!existsSync(out) || readFileSync(out, 'utf8') !== outputText) writeFileSync(out, outputText);
    emitted.add(out);
  }

  // what a deleted or renamed source left behind
  for (const file of walk(DIST)) {
    if (!NOT_OURS.some((dir) => file.startsWith(`${dir}/`)) && !emitted.has(file)) rmSync(file);
  }
}
// the index files that list a folder (routes/, src/commands/) first: they are sources the compile reads
for (const path of writeIndexes(ROOT)) process.stderr.write(`build: wrote ${path} (generated: commit it)\n`);
for (const dir of PACKAGES) buildPackage(dir);
