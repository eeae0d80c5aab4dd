// The launcher and the command tree: --version, help, usage errors, pipes, NO_COLOR.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInThisContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandNode } from '../src/cmdutil/command.js';
import { rootCommands } from '../src/commands/index.js';
import { ROOT, tempDir } from './helpers/files.js';
import { isLauncher, launcherSource } from './helpers/run-env.js';
import { startTestEmulator, type TestEmulator } from './helpers/emulator.js';
import { makePrivateCa, startTlsFront, type TlsFront } from './helpers/private-ca.js';
import { svcInProcess } from './helpers/in-process.js';
import { nodeProgramAsync, svcInstalled, svcProcess, svcShell } from './helpers/subprocess.js';
import { svcOnTerminal } from './helpers/terminal.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

let tls: Promise<{ SVC_BASE_URL: string; SVC_CA_CERT: string }> | undefined;
let front: TlsFront | undefined;
/** The emulator behind a TLS front whose private CA is trusted through SVC_CA_CERT (made once, on first use). */
function privateTls(): Promise<{ SVC_BASE_URL: string; SVC_CA_CERT: string }> {
  tls ??= (async () => {
    const ca = makePrivateCa();
    front = await startTlsFront(ca, new URL(emu.url).host);
    return { SVC_BASE_URL: front.url, SVC_CA_CERT: ca.caFile };
  })();
  return tls;
}
afterAll(() => front?.close());

