// undici's parser compiled ahead (src/net/http-parser.ts): what it does with the bundle's file, a missing one and a
// broken one. The CLI runs (the module used by undici, the fallback without the bundle) are in test/cli.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileParserInBackground } from '../../src/net/http-parser.js';
import { ROOT, tempDir } from '../helpers/files.js';

const FILE = Symbol.for('svc.llhttpFile');
const COMPILED = Symbol.for('svc.llhttpModule');
const global = globalThis as Record<symbol, unknown>;

afterEach(() => {
  delete global[FILE];
  delete global[COMPILED];
});

describe('compileParserInBackground', () => {
  it('compiles the bundle’s parser and hands undici the module', async () => {
    global[FILE] = join(ROOT, 'dist/bundle/net/llhttp_simd.wasm');
    const ready = compileParserInBackground();
    expect(ready).toBeInstanceOf(Promise);
    await ready;
    const module = global[COMPILED] as WebAssembly.Module;
    expect(module).toBeInstanceOf(WebAssembly.Module);
    expect(WebAssembly.Module.exports(module).map((e) => e.name)).toEqual(
      expect.arrayContaining(['llhttp_alloc', 'llhttp_execute']),
    );
    // once there, not again
    expect(compileParserInBackground()).toBeUndefined();
  });

  it('starts nothing without the launcher’s path (no bundle) or without the file', () => {
    expect(compileParserInBackground()).toBeUndefined();
    global[FILE] = join(tempDir(), 'missing.wasm');
    expect(compileParserInBackground()).toBeUndefined();
    expect(global[COMPILED]).toBeUndefined();
  });

  it('leaves a broken file to undici: settles without a module and without a rejection', async () => {
    const file = join(tempDir(), 'broken.wasm');
    writeFileSync(file, 'not WebAssembly');
    global[FILE] = file;
    await expect(compileParserInBackground()).resolves.toBeUndefined();
    expect(global[COMPILED]).toBeUndefined();
  });
});
