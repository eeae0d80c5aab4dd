// `svc-emulator serve`: the emulator as a program of its own, with the flags of `svc emulator serve` (docs in
// README.md). State is kept in --state-dir when given, else in memory. A bad flag is exit 2 naming the flag, the
// value and what is allowed; Ctrl-C (exit 0) and SIGTERM (exit 143) stop it after closing every connection.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FAULT_GRAMMAR, FaultList, type Fault } from './state/faults.js';
import { parseRateLimit, type RateLimit } from './state/rate-limit.js';
import { envLines, exportLines, releaseStdout } from './http/start-lines.js';
import { FixtureError, loadFixtures } from './state/fixtures.js';
import { isLoopback, startEmulator } from './http/server.js';
import { ReplayFixture, ReplayFixtureError } from './replay/fixture.js';
import type { ReplayOptions } from './replay/replayer.js';

const USAGE = `usage: svc-emulator --version
       svc-emulator serve [--port N] [--host ADDR] [--state-dir DIR] [--fixtures FILE] [--seed N]
                          [--print-env] [--ready-file PATH] [--latency MS] [--token-delay MS] [--deferred-delay MS]
                          [--collection NAME=PATH]... [--fault SPEC]... [--rate-limit RPM[,TPM]]
                          [--strict] [--replay FILE [--replay-strict] [--pace FACTOR]]`;

class FlagError extends Error {}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string', default: '127.0.0.1' },
  'state-dir': { type: 'string' },
  fixtures: { type: 'string' },
  seed: { type: 'string' },
  'print-env': { type: 'boolean' },
  'ready-file': { type: 'string' },
  latency: { type: 'string' },
  'token-delay': { type: 'string' },
  'deferred-delay': { type: 'string' },
  collection: { type: 'string', multiple: true },
  fault: { type: 'string', multiple: true },
  'rate-limit': { type: 'string' },
  strict: { type: 'boolean' },
  replay: { type: 'string' },
  'replay-strict': { type: 'boolean' },
  pace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** Written in by scripts/build-exe.mjs (the single executable has no package.json beside it). */
declare const __SVC_EMULATOR_VERSION__: string | undefined;

/** The package's version and the Node that runs it (inside the single executable: the Node built into it). */
function versionLine(): string {
  const own =
    typeof __SVC_EMULATOR_VERSION__ === 'string'
      ? __SVC_EMULATOR_VERSION__
      : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const exe = typeof __SVC_EMULATOR_VERSION__ === 'string' ? ', single executable' : '';
  return `svc-emulator ${own} (Node.js ${process.version}${exe}, ${process.platform}-${process.arch})`;
}

function integerFlag(flag: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw new FlagError(`--${flag}: ${JSON.stringify(raw)} is not allowed (a whole number from 0 to ${max})`);
  return Number(raw);
}

function collections(raws: string[] = []): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const raw of raws) {
    const i = raw.indexOf('=');
    if (i <= 0 || i === raw.length - 1 || !existsSync(raw.slice(i + 1)))
      throw new FlagError(
        `--collection: ${JSON.stringify(raw)} is not allowed (NAME=FILE_OR_FOLDER, an existing path)`,
      );
    (out[raw.slice(0, i)] ??= []).push(raw.slice(i + 1));
  }
  return out;
}

function faults(raws: string[] = []): Fault[] {
  return raws.map((raw) => {
    try {
      return FaultList.parse(raw);
    } catch (err) {
      throw new FlagError(
        `--fault: ${JSON.stringify(raw)} is not allowed: ${(err as Error).message} (${FAULT_GRAMMAR})`,
      );
    }
  });
}

function rateLimitFlag(raw: string | undefined): RateLimit | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseRateLimit(raw);
  } catch (err) {
    throw new FlagError(`--rate-limit: ${JSON.stringify(raw)} is not allowed: ${(err as Error).message}`);
  }
}