describe('svc --version', () => {
  it('prints the package version and imports no command module (nor the CLI itself)', async () => {
    const trace = join(tempDir(), 'imports.txt');
    const r = await svcProcess(['--version'], {
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: { SVC_TRACE_IMPORTS: trace },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some(isLauncher)).toBe(true);
    expect(loaded.filter((u) => u.includes('/dist/'))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });

  // into a pipe the page the build rendered (dist/bundle/help/_options.txt, _overview.txt), as the CLI prints it there
  it('svc --help and bare svc print, into a pipe, the same as the CLI with nothing of it loaded', async () => {
    for (const [args, cli] of [
      [['--help'], ['help']],
      [['-h'], ['help']],
      [[], ['--quiet']],
    ]) {
      const trace = join(tempDir(), 'imports.txt');
      const r = await svcProcess(args, {
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
        env: { SVC_TRACE_IMPORTS: trace },
      });
      const rendered = await svcInProcess(cli);
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      expect([rendered.exitCode, rendered.stderr]).toEqual([0, '']);
      expect(r.stdout).toBe(rendered.stdout);
      expect(r.stdout).toMatch(args.length ? /^Usage: svc \[options\] \[command\]/ : /^svc: the command line/);
      const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      expect(loaded.filter((u) => u.includes('/dist/') || u.includes('/node_modules/'))).toEqual([]);
    }
  });
});

describe('svc models list', () => {
  // the bundle (what runs) and the ES modules in dist/ (after a bare tsc, or SVC_NO_BUNDLE=1)
  for (const mode of ['bundle', 'modules'] as const) {
    it(`loads no module of another command and no HTTP/2 code (${mode})`, async () => {
      const trace = join(tempDir(), 'imports.txt');
      const r = await svcProcess(['models', 'list'], {
        emu,
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
        env: { SVC_TRACE_IMPORTS: trace, SVC_NO_BUNDLE: mode === 'modules' ? '1' : undefined },
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^svc-4\t/m);
      const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      const commands = loaded.filter((u) => /\/dist\/(bundle\/)?commands\//.test(u));
      expect(commands.some((u) => /\/commands\/models\/list[.-]/.test(u))).toBe(true);
      expect(commands.filter((u) => !/\/dist\/(bundle\/)?commands\/(index\.js|models\/)/.test(u))).toEqual([]);
      expect(loaded.filter((u) => /http2|client-h2/.test(u) && !u.startsWith('deferred:'))).toEqual([]);
      // without a proxy, a CA setting or a client certificate the request goes over node:http (net/direct-http.ts):
      // nothing of undici is loaded, nor node:https for a plain http:// origin
      expect(loaded.some((u) => /\/dist\/(bundle\/)?net\/direct-http[.-]/.test(u))).toBe(true);
      expect(loaded.filter((u) => /undici|llhttp|v8-flags|http-parser/.test(u))).toEqual([]);
      expect(loaded.filter((u) => /^node:https$/.test(u))).toEqual([]);
      expect(loaded.some((u) => u.includes('/dist/bundle/'))).toBe(mode === 'bundle');
      // the --json field table and its projection only with --json
      expect(loaded.filter((u) => /\/(endpoints|term|shared)\/json-fields[.-]/.test(u))).toEqual([]);
    });
  }

  it('loads the --json field table and its projection for --json FIELD,FIELD, and checks the names', async () => {
    const trace = join(tempDir(), 'imports.txt');
    const run = (args: string[]) =>
      svcProcess(args, {
        emu,
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
        env: { SVC_TRACE_IMPORTS: trace },
      });
    const r = await run(['models', 'list', '--json', 'id,owned_by']);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout.split('\n')[0]).toBe('{"id":"svc-4","owned_by":"svc"}');
    const loaded = readFileSync(trace, 'utf8').split('\n');
    expect(loaded.filter((u) => /\/(endpoints|term|shared)\/json-fields[.-]/.test(u))).toHaveLength(2);
    const bad = await run(['models', 'list', '--json=id,nope']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--json: unknown field "nope" for svc models list; valid: aliases, created, .*owned_by/);
  });

  it('goes through undici for an https origin with a CA of its own (SVC_CA_CERT)', async () => {
    const trace = join(tempDir(), 'imports.txt');
    const r = await svcProcess(['models', 'list'], {
      emu,
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: { SVC_TRACE_IMPORTS: trace, ...(await privateTls()) },
    });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^svc-4\t/m);
    const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((u) => /\/dist\/bundle\/net\/undici-h1/.test(u))).toBe(true);
    expect(loaded.filter((u) => /direct-http/.test(u))).toEqual([]);
    // the bundle's undici reads node:http's maxHeaderSize and IncomingMessage only when used (scripts/bundle.mjs)
    expect(loaded.filter((u) => /^node:(_?http)/.test(u))).toEqual([]);
  });

  it('goes over node:http to a loopback origin that network settings leave alone (a proxy, CA files)', async () => {
    // the environment's proxy never carries loopback; SSL_CERT_FILE is for https origins: undici (~4 ms) has no use
    const trace = join(tempDir(), 'imports.txt');
    const r = await svcProcess(['models', 'list'], {
      emu,
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: {
        SVC_TRACE_IMPORTS: trace,
        HTTP_PROXY: 'http://127.0.0.1:9',
        SSL_CERT_FILE: (await privateTls()).SVC_CA_CERT,
      },
    });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^svc-4\t/m);
    const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((u) => /direct-http/.test(u))).toBe(true);
    expect(loaded.filter((u) => /undici/.test(u))).toEqual([]);
  });

  // Node compiles the functions of its own modules anew in every process (its code cache holds only their tops):
  // each one a request needs beyond what a plain node:http script calls is paid by every run (docs/performance.md,
  // issue 41, third round). V8's --print-bytecode names a function when it compiles it.
  it.each([
    // the reply read by its events, not by the stream's async iterator (net/direct-http.ts text())
    'createAsyncIterator',
    // the call log's budget scope, made by a reservation only (apilog/recorder.ts)
    'AsyncLocalStorage',
  ])("compiles none of Node's %s", async (name) => {
    const r = await svcProcess(['models', 'list'], {
      emu,
      nodeArgs: ['--print-bytecode', `--print-bytecode-filter=${name}`],
    });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^svc-4\t/m);
    expect(r.stdout).not.toContain(`[generated bytecode for function: ${name} `);
  });

  it('loads bundle files of ASCII only (V8 keeps them one byte per character, not decoded to UTF-16)', async () => {
    const chunks = (await bundleFilesLoaded(['chat', '--no-stream', 'hi'])).map((u) => fileURLToPath(u));
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.filter((f) => !readFileSync(f).every((byte) => byte < 0x80))).toEqual([]);
  });

  // each chunk is written inside its wrapper (scripts/bundle.mjs): Node 20's launcher compiles the file as it is,
  // Node's own loader (Node >= 22, SVC_NO_COMPILE_CACHE, a worker) wraps it once more
  it('runs a chunk alike when Node wraps it again and when it is compiled as the wrapper it is', async () => {
    const shared = join(ROOT, 'dist/bundle/shared');
    const file = join(shared, readdirSync(shared).find((f) => f.startsWith('iso-time-')) ?? 'iso-time-');
    const byLoader = createRequire(import.meta.url)(file);
    const mod = { exports: {} as Record<string, (ms: number) => string> };
    const wrapper = runInThisContext(readFileSync(file, 'utf8'), { filename: file });
    wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, shared);
    expect(Object.keys(mod.exports)).toEqual(Object.keys(byLoader));
    expect(Object.values(mod.exports).map((isoTime) => isoTime(0))).toEqual(['1970-01-01T00:00:00.000Z']);
    const plain = await svcProcess(['chat', '--no-stream', 'hi'], { emu, env: { SVC_NO_COMPILE_CACHE: '1' } });
    const cached = await svcProcess(['chat', '--no-stream', 'hi'], { emu });
    expect([plain.exitCode, plain.stderr, plain.stdout]).toEqual([0, '', cached.stdout]);
    expect(cached.stdout).not.toBe('');
  });

  // each Node module a run loads beyond what a node:http script making a request loads costs its load in every
  // process (docs/performance.md, issue 41, sixth round): node:module and its source maps were one (a bundled
  // import); the launcher's code cache is the one allowed: node:vm on Node 20, node:module (and its source maps) on
  // Node 22 and later
  it.each(['models list', 'chat --no-stream hi'])(
    'svc %s loads no Node module that a node:http script does not',
    async (line) => {
      const dir = tempDir();
      const trace = (file: string) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
      const nodeArgs = ['--require', join(ROOT, 'test/fixtures/trace-builtins.cjs')];
      writeFileSync(
        join(dir, 'get.mjs'),
        `import http from 'node:http';
http.get(process.env.URL + '/v1/models', { headers: { authorization: 'Bearer ' + process.env.KEY } }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (c) => (body += c));
  res.on('end', () => process.stdout.write(JSON.parse(body).data[0].id + '\\n'));
});`,
      );
      const script = await nodeProgramAsync(join(dir, 'get.mjs'), {
        nodeArgs,
        env: { PATH: process.env.PATH, URL: emu.url, KEY: emu.key, SVC_TRACE_BUILTINS: join(dir, 'script.txt') },
      });
      expect([script.exitCode, script.stdout, script.stderr]).toEqual([0, 'svc-4\n', '']);
      const r = await svcProcess(line.split(' '), { emu, nodeArgs, env: { SVC_TRACE_BUILTINS: join(dir, 'svc.txt') } });
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      const codeCache =
        Number(process.versions.node.split('.')[0]) >= 22
          ? ['node:module', 'node:internal/source_map/source_map']
          : ['node:vm'];
      const allowed = new Set([...trace('script.txt'), ...codeCache]);
      expect(trace('svc.txt').filter((m) => !allowed.has(m))).toEqual([]);
    },
  );

  // a simple command line is read without commander (cmdutil/simple-line.ts); commander, in a chunk of its own,
  // reads the rest: help, errors, the rarer syntax (test/cmdutil/simple-line.test.ts compares the two readings)
  it('loads no commander for a simple command line, and commander for one it leaves to it', async () => {
    const commanderLoaded = async (args: string[]) => {
      const chunks = await bundleFilesLoaded(args);
      expect(chunks.some((u) => u.endsWith('/dist/bundle/cli.cjs'))).toBe(true);
      return chunks.some((u) => /\/dist\/bundle\/shared\/commander-[^/]+\.cjs$/.test(u));
    };
    expect(await commanderLoaded(['chat', '--no-stream', 'hi'])).toBe(false);
    expect(await commanderLoaded(['models', 'list'])).toBe(false);
    expect(await commanderLoaded(['models', 'list', '--kind=language'])).toBe(true);
  });
});

