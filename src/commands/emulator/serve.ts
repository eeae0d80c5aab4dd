import { existsSync } from 'node:fs';
import { defineCommand } from '../../cmdutil/command.js';
import { integer, number, repeatable } from '../../core/validate.js';
import { FAULT_GRAMMAR, FaultList, type Fault } from 'svc-emulator/faults';
import { parseRateLimit, type RateLimit } from 'svc-emulator/rate-limit';
import { fail } from '../../core/validate.js';

const faultParser = repeatable<Fault>((raw, flag) => {
  try {
    return FaultList.parse(raw);
  } catch (err) {
    return fail(flag, raw, `${(err as Error).message} (${FAULT_GRAMMAR})`);
  }
});

const rateLimitParser = (raw: string, flag: string): RateLimit => {
  try {
    return parseRateLimit(raw);
  } catch (err) {
    return fail(flag, raw, (err as Error).message);
  }
};

/** `--collection NAME=PATH` (repeatable; a name given again gains the path) */
const collectionParser = (
  raw: string,
  flag: string,
  previous: Record<string, string[]> | undefined,
): Record<string, string[]> => {
  const i = raw.indexOf('=');
  if (i <= 0 || i === raw.length - 1) fail(flag, raw, 'NAME=FILE_OR_FOLDER');
  const name = raw.slice(0, i);
  const path = raw.slice(i + 1);
  if (!existsSync(path)) fail(flag, raw, 'an existing file or folder after NAME=');
  return { ...(previous ?? {}), [name]: [...(previous?.[name] ?? []), path] };
};

/** `--replay FILE`: the fixture loaded and checked before the emulator listens (a bad one is exit 2). */
async function replayOptions(opts: { replay?: string; replayStrict?: boolean; pace?: number }) {
  const { UsageError } = await import('../../core/errors.js');
  if (opts.replay === undefined) {
    if (opts.replayStrict || opts.pace !== undefined)
      throw new UsageError(`${opts.replayStrict ? '--replay-strict' : '--pace'} needs --replay FILE`);
    return undefined;
  }
  const { ReplayFixture, ReplayFixtureError } = await import('svc-emulator/replay');
  try {
    return { fixture: ReplayFixture.load(opts.replay), strict: opts.replayStrict, pace: opts.pace };
  } catch (err) {
    if (err instanceof ReplayFixtureError) throw new UsageError(`--replay ${opts.replay}: ${err.message}`);
    throw err;
  }
}

