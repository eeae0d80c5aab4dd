// `svc __complete KIND WORDS…`: the values shell completion offers for a flag or argument, one
// "value<TAB>description" per line. Local values (profiles, the last response ids) are read from disk, the sound
// devices (--input-device, --output-device) from the platform's listing tools at each TAB, uncached; values from
// the API (models, voices, ids of files, agents, numbers, custom voices, skills: each resource's list, as its
// descriptor in endpoints/resources.ts says) are cached on disk for a short while per endpoint, profile and key.
// Everything is bounded: the API gets at most ~0.8 s, then whatever the cache holds (even stale) is printed; no key,
// no network, an error → nothing. Never prompts, never writes to stderr, exits 0. Loaded straight from bin/svc.cjs
// (no commander, no command tree) because it runs on every TAB.
// With --emulator on the line, the values come from the emulator `--emulator` would start (the same state folder),
// started in this process for the TAB (0.3-0.8 s) and closed; not cached (an id made a moment ago shows at once).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CompletionKind, attributeName, flagName } from '../../core/option-spec.js';
import { GLOBAL_FLAGS, type GlobalFlagValues } from '../../core/global-flags.js';
import type { ApiCompletionKind, Entry, apiCompletion } from '../../endpoints/resources.js';
import { readConfigFile, resolveConfig } from '../../runtime/config.js';
import { readAliases } from '../../runtime/aliases.js';
import { templateNames } from '../../cmdutil/templates.js';
import { fragmentNames } from '../../cmdutil/fragments.js';
import { cacheDir, configDir, dataDir } from '../../core/paths.js';
import { writeJsonFile } from '../../core/json-file.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** how long values fetched from the API are reused */
const FRESH_MS = 60_000;
/**
 * The answer is printed at most this long after start (SVC_COMPLETE_TIMEOUT_MS; the API gets a little less); with
 * --emulator 3 s: the emulator is a process of ours, not the network, and loading it takes most of a second.
 */
const limitMs = (env: NodeJS.ProcessEnv, words: readonly string[] = []) =>
  Number(env.SVC_COMPLETE_TIMEOUT_MS) || (words.includes('--emulator') ? 3000 : 1000);
/** told the cached values, even stale: what is printed if the hard limit strikes first */
type OnStale = (entries: Entry[]) => void;

/** The global options among the words typed so far (they choose the profile and the endpoint), values unchecked. */
export function globalsOf(words: string[]): GlobalFlagValues {
  const g: Record<string, string | boolean | undefined> = {};
  for (let i = 0; i < words.length; i++) {
    const [word, inline] = words[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const flag = GLOBAL_FLAGS.find((f) => f.flags.split(/[ ,]+/).includes(word) && word.startsWith('-'));
    if (flag)
      g[attributeName(flagName(flag.flags))] = flag.flags.includes('<')
        ? (inline ?? words[++i])
        : !word.startsWith('--no-');
  }
  return g;
}

function profiles(env: NodeJS.ProcessEnv): Entry[] {
  const file = readConfigFile(configDir(env));
  return Object.entries(file.profiles ?? {}).map(
    ([name, p]): Entry => [name, `${name === file.current_profile ? 'current · ' : ''}${p.base_url ?? 'default API'}`],
  );
}

/** The response ids svc remembers (the last stored response of each profile). */
function responses(env: NodeJS.ProcessEnv): Entry[] {
  try {
    const data = JSON.parse(readFileSync(join(dataDir(env), 'responses', 'last.json'), 'utf8')) as {
      profiles?: Record<string, { id: string; model?: string }>;
    };
    return Object.entries(data.profiles ?? {}).map(
      ([profile, r]): Entry => [r.id, `last response of ${profile}${r.model ? ` (${r.model})` : ''}`],
    );
  } catch {
    return [];
  }
}

type Http = import('../../net/http.js').HttpClient;
type ApiSource = NonNullable<ReturnType<typeof apiCompletion>>;

/** The values of an API kind: its fixed ones, then those of each row of one page of the list (of the default size). */
async function fromApi({ list, completion }: ApiSource, http: Http): Promise<Entry[]> {
  const reply = (await list.list(http, list.pageSize ? { limit: list.pageSize.default } : {})) as Record<
    string,
    unknown
  >;
  return [...(completion.fixed ?? []), ...(reply[list.itemsKey] as unknown[]).flatMap(completion.entries)];
}

interface CacheFile {
  at: number;
  entries: Entry[];
}

function readCache(file: string): CacheFile | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    return Array.isArray(c.entries) ? c : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, entries: Entry[]): void {
  try {
    writeJsonFile(file, { at: Date.now(), entries });
  } catch {
    // a cache that cannot be written only costs the next TAB a request
  }
}