/** The bundle's files (URLs) a successful run of `args` loaded, in order (test/fixtures/trace-imports.cjs). */
async function bundleFilesLoaded(args: string[]): Promise<string[]> {
  const trace = join(tempDir(), 'imports.txt');
  const r = await svcProcess(args, {
    emu,
    nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
    env: { SVC_TRACE_IMPORTS: trace },
  });
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter((u) => u.includes('/dist/bundle/'));
}

describe('stderr', () => {
  // making process.stderr costs ~0.7 ms into a pipe (a socket and its handle): main() makes it when it is used
  it('is not made by a run that writes nothing there, and carries what a run writes there', async () => {
    const trace = join(tempDir(), 'stderr.txt');
    const opts = {
      emu,
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-stderr.cjs')],
      env: { SVC_TRACE_STDERR: trace },
    };
    const ok = await svcProcess(['models', 'list'], opts);
    expect([ok.exitCode, ok.stderr]).toEqual([0, '']);
    expect(existsSync(trace)).toBe(false);
    const failed = await svcProcess(['models', 'get', 'no-such-model'], opts);
    expect(failed.exitCode).toBe(5);
    expect(failed.stderr).toMatch(/^error: .*no-such-model/);
    expect(readFileSync(trace, 'utf8')).toMatch(/^Error: made/);
  });
});