export default defineCommand({
  description:
    'Prints the base URL on stdout (with --print-env: `export SVC_BASE_URL=…`, SVC_API_KEY and ' +
    'SVC_EMULATOR_PID lines for eval; then it lets go of stdout, so `eval "$(… &)"` returns) and the key to use ' +
    'on stderr, then serves every endpoint of the API with its documented behaviour until Ctrl-C (exit 0) or ' +
    'SIGTERM (exit 143). --ready-file PATH is written (SVC_BASE_URL=… and SVC_API_KEY=… lines, for `set -a; .` ' +
    'or $GITHUB_ENV) once it accepts requests, and removed when it stops; GET /_emulator/health answers 200 ' +
    'too. State is kept in --state-dir (default: the data dir), so it survives restarts; every acknowledged ' +
    'change is on disk before the reply. --host 0.0.0.0 prints loopback URLs; off loopback the admin API ' +
    '/_emulator/* needs the admin token it prints (or $SVC_EMULATOR_ADMIN_TOKEN). --rate-limit answers 429 with ' +
    'Retry-After beyond its limits. See packages/emulator/README.md for fixtures, determinism, triggers, faults ' +
    'and rate limits.',
  options: [
    {
      flags: '--port <n>',
      description: 'port to listen on (0: any free port)',
      default: 0,
      parse: integer({ min: 0, max: 65535 }),
    },
    { flags: '--host <addr>', description: 'address to listen on', default: '127.0.0.1' },
    { flags: '--state-dir <dir>', description: 'where the state is kept (default: <data dir>/emulator)' },
    { flags: '--memory', description: 'keep no state on disk' },
    {
      flags: '--fixtures <file>',
      description:
        'seed agents, phone numbers, files, skills, custom voices, collections and keys from a JSON or YAML ' +
        'file (again after `svc emulator reset`)',
    },
    {
      flags: '--seed <n>',
      description: 'make ids, tokens and generated text, images and audio repeat exactly across runs (0-4294967295)',
      parse: integer({ min: 0, max: 4294967295 }),
    },
    {
      flags: '--print-env',
      description:
        'print `export SVC_BASE_URL=…`, `SVC_API_KEY` and `SVC_EMULATOR_PID` lines on stdout (for eval) instead of ' +
        'the URL',
    },
    {
      flags: '--ready-file <path>',
      description: 'write the SVC_BASE_URL/SVC_API_KEY lines to PATH once ready (removed on exit)',
    },
    { flags: '--latency <ms>', description: 'delay added before every reply', parse: integer({ min: 0, max: 60000 }) },
    {
      flags: '--token-delay <ms>',
      description: 'pause between streamed tokens',
      parse: integer({ min: 0, max: 60000 }),
    },
    {
      flags: '--deferred-delay <ms>',
      description: 'how long deferred completions stay pending',
      parse: integer({ min: 0, max: 3600000 }),
    },
    {
      flags: '--collection <name=path>',
      description: 'a document collection (for documents search) made of a file or folder (repeatable)',
      parse: collectionParser,
    },
    {
      flags: '--rate-limit <rpm[,tpm]>',
      description:
        'answer 429 with Retry-After and x-ratelimit-* headers beyond RPM requests (and TPM estimated tokens) ' +
        'per minute per key',
      parse: rateLimitParser,
    },
    {
      flags: '--strict',
      description:
        'answer 400 naming a request field the API document does not describe (default: an x-emulator-warning ' +
        'reply header and a note in the request log), so CI catches a typo the real API might ignore',
    },
    {
      flags: '--replay <file>',
      description:
        'answer requests that match a recording of `svc emulator record` with the recorded reply (method, path, ' +
        "query and body fields; see packages/emulator/README.md); others get the emulator's own answer",
    },
    { flags: '--replay-strict', description: 'with --replay: 404 naming the closest recording when none matches' },
    {
      flags: '--pace <factor>',
      description: 'with --replay: times the recorded pacing of streams and sessions (0-100; 0: at once)',
      parse: number({ min: 0, max: 100 }),
    },
    {
      flags: '--fault <spec>',
      description: 'inject a fault (repeatable): 429:retry-after=1, 500:path=/v1/chat, drop:after=3, slow:ms=500',
      parse: faultParser,
    },
  ],
  examples: [
    'svc emulator serve --port 8080',
    'eval "$(svc emulator serve --print-env --memory 2>/dev/null &)"; svc models list; kill $SVC_EMULATOR_PID',
    'svc emulator serve --memory --rate-limit 60,100000',
    'svc emulator serve --memory --seed 1 --fixtures ci/fixtures.yaml --ready-file /tmp/svc-ready &',
    'svc emulator serve --fault 429:retry-after=1:times=2',
    'svc emulator serve --memory --replay ci/session.json --replay-strict --pace 0',
  ],
  async run(ctx, _args, opts) {
    const { startEmulator, isLoopback } = await import('svc-emulator');
    const { loadFixtures, FixtureError } = await import('svc-emulator/fixtures');
    const { emulatorStateDir } = await import('../../core/paths.js');
    const { randomBytes } = await import('node:crypto');
    const { UsageError } = await import('../../core/errors.js');
    const fixtures = opts.fixtures
      ? await loadFixtures(opts.fixtures).catch((err: Error) => {
          throw new UsageError(`--fixtures: ${err.message}`);
        })
      : undefined;
    const replay = await replayOptions(opts);
    // Off loopback the admin API (which adds keys) would be open to the network: it needs a token there.
    const offLoopback = !isLoopback(opts.host);
    const adminToken = ctx.env.SVC_EMULATOR_ADMIN_TOKEN || (offLoopback ? randomBytes(24).toString('hex') : undefined);
    let emu: Awaited<ReturnType<typeof startEmulator>>;
    try {
      emu = await startEmulator({
        adminToken,
        port: opts.port,
        host: opts.host,
        stateDir: opts.memory ? undefined : (opts.stateDir ?? emulatorStateDir(ctx.env)),
        latencyMs: opts.latency,
        tokenDelayMs: opts.tokenDelay,
        deferredDelayMs: opts.deferredDelay,
        faults: opts.fault,
        collections: opts.collection,
        seed: opts.seed,
        rateLimit: opts.rateLimit,
        strict: opts.strict,
        replay,
        fixtures,
      });
    } catch (err) {
      if (err instanceof FixtureError) throw new UsageError(`--fixtures ${opts.fixtures}: ${err.message}`);
      throw err;
    }
    // the emulator's built-in key is public (it is in the docs), so printing it leaks nothing
    const { envLines, exportLines, releaseStdout } = await import('svc-emulator/start-lines');
    const env = envLines(emu.url, emu.defaultKey);
    if (opts.readyFile) {
      const { writeFileAtomic } = await import('../../core/atomic-file.js');
      await writeFileAtomic(opts.readyFile, env);
    }
    if (opts.printEnv) ctx.out.write(exportLines(emu.url, emu.defaultKey));
    else ctx.out.line(emu.url);
    // the URL is what a client needs: a stdout that failed (a full disk) ends the run, not an emulator none can find
    const stdout = ctx.out.stdoutGuard;
    await stdout.settle();
    if (stdout.failure) {
      await emu.close();
      if (opts.readyFile) (await import('node:fs')).rmSync(opts.readyFile, { force: true });
      throw stdout.failure;
    }
    // nothing more goes to stdout: a command substitution or a pipe reading it gets its end now
    await releaseStdout(ctx.streams.stdout);
    ctx.out.info(`svc emulator listening on ${emu.url} (WebSocket ${emu.wsUrl}); Ctrl-C stops it`);
    ctx.out.info(`key: ${emu.defaultKey} (or: svc --emulator …, which uses it by itself)`);
    ctx.out.info(`use it with: export SVC_BASE_URL=${emu.url} SVC_API_KEY=${emu.defaultKey}`);
    if (offLoopback)
      ctx.out.warn(
        `listening on ${opts.host}: the API (with the built-in key) is reachable from the network; the admin ` +
          `API /_emulator/* needs the admin token`,
      );
    if (adminToken && !ctx.env.SVC_EMULATOR_ADMIN_TOKEN)
      ctx.out.info(
        `admin token: ${adminToken} (export SVC_EMULATOR_ADMIN_TOKEN=… for svc emulator requests/fault/trigger/reset)`,
      );
    await new Promise<void>((resolve) => {
      ctx.setInterruptHandler(resolve);
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await emu.close();
    if (opts.readyFile) {
      const { rmSync } = await import('node:fs');
      rmSync(opts.readyFile, { force: true });
    }
    ctx.out.info('emulator stopped');
    return 0;
  },
});