/** Values of an API kind: fresh cache, else the API within the budget, else the stale cache. */
async function apiValues(kind: string, words: string[], env: NodeJS.ProcessEnv, onStale: OnStale): Promise<Entry[]> {
  const { apiCompletion } = await import('../../endpoints/resources.js');
  const source = apiCompletion(kind);
  if (!source) return [];
  const fixed = source.completion.fixed ?? [];
  const g = globalsOf(words);
  const cfg = resolveConfig({ env, flags: { profile: g.profile, baseUrl: g.baseUrl } });
  const emulator = g.emulator ? (await import('../../runtime/emulator-endpoint.js')).inProcessEmulator(env) : undefined;
  if (!cfg.apiKey && !emulator) return [...fixed];
  const identity = createHash('sha256')
    .update(`${cfg.baseUrl}\n${cfg.profile}\n${cfg.apiKey}`)
    .digest('hex')
    .slice(0, 16);
  const file = emulator ? undefined : join(cacheDir(env), 'completion', `${identity}-${kind.replace(':', '-')}.json`);
  const cached = file ? readCache(file) : undefined;
  if (cached && Date.now() - cached.at < FRESH_MS) return cached.entries;
  if (cached) onStale(cached.entries);

  const budget = Math.max(100, limitMs(env, words) - 200);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), budget);
  const { createContext } = await import('../../runtime/context.js');
  const { PassThrough } = await import('node:stream');
  const sink = new PassThrough();
  const ctx = createContext({
    streams: { stdin: sink, stdout: sink, stderr: sink },
    env,
    // completion lookups are not the user's calls: not logged
    globals: { profile: g.profile, baseUrl: g.baseUrl, quiet: true, maxRetries: 0, timeout: budget / 1000, log: false },
    signal: abort.signal,
    version: 'complete',
    setInterruptHandler: () => {},
    endpoint: emulator,
  });
  try {
    const work = (async () => fromApi(source, await ctx.http()))();
    const late = new Promise<undefined>((resolve) =>
      abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
    const entries = await Promise.race([work, late]);
    if (entries) {
      if (file) writeCache(file, entries);
      return entries;
    }
  } catch {
    // offline, no access, an old server: fall back to what was cached
  } finally {
    clearTimeout(timer);
    // the emulator's server, if one was started
    await ctx.runExitHooks().catch(() => {});
  }
  return cached?.entries ?? [...fixed];
}

/**
 * The sound devices of one kind, as `svc audio devices` lists them (the platform's backend, asked each time: a device
 * plugged in shows at the next TAB); the default first. Names, not indexes: an index changes as devices come and go.
 */
async function devices(kind: 'input' | 'output', env: NodeJS.ProcessEnv): Promise<Entry[]> {
  const { audioBackend } = await import('../../audio/backend.js');
  const { devices } = await audioBackend().list(kind, env);
  return devices.map((d): Entry => [d.name, [d.default ? 'default' : '', d.description].filter(Boolean).join(' · ')]);
}

/** The kinds read from this machine (svc's own files, its sound devices), not from the API. */
const LOCAL: Record<
  Exclude<CompletionKind, ApiCompletionKind>,
  (env: NodeJS.ProcessEnv) => Entry[] | Promise<Entry[]>
> = {
  profiles,
  'devices:input': (env) => devices('input', env),
  'devices:output': (env) => devices('output', env),
  templates: (env) => templateNames(env).map((name): Entry => [name, 'template']),
  fragments: (env) => fragmentNames(env).map((name): Entry => [name, 'fragment']),
  aliases: (env) => Object.entries(readAliases(env)).map(([name, expansion]): Entry => [name, `alias: ${expansion}`]),
  responses,
};

async function completeValues(
  kind: string,
  words: string[],
  env: NodeJS.ProcessEnv,
  onStale: OnStale,
): Promise<Entry[]> {
  if (Object.hasOwn(LOCAL, kind)) return LOCAL[kind as keyof typeof LOCAL](env);
  return apiValues(kind, words, env, onStale);
}

/**
 * What `svc __complete KIND WORDS…` prints: the values, or, if the hard limit strikes first (whatever is still loading
 * or waiting), the cached ones (even stale), or nothing. Never fails.
 */
export async function completionAnswer(argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const [kind = '', ...words] = argv;
  let fallback: Entry[] = [];
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<Entry[]>((resolve) => {
    timer = setTimeout(() => resolve(fallback), limitMs(env, words));
    timer.unref();
  });
  // completion never fails loudly
  const values = completeValues(kind, words, env, (stale) => (fallback = stale)).catch((): Entry[] => []);
  try {
    return format(await Promise.race([values, limit]));
  } finally {
    clearTimeout(timer);
  }
}

/** Entry point from bin/svc.cjs: print the values and exit (sockets and an in-process emulator included). */
export async function main(argv: string[]): Promise<never> {
  const answer = await completionAnswer(argv, process.env);
  process.stdout.write(answer, () => process.exit(0));
  return new Promise<never>(() => {});
}

/** "value<TAB>description" lines, each value once; server text never reaches the shell with control characters. */
function format(entries: Entry[]): string {
  const seen = new Set<string>();
  let lines = '';
  for (const [value, description] of entries) {
    const v = value.replace(CONTROL, '');
    if (!v || seen.has(v)) continue;
    seen.add(v);
    lines += `${v}\t${description.replace(CONTROL, ' ').trim()}\n`;
  }
  return lines;
}