describe("undici's HTTP parser", () => {
  // compiled ahead on V8's worker threads from the bundle's file (src/net/http-parser.ts), and that module is the one
  // undici instantiates; without the bundle undici compiles its own on the main thread, as it always does. undici
  // serves a request to an https origin with a CA of its own (the emulator behind a TLS front, privateTls())
  for (const mode of ['bundle', 'modules'] as const) {
    const how = mode === 'bundle' ? 'ahead, off the main thread, and used' : 'by undici itself';
    it(`is compiled ${how} (${mode})`, async () => {
      const trace = join(tempDir(), 'wasm.txt');
      const r = await svcProcess(['models', 'list'], {
        emu,
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-wasm.cjs')],
        env: { SVC_TRACE_WASM: trace, SVC_NO_BUNDLE: mode === 'modules' ? '1' : undefined, ...(await privateTls()) },
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^svc-4\t/m);
      const parserBytes = readFileSync(join(ROOT, 'dist/bundle/net/llhttp_simd.wasm')).length;
      const lines = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      expect(lines).toEqual(
        mode === 'bundle' ? [`async ${parserBytes}`, 'instance 0'] : [`sync ${parserBytes}`, 'instance 0'],
      );
    });
  }
});

describe("the launcher's code cache", () => {
  // Node ≥ 22.1 keeps the cache itself (module.enableCompileCache, its own file names, in the launcher's folder of
  // this Node and this copy); Node 20 gets the launcher's (a .bin file per bundle file, in a folder of the build)
  const nodeOwnCache = Number(process.versions.node.split('.')[0]) >= 22;
  const cacheFiles = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && (nodeOwnCache || e.name.endsWith('.bin')))
      .map((e) => join(e.parentPath, e.name));
  const buildId = () => readFileSync(join(ROOT, 'dist/bundle/build-id'), 'utf8').trim();

  it(
    'is written on the first run into a folder of the build, and a missing, corrupt or foreign cache changes ' +
      'nothing but speed',
    async () => {
      const cache = tempDir();
      const run = () => svcProcess(['models', 'list'], { emu, env: { SVC_CACHE_DIR: cache } });
      const first = await run();
      expect(first.exitCode).toBe(0);
      expect(first.stdout).toMatch(/^svc-4\t/m);
      const files = cacheFiles(cache);
      expect(files.length).toBeGreaterThan(3);
      const versionDir = join(cache, `v8-${process.version}-${process.arch}`);
      expect(files.every((f) => f.startsWith(versionDir + sep))).toBe(true);
      if (!nodeOwnCache) {
        expect(files.every((f) => dirname(f).endsWith(`${sep}${buildId()}`))).toBe(true);
        expect(files.some((f) => /cli\.cjs(\.f[a-z0-9]+)?\.bin$/.test(f))).toBe(true);
      }

      // from the cache: the same output
      const cached = await run();
      expect([cached.exitCode, cached.stdout, cached.stderr]).toEqual([0, first.stdout, first.stderr]);

      // corrupt: every cache file is garbage (V8 rejects it), the command runs as compiled from source and rewrites
      // them
      for (const f of files) writeFileSync(f, Buffer.alloc(64, 7));
      const corrupt = await run();
      expect([corrupt.exitCode, corrupt.stdout, corrupt.stderr]).toEqual([0, first.stdout, first.stderr]);
      expect(files.filter((f) => readFileSync(f).equals(Buffer.alloc(64, 7)))).toEqual([]);

      // foreign: each file holds the cache of another file (same V8, other source), and a truncated one
      const datas = files.map((f) => readFileSync(f));
      files.forEach((f, i) => writeFileSync(f, datas[(i + 1) % datas.length]!));
      writeFileSync(files[0]!, datas[0]!.subarray(0, datas[0]!.length >> 1));
      const foreign = await run();
      expect([foreign.exitCode, foreign.stdout, foreign.stderr]).toEqual([0, first.stdout, first.stderr]);

      // a cache folder of an older build is removed when this build writes its caches (the launcher's own cache:
      // Node's keys each file by its contents)
      if (nodeOwnCache) return;
      const copyDir = dirname(dirname(files[0]!));
      const old = join(copyDir, 'a0b1c2d3e4f5a6b7');
      mkdirSync(old);
      writeFileSync(join(old, 'cli.cjs.bin'), 'old');
      rmSync(files[0]!);
      const again = await run();
      expect([again.exitCode, again.stdout]).toEqual([0, first.stdout]);
      expect(existsSync(old)).toBe(false);
    },
  );

  // V8 rejects a cache made under other V8 flags, and svc sets some while a request runs (net/v8-flags.ts): the
  // caches of what loaded before are made at exit under the flags set back, so that they hold every function the run
  // compiled, those of the reply, the output and the call log included (made when the flags changed, they did not,
  // and every later run compiled those again). V8's --print-bytecode names a function when it compiles it: here the
  // call log's appendRecords (apilog/log.ts, in the request chunk, run at the end of every request command).
  it('holds what the whole first run compiled: a second run does not compile the call log again', async () => {
    const cache = tempDir();
    const compiles = async () => {
      const r = await svcProcess(['chat', '--no-stream', 'hi'], {
        emu,
        nodeArgs: ['--print-bytecode', '--print-bytecode-filter=appendRecords'],
        env: { SVC_CACHE_DIR: cache },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('This is the emulator');
      return r.stdout.includes('[generated bytecode for function: appendRecords ');
    };
    expect(await compiles()).toBe(true);
    // (Node ≥ 22 keeps its own cache, module.enableCompileCache, which holds less: there only the first run is shown)
    if (!nodeOwnCache) expect(await compiles()).toBe(false);
  });

  it('grows a cache another command made by what a command run first after it compiled there', async () => {
    const cache = tempDir();
    const requestCache = () =>
      readdirSync(cache, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && /^shared~request-.*\.bin$/.test(e.name))
        .map((e) => readFileSync(join(e.parentPath, e.name)).length);
    const run = async (args: string[]) => {
      const r = await svcProcess(args, { emu, env: { SVC_CACHE_DIR: cache } });
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
    };
    await run(['models', 'list']);
    const byModelsList = requestCache();
    await run(['chat', '--no-stream', 'hi']);
    const withChat = requestCache();
    await run(['models', 'list']);
    // (Node >= 22 keeps its own cache, module.enableCompileCache, with no such file)
    expect(byModelsList.length).toBe(nodeOwnCache ? 0 : 1);
    if (!nodeOwnCache) expect(withChat[0]).toBeGreaterThan(byModelsList[0] ?? 0);
    expect(requestCache()).toEqual(withChat);
  });

  it('a cache folder that cannot be written is no error', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, '');
    const r = await svcProcess(['models', 'list'], { emu, env: { SVC_CACHE_DIR: file } });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^svc-4\t/m);
  });
});