/** `--replay FILE [--replay-strict] [--pace FACTOR]`: the fixture loaded and checked before listening. */
function replayFlags(values: { replay?: string; 'replay-strict'?: boolean; pace?: string }): ReplayOptions | undefined {
  if (values.replay === undefined) {
    if (values['replay-strict'] || values.pace !== undefined)
      throw new FlagError(`--${values.pace === undefined ? 'replay-strict' : 'pace'} needs --replay FILE`);
    return undefined;
  }
  const pace = values.pace === undefined ? 1 : Number(values.pace);
  if (!/^\d+(\.\d+)?$/.test(values.pace ?? '1') || pace > 100)
    throw new FlagError(`--pace: ${JSON.stringify(values.pace)} is not allowed (a number from 0 to 100; 0: at once)`);
  try {
    return { fixture: ReplayFixture.load(values.replay), strict: values['replay-strict'], pace };
  } catch (err) {
    if (err instanceof ReplayFixtureError) throw new FlagError(`--replay ${values.replay}: ${err.message}`);
    throw err;
  }
}

/** Runs the command line; resolves with the exit code once the emulator has stopped. */
export async function main(argv: string[]): Promise<number> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];
  try {
    const parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    values = parsed.values;
    if (values.help) return (process.stdout.write(`${USAGE}\n`), 0);
    if (values.version) {
      if (argv.length !== 1) throw new FlagError(USAGE);
      return (process.stdout.write(`${versionLine()}\n`), 0);
    }
    if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'serve') throw new FlagError(USAGE);
  } catch (err) {
    say(`svc-emulator: ${(err as Error).message}`);
    return 2;
  }
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  const adminToken =
    process.env.SVC_EMULATOR_ADMIN_TOKEN || (isLoopback(values.host) ? undefined : randomBytes(24).toString('hex'));
  let fixtures: Awaited<ReturnType<typeof loadFixtures>> | undefined;
  try {
    fixtures = values.fixtures ? await loadFixtures(values.fixtures) : undefined;
  } catch (err) {
    if (err instanceof FixtureError || (err as NodeJS.ErrnoException).code === 'ENOENT')
      return (say(`svc-emulator: --fixtures ${values.fixtures}: ${(err as Error).message}`), 2);
    throw err;
  }
  try {
    emu = await startEmulator({
      port: integerFlag('port', values.port, 65535) ?? 0,
      host: values.host,
      stateDir: values['state-dir'],
      seed: integerFlag('seed', values.seed, 4294967295),
      latencyMs: integerFlag('latency', values.latency, 60000),
      tokenDelayMs: integerFlag('token-delay', values['token-delay'], 60000),
      deferredDelayMs: integerFlag('deferred-delay', values['deferred-delay'], 3600000),
      collections: collections(values.collection),
      faults: faults(values.fault),
      rateLimit: rateLimitFlag(values['rate-limit']),
      strict: values.strict,
      replay: replayFlags(values),
      fixtures,
      adminToken,
    });
  } catch (err) {
    if (err instanceof FlagError) return (say(`svc-emulator: ${err.message}`), 2);
    // a state folder that cannot be made (a missing drive, /proc) is the flag's
    if (values['state-dir'] && (err as NodeJS.ErrnoException).code === 'ENOENT')
      return (say(`svc-emulator: --state-dir ${values['state-dir']}: ${(err as Error).message}`), 2);
    say(`svc-emulator: ${(err as Error).message}`);
    return 1;
  }
  const env = envLines(emu.url, emu.defaultKey);
  const readyFile = values['ready-file'];
  if (readyFile) {
    writeFileSync(`${readyFile}.tmp`, env);
    renameSync(`${readyFile}.tmp`, readyFile);
  }
  // the URL is what a client needs: a stdout that failed (a full disk) ends the run, not an emulator none can find
  const failed = await new Promise<NodeJS.ErrnoException | null | undefined>((resolve) => {
    process.stdout.once('error', resolve);
    process.stdout.write(values['print-env'] ? exportLines(emu.url, emu.defaultKey) : `${emu.url}\n`, resolve);
  });
  if (failed) {
    await emu.close();
    if (readyFile) rmSync(readyFile, { force: true });
    say(`svc-emulator: could not write to standard output: ${failed.code ?? failed.message}`);
    return 1;
  }
  await releaseStdout(process.stdout);
  say(`svc-emulator listening on ${emu.url} (WebSocket ${emu.wsUrl}); Ctrl-C stops it`);
  say(`key: ${emu.defaultKey}`);
  if (adminToken && !process.env.SVC_EMULATOR_ADMIN_TOKEN) say(`admin token: ${adminToken} (for /_emulator/*)`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => resolve(s));
  });
  await emu.close();
  if (readyFile) rmSync(readyFile, { force: true });
  say('svc-emulator stopped');
  return signal === 'SIGTERM' ? 143 : 0;
}