describe('a broken bundle', () => {
  it('is said (its error, exit 1), not hidden by a silent fall-back to the ES modules in dist/', async () => {
    // a copy of the package, run as an installed one: the launcher, the ES modules, a bundle that throws as it loads
    const copy = tempDir();
    const bin = join(copy, 'bin');
    const dist = join(copy, 'dist');
    mkdirSync(bin);
    mkdirSync(join(dist, 'bundle'), { recursive: true });
    writeFileSync(join(bin, 'svc'), launcherSource(), { mode: 0o755 });
    // the ES modules older than the bundle, so that the bundle is fresh
    writeFileSync(join(dist, 'cli.js'), "console.log('the ES modules ran');\n");
    utimesSync(join(dist, 'cli.js'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    writeFileSync(join(dist, 'bundle', 'cli.cjs'), "throw new Error('this build is broken');\n");
    const r = await svcInstalled(copy, ['models', 'list'], { emu, env: { SVC_CACHE_DIR: join(copy, 'cache') } });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain('this build is broken');
    expect(r.stdout).toBe('');
  });
});

describe('help pages rendered at build time', () => {
  const page = (words: string[]) => join(ROOT, 'dist/bundle/help', `${words.join('/')}.txt`);
  // what a pseudo-terminal shows of a run's output: its line discipline turns \n into \r\n (onlcr), and
  // svcOnTerminal's screen ends without the last line break
  const asTerminalShows = (out: string) => out.replace(/\n/g, '\r\n').replace(/\r\n$/, '');

  it(
    'every group and command has one, and into a pipe it is what commander prints there, with nothing of the ' +
      'CLI loaded',
    async () => {
      const missing: string[] = [];
      const walk = async (nodes: CommandNode[], prefix: string[]): Promise<void> => {
        for (const n of nodes) {
          if (!existsSync(page([...prefix, n.name]))) missing.push([...prefix, n.name].join(' '));
          if (n.children) await walk(await n.children(), [...prefix, n.name]);
        }
      };
      await walk(rootCommands, []);
      expect(missing).toEqual([]);

      for (const words of [['chat'], ['models'], ['models', 'list'], ['conversations', 'list']]) {
        const trace = join(tempDir(), 'imports.txt');
        const fast = await svcProcess([...words, '--help'], {
          nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
          env: { SVC_TRACE_IMPORTS: trace },
        });
        // commander, in the CLI run in-process into a pipe (the same command tree the launcher falls back to)
        const rendered = await svcInProcess([...words, '--help']);
        expect([fast.exitCode, fast.stderr]).toEqual([0, '']);
        expect([rendered.exitCode, rendered.stderr]).toEqual([0, '']);
        expect(fast.stdout).toBe(rendered.stdout);
        expect(fast.stdout).toBe(readFileSync(page(words), 'utf8'));
        expect(
          readFileSync(trace, 'utf8')
            .split('\n')
            .filter((u) => u.includes('/dist/') || u.includes('/node_modules/')),
        ).toEqual([]);
      }
    },
  );

  it("svc help <command…> prints the same page, without the CLI; a help topic is the CLI's", async () => {
    const trace = join(tempDir(), 'imports.txt');
    const r = await svcProcess(['help', 'models', 'list'], {
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: { SVC_TRACE_IMPORTS: trace },
    });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, readFileSync(page(['models', 'list']), 'utf8'), '']);
    expect(
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((u) => u.includes('/dist/') || u.includes('/node_modules/')),
    ).toEqual([]);
    const onTerminal = await svcOnTerminal(['help', 'chat'], { cols: 100 });
    expect(onTerminal.screen).toBe(
      asTerminalShows((await svcInProcess(['chat', '--help'], { tty: true, columns: 100 })).stdout),
    );
    const topic = await svcInProcess(['help', 'globals']);
    expect([topic.exitCode, topic.stdout]).toEqual([0, expect.stringContaining('--json')]);
    // the help command's own help is its page too
    const trace2 = join(tempDir(), 'imports.txt');
    const own = await svcProcess(['help', '--help'], {
      nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
      env: { SVC_TRACE_IMPORTS: trace2 },
    });
    expect([own.exitCode, own.stdout]).toEqual([0, readFileSync(page(['help']), 'utf8')]);
    expect(
      readFileSync(trace2, 'utf8')
        .split('\n')
        .filter((u) => u.includes('/dist/') || u.includes('/node_modules/')),
    ).toEqual([]);
  });

  it('without a page (an alias, a prompt word) the CLI renders help; -h is --help', async () => {
    const alias = await svcProcess(['models', 'ls', '--help']);
    expect(alias.exitCode).toBe(0);
    expect(alias.stdout).toBe(readFileSync(page(['models', 'list']), 'utf8'));
    const short = await svcProcess(['models', 'list', '-h']);
    expect([short.exitCode, short.stdout]).toEqual([0, alias.stdout]);
    const word = await svcProcess(['embed', 'hello', '--help']);
    expect(word.exitCode).toBe(0);
    expect(word.stdout).toBe(readFileSync(page(['embed']), 'utf8'));
  });

  it(
    "on a terminal, help is laid out at its width from the page's layout, as commander renders it, with " +
      'nothing of the CLI loaded',
    async () => {
      let wide = '';
      for (const cols of [80, 120]) {
        for (const words of [['chat'], ['models'], ['models', 'list']]) {
          const trace = join(tempDir(), 'imports.txt');
          const fast = await svcOnTerminal([...words, '--help'], {
            cols,
            env: {
              NODE_OPTIONS: `--require ${join(ROOT, 'test/fixtures/trace-imports.cjs')}`,
              SVC_TRACE_IMPORTS: trace,
            },
          });
          // commander in the CLI, run in-process on a terminal of the same width
          const rendered = await svcInProcess([...words, '--help'], { tty: true, columns: cols });
          expect([fast.exitCode, rendered.exitCode]).toEqual([0, 0]);
          expect(fast.screen).toBe(asTerminalShows(rendered.stdout));
          expect(fast.screen).toMatch(new RegExp(`^Usage: svc ${words.join(' ')}`));
          const loaded = readFileSync(trace, 'utf8')
            .split('\n')
            .filter((u) => u.includes('/dist/') || u.includes('/node_modules/'));
          expect(loaded.map((u) => u.slice(u.indexOf('/dist/')))).toEqual(['/dist/bundle/help-layout.cjs']);
          if (cols === 120 && words.join(' ') === 'chat') wide = fast.screen;
        }
      }
      // wider than 80 columns, descriptions use the width (the page into a pipe is wrapped at 80): svc chat --help
      // at 120 columns, as shown above
      expect(
        Math.max(
          ...wide
            .split(/\r?\n/)
            .filter((l) => l.startsWith('  -'))
            .map((l) => l.trimEnd().length),
        ),
      ).toBeGreaterThan(80);
    },
  );

  it('on a narrow terminal, help is wrapped at its width', async () => {
    const r = await svcOnTerminal(['models', 'list', '--help'], { cols: 60 });
    const rendered = await svcInProcess(['models', 'list', '--help'], { tty: true, columns: 60 });
    expect(r.screen).toBe(asTerminalShows(rendered.stdout));
    const lines = r.screen.split(/\r?\n/);
    expect(lines.some((l) => l.startsWith('Usage: svc models list'))).toBe(true);
    // examples and the pointer to the global options too (test/term/help-layout.test.ts: 40 columns)
    expect(Math.max(...lines.map((l) => l.trimEnd().length))).toBeLessThanOrEqual(60);
    expect(
      readFileSync(page(['models', 'list']), 'utf8')
        .split('\n')
        .some((l) => l.length > 60),
    ).toBe(true);
  });
});

describe('stdin from the null device', () => {
  it(
    'is empty without a file stream: svc chat takes the prompt from its words, or says there is none ' + '(exit 2)',
    async () => {
      const trace = join(tempDir(), 'imports.txt');
      const r = await svcProcess(['chat', '--no-stream', 'hi'], {
        emu,
        inputFile: '/dev/null',
        nodeArgs: ['--require', join(ROOT, 'test/fixtures/trace-imports.cjs')],
        env: { SVC_TRACE_IMPORTS: trace },
      });
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toContain('"hi"');
      // what a file stream on a device would have loaded
      expect(
        readFileSync(trace, 'utf8')
          .split('\n')
          .filter((u) => /^node:internal\/(fs\/streams|fs\/promises|readline\/)/.test(u)),
      ).toEqual([]);
      const none = await svcProcess(['chat', '--no-stream'], { emu, inputFile: '/dev/null' });
      expect(none.exitCode).toBe(2);
      expect(none.stderr).toContain('no prompt');
      // a file and a pipe are read as before
      const file = join(tempDir(), 'prompt.txt');
      writeFileSync(file, 'from a file\n');
      const fromFile = await svcProcess(['chat', '--no-stream'], { emu, inputFile: file });
      expect([fromFile.exitCode, fromFile.stdout]).toEqual([0, expect.stringContaining('"from a file"')]);
      const piped = await svcProcess(['chat', '--no-stream', 'hi'], { emu, input: 'piped' });
      expect([piped.exitCode, piped.stdout]).toEqual([0, expect.stringContaining('"hi piped"')]);
    },
  );
});

describe('the command tree', () => {
  it('an unknown command or option is a usage error (exit 2) with a suggestion', async () => {
    const r = await svcInProcess(['modles']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'modles'/);
    expect(r.stderr).toMatch(/\(did you mean models\?\)/);
    const o = await svcInProcess(['models', 'list', '--kindd', 'x']);
    expect(o.exitCode).toBe(2);
    expect(o.stderr).toMatch(/unknown option '--kindd'/);
  });

  it('a group without a verb shows its help on stderr and exits 2', async () => {
    const r = await svcInProcess(['models']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Usage: svc models/);
    expect(r.stderr).toMatch(/list\|ls/);
  });

  it(
    'help of a command lists its flags under headings, examples, and points to the global options in ' + 'one line',
    async () => {
      const r = await svcInProcess(['chat', '--help']);
      expect(r.exitCode).toBe(0);
      for (const flag of ['--temperature', '--schema', '--deferred', 'Examples:']) expect(r.stdout).toContain(flag);
      for (const heading of ['Model:', 'Sampling:', 'Output:', 'Tools:'])
        expect(r.stdout).toMatch(new RegExp(`^${heading}$`, 'm'));
      // the temperature is listed under Sampling, not under Options
      const sampling = r.stdout.slice(r.stdout.indexOf('\nSampling:'));
      expect(sampling.slice(0, sampling.indexOf('\n\n'))).toContain('--temperature');
      // the global options once, at the top level; here a single pointer
      expect(r.stdout).not.toContain('--max-retries');
      expect(r.stdout).not.toContain('Global Options:');
      expect(r.stdout.match(/svc help globals/g)).toHaveLength(1);
      const top = await svcInProcess(['--help']);
      expect(top.stdout).toContain('--max-retries');
    },
  );

  it('a closed pipe is not an error: `svc models list | head -1` exits 0 quietly', async () => {
    const r = await svcShell('svc models list --kind language | head -1', { emu });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('');
  });

  // Colour is decided from behaviour only (what reaches the terminal), so the test holds whatever module decides it.
  it(
    'FORCE_COLOR=1 on a terminal colours the output; NO_COLOR=1 with everything else equal removes ' + 'every code',
    async () => {
      const SGR = /\u001b\[[0-9;]*m/;
      const coloured = await svcOnTerminal(['models', 'get', 'nope'], {
        emu,
        env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
      });
      const plain = await svcOnTerminal(['models', 'get', 'nope'], { emu, env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
      expect(coloured.exitCode).toBe(5);
      expect(plain.exitCode).toBe(5);
      expect(coloured.screen).toMatch(SGR);
      expect(coloured.screen).toMatch(/error/);
      expect(plain.screen).not.toMatch(SGR);
      const errorLine = (screen: string) =>
        screen
          .replace(new RegExp(SGR, 'g'), '')
          .split(/\r?\n/)
          .find((l) => l.startsWith('error: '))!;
      expect(errorLine(plain.screen)).toMatch(/^error: The model nope does not exist/);
      // the same words, only the codes differ
      expect(errorLine(coloured.screen).replace(/request id [\w-]+/, '')).toBe(
        errorLine(plain.screen).replace(/request id [\w-]+/, ''),
      );
    },
  );

  it('FORCE_COLOR=1 colours even a pipe; without it a pipe is plain', async () => {
    const SGR = /\u001b\[[0-9;]*m/;
    const forced = await svcInProcess(['models', 'get', 'nope'], {
      emu,
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    const piped = await svcInProcess(['models', 'get', 'nope'], { emu, env: { NO_COLOR: undefined } });
    expect(forced.exitCode).toBe(5);
    expect(forced.stderr).toMatch(SGR);
    expect(piped.stderr).not.toMatch(SGR);
    expect(piped.stderr).toMatch(/^error: /);
  });

  it('a table on a terminal is coloured with FORCE_COLOR=1 and plain with NO_COLOR=1', async () => {
    const SGR = /\u001b\[[0-9;]*m/;
    const coloured = await svcOnTerminal(['models', 'list'], { emu, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    const plain = await svcOnTerminal(['models', 'list'], { emu, env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
    expect(coloured.exitCode).toBe(0);
    expect(plain.exitCode).toBe(0);
    expect(coloured.screen).toMatch(SGR);
    expect(plain.screen).not.toMatch(SGR);
    expect(plain.screen).toContain('svc-4-mini');
  });
});
