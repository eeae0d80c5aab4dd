// The fault matrix: every command family against every fault kind of a hostile server (test/helpers/
// hostile-server.ts) — refused, silent after connect, stall mid-stream, reset mid-body, clean end without the end
// marker, wrong content type, HTML/empty/malformed bodies, 429/5xx per the retry policy, WebSocket close codes
// 1000/1006/1011/4xxx, SIGINT/SIGTERM/SIGHUP mid-transfer, a write failure (ulimit -f: of the output file, of
// the conversation chat keeps, of the call log), and a stdout that fails (ENOSPC, EFBIG, EIO, EBADF). Each row asserts
// the exit code, what stdout holds, the class of the
// message on stderr, that an existing output file is untouched on failure, and that no temp file is left, beside
// the output or in svc's data folder. docs/fault-matrix.md is this table in prose, one line per row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from './helpers/files.js';
import { FULL_RUN } from './helpers/full.js';
import { registerSecret } from './helpers/secrets.js';
import { svcInProcess } from './helpers/in-process.js';
import { spawnSvc, svcShell } from './helpers/subprocess.js';
import { ANSWER, FILE_BYTES, HostileServer, closedPort, type Fault } from './helpers/hostile-server.js';
import {
  STDOUT_FAULTS,
  STDOUT_FAULT_HOW,
  stdoutFaultMessage,
  stdoutFaultScript,
  type StdoutFault,
} from './helpers/stdout-faults.js';

const KEY = 'svc-hostile-matrix-key-0123456789';
registerSecret(KEY);
const OLD = 'OLD CONTENTS — must survive a failure\n';
const TEXT = ANSWER.join('');

/** The message of each way of failing stdout (a Map: typed by kind, where M's spread entries are not). */
const STDOUT_M = new Map(STDOUT_FAULTS.map((k) => [k, stdoutFaultMessage(k)]));
/** Message classes on stderr (docs/fault-matrix.md names each row's by its key here). */
const M = {
  refused: /connection refused|ECONNREFUSED/,
  timeout: /did not answer in time|stalled|sent nothing for \d+(\.\d+)? s/,
  lost: /connection was lost|closed unexpectedly|closed the connection \(code (1006|1011|4\d{3})/,
  incomplete:
    /end marker|in the middle of a turn|before (audio\.done|transcript\.done|response\.done|response\.completed)|is incomplete/,
  protocol:
    /instead of (an event stream|JSON|MP3 audio)|not valid JSON|event that is not JSON|is not MP3 audio|empty reply|has no `\w+` (field|list)|is not a JSON object|a binary frame \(\d+ bytes\) where only JSON/,
  rate: /HTTP 429/,
  server: /HTTP 50\d/,
  write: /disk full or file too large \(EFBIG\)/,
  interrupted: /^$|interrupted|ending/,
  'mcp silent': /--mcp .*: the MCP server did not start within \d+ s \(--timeout\)/,
  'mcp exited': /--mcp .*: the MCP server exited before it could (start|answer a call of city_facts)/,
  'mcp oversized': /--mcp .*: the result of city_facts was 17\.0 MiB, more than svc reads of one reply \(16\.0 MiB\)/,
  'judge not JSON': /the judge's answer is not valid JSON/,
  'pages written': /^\d+ man pages written into /,
  'recorded 1': /recorded 1 exchange\(s\) in \S*rec\.json\n$/,
  'recorded 0': /recorded 0 exchange\(s\) in \S*rec\.json\n$/,
  'recorder stopped': /recorded \d+ exchange\(s\) in \S*rec\.json\n$/,
  'emulator stopped': /emulator stopped\n$/,
  ...Object.fromEntries([...STDOUT_M].map(([k, re]) => [`stdout ${k}`, re])),
};

type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

interface Family {
  name: string;
  route: string;
  /** the command; `out` is the output file when the family writes one, `base` the server's URL */
  args(dir: string, out: string, base: string): string[];
  /** the output file name (families that write one) */
  out?: string;
  /** what stdout holds after a success */
  ok: RegExp;
  /** what the command reads on stdin */
  stdin?: string;
  /** files the command reads, written into the row's folder */
  inputs?: Record<string, string>;
  /** what it writes beside them by design (not a temp file left behind) */
  writes?: string[];
  /** a runner of many (agents test, batch): a failure is its line on stdout; stderr's summary says how many failed */
  reportsFailuresOnStdout?: boolean;
  failureSummary?: RegExp;
  /** the summary is part of the report, on stdout (agents simulate), not on stderr */
  summaryOnStdout?: boolean;
  /** the command with its data on stdout (for a family that writes a file): the rows of a failing stdout */
  stdoutArgs?(dir: string): string[];
  /** a server the command runs (emulator record): once it is up, `svc models list` goes through it (what it should
   * end with is the row's `client`), then the server is stopped with Ctrl-C (SIGINT) */
  serves?: true;
  /** a folder the command fills: all of it or, on failure, nothing (no page, no temp file) */
  folder?: string;
  /** replies planned on another route in every row (a model whose answer the command needs in a shape of its own) */
  answers?: { route: string; replies: Fault[] };
}

const wav = join(tempDir('svc-matrix-in-'), 'in.wav');
/** The MCP server of the `chat --mcp` rows (test/fixtures/mcp/two-tools.mjs): its first argument, its misbehaviour. */
const MCP_SERVER = `node ${join(ROOT, 'test', 'fixtures', 'mcp', 'two-tools.mjs')}`;
/** A model's answer that calls the MCP server's tool (the next turn is the hostile server's usual answer). */
const CALLS_TOOL = JSON.stringify({
  id: 'chat_tool',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'svc-4',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'city_facts', arguments: '{"city":"Oslo"}' } },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 },
});
/** A hostile MCP client on svc mcp serve's stdin: a name that would forge a line, then text_to_speech into the root. */
const MCP_CLIENT = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'hostile\nsvc: FORGED LINE', version: '1' },
    },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'text_to_speech', arguments: { text: 'hello', output: 'say.mp3' } },
  },
]
  .map((m) => `${JSON.stringify(m)}\n`)
  .join('');
/** A chat answer whose text is `content` (a structured answer: JSON). */
const chatAnswer = (content: string) =>
  JSON.stringify({
    id: 'chat_planned',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'svc-4',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 },
  });
/** The judge of `agents simulate`: a verdict of its one criterion, as its JSON Schema asks. */
const JUDGE_VERDICT = chatAnswer(
  JSON.stringify({ criterion_1: { verdict: 'pass', reason: 'The agent answered the caller at once.' } }),
);
const FAMILIES: Record<string, Family> = {
  'chat streamed': {
    name: 'chat streamed',
    route: 'POST /v1/chat/completions',
    args: () => ['chat', 'hello'],
    ok: new RegExp(`^${TEXT}\\n$`),
  },
  'chat --no-stream': {
    name: 'chat --no-stream',
    route: 'POST /v1/chat/completions',
    args: () => ['chat', '--no-stream', 'hello'],
    ok: new RegExp(`^${TEXT}\\n$`),
  },
  'chat --mcp': {
    name: 'chat --mcp',
    route: 'POST /v1/chat/completions',
    // the MCP server's way of behaving is the row's (Row.mcp): `ok` here
    args: () => ['chat', '--no-stream', '--no-save', '--mcp', `${MCP_SERVER} ok`, 'use city_facts'],
    ok: new RegExp(`^${TEXT}\\n$`),
  },
  responses: {
    name: 'responses create',
    route: 'POST /v1/responses',
    args: () => ['responses', 'create', 'hello'],
    ok: new RegExp(`^${TEXT}\\n$`),
  },
  messages: {
    name: 'messages --stream',
    route: 'POST /v1/messages',
    args: () => ['messages', '--stream', 'hello'],
    ok: new RegExp(`^${TEXT}\\n$`),
  },
  models: { name: 'models list', route: 'GET /v1/models', args: () => ['models', 'list'], ok: /svc-4/ },
  upload: {
    name: 'files upload',
    route: 'POST /v1/files',
    args: (dir) => ['files', 'upload', join(dir, 'up.txt')],
    ok: /file_1/,
  },
  download: {
    name: 'files download',
    route: 'GET /v1/files/{id}/content',
    out: 'got.bin',
    args: (_d, out) => ['files', 'download', 'file_1', '-o', out, '--force'],
    stdoutArgs: () => ['files', 'download', 'file_1', '-o', '-'],
    ok: /got\.bin/,
  },
  'tts rest': {
    name: 'tts say --rest',
    route: 'POST /v1/tts',
    out: 'say.mp3',
    args: (_d, out) => ['tts', 'say', 'hello', '--rest', '-o', out, '--force'],
    stdoutArgs: () => ['tts', 'say', 'hello', '--rest', '-o', '-'],
    ok: /^$/,
  },
  'tts ws': {
    name: 'tts say (WebSocket)',
    route: 'WS /v1/tts',
    out: 'say.pcm',
    args: (_d, out) => ['tts', 'say', 'hello', '-o', out, '--force'],
    stdoutArgs: () => ['tts', 'say', 'hello', '-o', '-'],
    ok: /^$/,
  },
  // text from stdin, sent as it arrives: the same socket as tts say's, driven by another loop
  'tts stream': {
    name: 'tts stream',
    route: 'WS /v1/tts',
    out: 'stream.pcm',
    stdin: 'hello\n',
    args: (_d, out) => ['tts', 'stream', '-o', out, '--force'],
    stdoutArgs: () => ['tts', 'stream', '-o', '-'],
    ok: /^$/,
  },
  'stt rest': {
    name: 'stt transcribe',
    route: 'POST /v1/stt',
    args: () => ['stt', 'transcribe', wav],
    ok: new RegExp(TEXT),
  },
  // live subtitles into a file (-o: put in place at the end), the transcript on stdout
  'stt ws': {
    name: 'stt listen --srt -o',
    route: 'WS /v1/stt',
    out: 'listen.srt',
    args: (_d, out) => ['stt', 'listen', '--input', wav, '--no-realtime', '--srt', '-o', out, '--force'],
    stdoutArgs: () => ['stt', 'listen', '--input', wav, '--no-realtime', '--srt'],
    ok: /Hello/,
  },
  realtime: {
    name: 'realtime talk',
    route: 'WS /v1/realtime',
    out: 'talk.wav',
    args: (_d, out) => ['realtime', 'talk', '--input', wav, '--output', out, '--force'],
    stdoutArgs: () => ['realtime', 'talk', '--input', wav, '--output', '-'],
    ok: new RegExp(TEXT),
  },
  calls: {
    name: 'calls join',
    route: 'WS /v1/realtime',
    args: () => ['calls', 'join', 'rtc_hostile1'],
    ok: new RegExp(TEXT),
  },
  // every agent of the team into a project's files (issue 31): read first (the list, the numbers), then written
  'agents pull --all': {
    name: 'agents pull --all',
    route: 'GET /v1/agents',
    inputs: { 'svc-agents.json': JSON.stringify({ environments: ['default'], agents: {} }) },
    args: (dir) => ['agents', 'pull', '--all', '--project', dir],
    ok: /^[\w-]+\tdefault\tadded\tagents\/[\w-]+\.json\tagent_hostile1\n$/,
    writes: ['agents'],
  },
  // one case, one audio turn: the session is the same socket as realtime talk's, read by the test runner
  'agents test': {
    name: 'agents test',
    route: 'WS /v1/realtime',
    inputs: {
      'agent.json': JSON.stringify({ name: 'desk', instructions: 'answer' }),
      'suite.json': JSON.stringify({
        cases: [{ name: 'greets', turns: [{ audio: wav, expect: { reply_contains: 'Hello' } }] }],
      }),
    },
    // the transcripts' folder named (its default is in the working directory, which an in-process row keeps)
    args: (dir) => [
      'agents',
      'test',
      '--agent-file',
      join(dir, 'agent.json'),
      '--transcripts',
      join(dir, 'agent-test-transcripts'),
      join(dir, 'suite.json'),
    ],
    ok: /^ok +greets/,
    writes: ['agent-test-transcripts'],
    reportsFailuresOnStdout: true,
    failureSummary: /0 passed, 1 failed/,
  },
  // a scenario's call (issue 38): the opening line spoken (TTS) into the agent's session, its answer read, then the
  // judge's verdict (a planned JSON answer: the server's usual text is no verdict); one turn, so no caller model
  'agents simulate': {
    name: 'agents simulate',
    route: 'WS /v1/realtime',
    inputs: {
      'agent.json': JSON.stringify({ name: 'desk', instructions: 'answer' }),
      'scenario.json': JSON.stringify({
        name: 'greets',
        persona: 'a caller',
        goal: 'a greeting',
        opening: 'Hello?',
        max_turns: 1,
        criteria: ['the agent answers'],
      }),
    },
    args: (dir) => ['agents', 'simulate', '--agent-file', join(dir, 'agent.json'), join(dir, 'scenario.json')],
    answers: { route: 'POST /v1/chat/completions', replies: [{ status: 200, body: JUDGE_VERDICT }] },
    ok: /^ok +greets #1 .*\n[^]*1 scenario × 1 run: 1\/1 calls passed/,
    reportsFailuresOnStdout: true,
    failureSummary: /1 scenario × 1 run: 0\/1 calls passed/,
    summaryOnStdout: true,
  },
  // every man page into a folder (no server): all written, or none (a write that fails leaves the folder empty)
  'completion man': {
    name: 'completion man --install',
    route: 'none',
    args: (dir) => ['completion', 'man', '--install', join(dir, 'man')],
    stdoutArgs: () => ['completion', 'man', 'chat'],
    ok: /\/man\/svc-chat\.1\n/,
    writes: ['man'],
    folder: 'man',
  },
  // a recorder between a client and the API (issue 38): what the API does wrong reaches the client as it was (a 502
  // when it cannot be reached), the recorder keeps running and stops at Ctrl-C with the fixture written
  'emulator record': {
    name: 'emulator record',
    route: 'GET /v1/models',
    args: (dir, _o, base) => ['emulator', 'record', '--upstream', base, '--out', join(dir, 'rec.json')],
    serves: true,
    ok: /^http:\/\/127\.0\.0\.1:\d+\n$/,
    writes: ['rec.json', 'rec.audio'],
  },
  // the emulator (no upstream: the hostile server is not asked): a client reaches it with the URL it printed; a
  // stdout that fails ends it (exit 1, the server closed), as the recorder
  'emulator serve': {
    name: 'emulator serve',
    route: 'none',
    args: () => ['emulator', 'serve', '--memory'],
    serves: true,
    ok: /^http:\/\/127\.0\.0\.1:\d+\n$/,
  },
  // a file of rows (issue 28): each row's request retried by batch's own scheduler; a row that keeps failing is
  // recorded failed (its line on stdout, the request in rows.csv.failed.jsonl) and the run exits 1
  batch: {
    name: 'batch chat',
    route: 'POST /v1/chat/completions',
    inputs: { 'rows.csv': 'text\nhello\n' },
    args: (dir) => ['batch', 'chat', join(dir, 'rows.csv'), '--template', '{{text}}'],
    ok: /^\{"row":1,"line":2,"status":"done","text":"Hello from the hostile/,
    writes: ['rows.csv.journal', 'rows.csv.failed.jsonl'],
    reportsFailuresOnStdout: true,
    failureSummary: /0\/1 done · 1 failed/,
  },
  // a page fetched for -a (issue 36 item 4): what the server sends is read up to fetch.max_bytes, then sent on
  'chat -a URL': {
    name: 'chat -a URL',
    route: 'GET /page.txt',
    args: (_d, _o, base) => ['chat', '--no-stream', '-a', `${base}/page.txt`, 'hello'],
    ok: new RegExp(`^${TEXT}\\n$`),
  },
  // svc mcp serve under a hostile client (issue 36): the server answers every request and ends with its stdin (exit
  // 0); a failing API is the tool's error in its answer and a one-line note on stderr; no file but the tool's
  mcp: {
    name: 'mcp serve text_to_speech',
    route: 'POST /v1/tts',
    stdin: MCP_CLIENT,
    args: (dir) => ['mcp', 'serve', '--root', dir, '--tools', 'text_to_speech'],
    ok: /^(?![\s\S]*"isError")[\s\S]*say\.mp3[\s\S]*"id":2/,
    writes: ['say.mp3'],
  },
};

interface Row {
  family: keyof typeof FAMILIES;
  fault: string;
  /** faults planned on the family's route, in order */
  plan?: Fault[];
  refused?: boolean;
  /** refused until the command says it retries; then the server comes up on that port */
  refusedThenUp?: boolean;
  signal?: Signal;
  /** a server family's client (Family.serves): its exit code and what its stderr says */
  client?: { exit: number; stderr: RegExp };
  /** the replies on the family's other route (Family.answers) in place of its usual ones */
  answers?: Fault[];
  /** the process's file size limit, in blocks of 512 bytes (`ulimit -f`) */
  ulimit?: number;
  /** stdout fails this way (test/helpers/stdout-faults.ts) */
  stdoutFault?: StdoutFault;
  retries?: number;
  /** `chat --mcp`: the MCP server's misbehaviour (test/fixtures/mcp/two-tools.mjs), in place of `ok` */
  mcp?: string;
  /** --timeout in seconds where the row's own work takes long (default: 1 for a timeout row, else 2) */
  timeout?: number;
  exit: number;
  stderr: RegExp;
  /** stdout: the answer kept, nothing, or anything */
  stdout?: RegExp;
}

const rows: Row[] = [];
const add = (r: Row) => rows.push(r);

// HTTP families answering JSON
for (const family of ['chat --no-stream', 'models', 'upload', 'stt rest', 'agents pull --all'] as const) {
  add({ family, fault: 'ok', exit: 0, stderr: /^(?!.*error)/s, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused, stdout: /^$/ });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout, stdout: /^$/ });
  add({ family, fault: 'stall mid-body', plan: ['stall'], exit: 1, stderr: M.timeout, stdout: /^$/ });
  add({ family, fault: 'reset mid-body', plan: ['reset'], exit: 1, stderr: M.lost, stdout: /^$/ });
  add({ family, fault: 'HTML 200', plan: ['html'], exit: 1, stderr: M.protocol, stdout: /^$/ });
  add({ family, fault: 'empty 200', plan: ['empty'], exit: 1, stderr: M.protocol, stdout: /^$/ });
  add({ family, fault: 'malformed JSON', plan: ['malformed'], exit: 1, stderr: M.protocol, stdout: /^$/ });
  add({ family, fault: 'wrong content type', plan: ['wrong-type'], exit: 1, stderr: M.protocol, stdout: /^$/ });
  add({
    family,
    fault: '429 then ok (retried)',
    plan: [{ status: 429, retryAfter: '0' }],
    retries: 2,
    exit: 0,
    stderr: /^(?!.*error)/s,
    stdout: FAMILIES[family].ok,
  });
  add({
    family,
    fault: '429 every time',
    plan: [
      { status: 429, retryAfter: '0' },
      { status: 429, retryAfter: '0' },
    ],
    retries: 1,
    exit: 6,
    stderr: M.rate,
    stdout: /^$/,
  });
  const get = family === 'models' || family === 'agents pull --all';
  add({
    family,
    fault: get ? '503 then ok (GET retried)' : '500 (POST not retried)',
    plan: [{ status: get ? 503 : 500 }],
    retries: 2,
    exit: get ? 0 : 7,
    stderr: get ? /^(?!.*error)/s : M.server,
    stdout: get ? FAMILIES[family].ok : /^$/,
  });
}

// streamed families (server-sent events)
for (const family of ['chat streamed', 'responses', 'messages'] as const) {
  add({ family, fault: 'ok', exit: 0, stderr: /^(?!.*error)/s, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused, stdout: /^$/ });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout, stdout: /^$/ });
  add({ family, fault: 'stall mid-stream', plan: ['stall'], exit: 1, stderr: M.timeout, stdout: /^Hello/ });
  add({ family, fault: 'reset mid-stream', plan: ['reset'], exit: 1, stderr: M.lost, stdout: /^Hello/ });
  add({
    family,
    fault: 'clean end without end marker',
    plan: ['no-end'],
    exit: 1,
    stderr: M.incomplete,
    stdout: /^Hello from the hostile/,
  });
  add({
    family,
    fault: 'HTML 200 (not an event stream)',
    plan: ['html'],
    exit: 1,
    stderr: /text\/html instead of an event stream/,
    stdout: /^$/,
  });
  add({ family, fault: 'empty 200', plan: ['empty'], exit: 1, stderr: M.incomplete, stdout: /^$/ });
  add({
    family,
    fault: 'non-JSON event',
    plan: ['malformed'],
    exit: 1,
    stderr: /event that is not JSON/,
    stdout: /^(Hello)?\n?$/,
  });
  add({
    family,
    fault: 'JSON 200 (wrong content type)',
    plan: ['wrong-type'],
    exit: 1,
    stderr: /application\/json instead of an event stream/,
    stdout: /^$/,
  });
  add({
    family,
    fault: '429 then ok (retried)',
    plan: [{ status: 429, retryAfter: '0' }],
    retries: 2,
    exit: 0,
    stderr: /^(?!.*error)/s,
    stdout: FAMILIES[family].ok,
  });
  add({
    family,
    fault: '500 (POST not retried)',
    plan: [{ status: 500 }],
    retries: 2,
    exit: 7,
    stderr: M.server,
    stdout: /^$/,
  });
  add({
    family,
    fault: 'SIGINT mid-stream',
    plan: ['stall'],
    signal: 'SIGINT',
    exit: 130,
    stderr: M.interrupted,
    stdout: /^Hello/,
  });
}

// binary replies written to a file
for (const family of ['download', 'tts rest'] as const) {
  const post = family === 'tts rest';
  add({ family, fault: 'ok', exit: 0, stderr: /^(?!.*error)/s });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout });
  add({ family, fault: 'stall mid-body', plan: ['stall'], exit: 1, stderr: M.timeout });
  add({ family, fault: 'reset mid-body', plan: ['reset'], exit: 1, stderr: M.lost });
  add({
    family,
    fault: post ? '500 (POST not retried)' : '503 then ok (GET retried)',
    plan: [{ status: post ? 500 : 503 }],
    retries: 2,
    exit: post ? 7 : 0,
    stderr: post ? M.server : /^(?!.*error)/s,
  });
  add({
    family,
    fault: '429 every time',
    plan: [
      { status: 429, retryAfter: '0' },
      { status: 429, retryAfter: '0' },
    ],
    retries: 1,
    exit: 6,
    stderr: M.rate,
  });
  add({ family, fault: 'write failure (ulimit -f)', ulimit: 8, exit: 1, stderr: M.write });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    add({
      family,
      fault: `${signal} mid-transfer`,
      plan: ['stall'],
      signal,
      exit: signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 129,
      stderr: /^(?!.*error)/s,
    });
  }
  if (post) {
    add({ family, fault: 'HTML 200', plan: ['html'], exit: 1, stderr: /text\/html instead of MP3 audio/ });
    add({ family, fault: 'empty 200', plan: ['empty'], exit: 1, stderr: /empty reply instead of MP3 audio/ });
    add({ family, fault: 'malformed (not MP3 bytes)', plan: ['malformed'], exit: 1, stderr: /is not MP3 audio/ });
    add({ family, fault: 'JSON 200 without audio', plan: ['wrong-type'], exit: 1, stderr: /has no `audio` field/ });
  }
}

// WebSocket families
for (const family of ['tts ws', 'tts stream', 'stt ws', 'realtime', 'calls'] as const) {
  add({ family, fault: 'ok', exit: 0, stderr: /^(?!.*error)/s, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused, stdout: /^$/ });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout, stdout: /^$/ });
  add({ family, fault: 'stall mid-session', plan: ['stall'], exit: 1, stderr: M.timeout });
  if (family === 'calls') {
    // a call's clean close is the call's end (a hang-up, a transfer), even in the middle of an answer: exit 0, what
    // the agent said kept; only a cut session (1006, 1011, 4xxx, a stall) is an error
    add({
      family,
      fault: 'close 1000 in the middle of an answer (the call ended)',
      plan: [{ close: 1000 }],
      exit: 0,
      stderr: /^(?!.*error)/s,
      stdout: /^agent: Hello from the hostile.*\[call ended\]\n$/,
    });
  } else
    add({ family, fault: 'close 1000 before the end marker', plan: [{ close: 1000 }], exit: 1, stderr: M.incomplete });
  add({ family, fault: 'close 1006 (dropped)', plan: ['drop'], exit: 1, stderr: /code 1006/ });
  add({ family, fault: 'close 1011', plan: [{ close: 1011 }], exit: 1, stderr: /code 1011/ });
  add({ family, fault: 'close 4001', plan: [{ close: 4001 }], exit: 1, stderr: /code 4001/ });
  add({ family, fault: 'SIGTERM mid-session', plan: ['stall'], signal: 'SIGTERM', exit: 143, stderr: /^(?!.*error)/s });
  // the handshake follows the retry policy: retried before anything is sent, with a note
  const retried = FAMILIES[family].ok;
  const note = (why: string) => new RegExp(`note: ${why} on the WebSocket handshake .*retrying in [\\d.]+ s`);
  const rate = { refuse: 429, retryAfter: '0' };
  add({
    family,
    fault: 'handshake 429, then ok',
    plan: [rate],
    retries: 2,
    exit: 0,
    stderr: note('HTTP 429'),
    stdout: retried,
  });
  add({
    family,
    fault: 'handshake 503, then ok',
    plan: [{ refuse: 503 }],
    retries: 2,
    exit: 0,
    stderr: note('HTTP 503'),
    stdout: retried,
  });
  add({
    family,
    fault: 'handshake refused, then ok',
    refusedThenUp: true,
    retries: 4,
    exit: 0,
    stderr: note('connection refused'),
    stdout: retried,
  });
  add({
    family,
    fault: 'handshake 503 with no retries left',
    plan: [{ refuse: 503 }],
    exit: 7,
    stderr: M.server,
    stdout: /^$/,
  });
  // a protocol error at once, never "the server sent nothing for N s" (issue 25, item 23)
  add({ family, fault: 'event not a JSON object', plan: ['not-json'], exit: 1, stderr: M.protocol });
  // TTS audio may come in binary frames; the other protocols have none
  if (!family.startsWith('tts')) add({ family, fault: 'binary frame', plan: ['binary'], exit: 1, stderr: M.protocol });
}

// the test runners: a failing session fails its case or call (exit 1) with the class of fault in the report, never
// the run
for (const family of ['agents test', 'agents simulate'] as const) {
  const passed = FAMILIES[family].summaryOnStdout ? /^(?!.*error)/s : /1 passed, 0 failed/;
  add({ family, fault: 'ok', exit: 0, stderr: passed, stdout: FAMILIES[family]!.ok });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused, stdout: /^FAIL greets/ });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout, stdout: /^FAIL greets/ });
  add({ family, fault: 'stall mid-session', plan: ['stall'], exit: 1, stderr: M.timeout, stdout: /^FAIL greets/ });
  add({
    family,
    fault: 'close 1000 before the end marker',
    plan: [{ close: 1000 }],
    exit: 1,
    stderr: M.incomplete,
    stdout: /^FAIL greets/,
  });
  add({ family, fault: 'close 1006 (dropped)', plan: ['drop'], exit: 1, stderr: /code 1006/, stdout: /^FAIL greets/ });
  add({ family, fault: 'close 1011', plan: [{ close: 1011 }], exit: 1, stderr: /code 1011/, stdout: /^FAIL greets/ });
  add({ family, fault: 'close 4001', plan: [{ close: 4001 }], exit: 1, stderr: /code 4001/, stdout: /^FAIL greets/ });
  add({ family, fault: 'SIGTERM mid-session', plan: ['stall'], signal: 'SIGTERM', exit: 143, stderr: /^(?!.*error)/s });
  for (const [fault, plan] of [
    ['event not a JSON object', 'not-json'],
    ['binary frame', 'binary'],
  ] as const)
    add({ family, fault, plan: [plan], exit: 1, stderr: M.protocol, stdout: /^FAIL greets/ });
}

// agents simulate's judge (the chat answer after the call): what it fails at fails the call, never the run
{
  const family = 'agents simulate';
  const failed = /^FAIL greets/;
  add({
    family,
    fault: 'judge answers text, not a verdict',
    answers: [],
    exit: 1,
    stderr: M['judge not JSON'],
    stdout: failed,
  });
  add({ family, fault: 'judge silent', answers: ['silent'], exit: 1, stderr: M.timeout, stdout: failed });
  add({ family, fault: 'judge HTML 200', answers: ['html'], exit: 1, stderr: M.protocol, stdout: failed });
  add({
    family,
    fault: 'judge 429 then ok (retried)',
    answers: [{ status: 429, retryAfter: '0' }, ...FAMILIES[family].answers!.replies],
    retries: 2,
    exit: 0,
    stderr: /^(?!.*error)/s,
    stdout: FAMILIES[family].ok,
  });
  add({
    family,
    fault: 'judge 500 (POST not retried)',
    answers: [{ status: 500 }],
    exit: 1,
    stderr: M.server,
    stdout: failed,
  });
}

// svc batch: one row; what fails is the row (recorded failed, its error in its line on stdout, exit 1), the run
// never hangs past --timeout and never claims the row done
{
  const family = 'batch';
  add({ family, fault: 'ok', exit: 0, stderr: /1\/1 done · 0 failed/, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout });
  add({ family, fault: 'stall mid-body', plan: ['stall'], exit: 1, stderr: M.timeout });
  add({ family, fault: 'reset mid-body', plan: ['reset'], exit: 1, stderr: M.lost });
  add({ family, fault: 'HTML 200', plan: ['html'], exit: 1, stderr: M.protocol });
  add({ family, fault: 'malformed JSON', plan: ['malformed'], exit: 1, stderr: M.protocol });
  add({
    family,
    fault: '429 then ok (retried)',
    plan: [{ status: 429, retryAfter: '0' }],
    retries: 2,
    exit: 0,
    stderr: /1\/1 done · 0 failed/,
    stdout: FAMILIES[family].ok,
  });
  add({
    family,
    fault: '500 then ok (batch retries a row)',
    plan: [{ status: 500 }],
    retries: 2,
    exit: 0,
    stderr: /1\/1 done · 0 failed/,
    stdout: FAMILIES[family].ok,
  });
  // the row's error as the API sent it, in its line: the status and the server's message
  add({ family, fault: '500 (no retry left)', plan: [{ status: 500 }], exit: 1, stderr: /"status":500/ });
}

// a hostile MCP server (`chat --mcp`): the API answers (a tool call where the row needs one), the server does not.
// Every failure names the server and what happened; a server is never left running (test/mcp/stdio-transport.test.ts)
{
  const family = 'chat --mcp';
  const tool = { status: 200, body: CALLS_TOOL };
  // the MCP server, a node process, must start within --timeout before the API is asked: on a machine the suite
  // keeps busy that took over 1 s (a clean-clone CI run of 3e38ea6)
  const timeout = 4;
  add({ family, fault: 'ok', timeout, exit: 0, stderr: /^(?!.*error)/s, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', timeout, refused: true, exit: 1, stderr: M.refused, stdout: /^$/ });
  add({ family, fault: 'silent after connect', timeout, plan: ['silent'], exit: 1, stderr: M.timeout, stdout: /^$/ });
  add({
    family,
    fault: 'MCP server never answers initialize',
    mcp: 'hang',
    exit: 1,
    stderr: M['mcp silent'],
    stdout: /^$/,
  });
  add({ family, fault: 'MCP server exits at start', mcp: 'exit', exit: 1, stderr: M['mcp exited'], stdout: /^$/ });
  add({
    family,
    fault: 'MCP server crashes during a call',
    mcp: 'crash-on-call',
    timeout,
    plan: [tool],
    exit: 1,
    stderr: M['mcp exited'],
    stdout: /^$/,
  });
  add({
    family,
    fault: 'MCP tool result of 17 MiB',
    mcp: `huge ${17 * 1024 * 1024}`,
    // the server writes 17 MiB and svc reads past it: seconds on a machine the suite keeps busy
    timeout: 10,
    plan: [tool],
    exit: 0,
    stderr: M['mcp oversized'],
    stdout: FAMILIES[family].ok,
  });
}

// a page fetched for -a: a body that never ends is cut at the cap (10 MiB), exit 2, nothing sent to the API
{
  const family = 'chat -a URL';
  add({ family, fault: 'ok', exit: 0, stderr: /^(?!.*error)/s, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', refused: true, exit: 1, stderr: M.refused, stdout: /^$/ });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 1, stderr: M.timeout, stdout: /^$/ });
  add({
    family,
    fault: 'endless body',
    plan: ['endless'],
    exit: 2,
    stderr: /it is larger, over the 10 MiB svc fetches \(nothing was sent to the API\)/,
    stdout: /^$/,
  });
}

// svc mcp serve: the tool call fails as a tool error (the answer on stdout says isError), the server ends cleanly
{
  const family = 'mcp';
  const failed = /"isError":true/;
  add({ family, fault: 'ok', exit: 0, stderr: /^(?!.*error)/s, stdout: FAMILIES[family].ok });
  add({ family, fault: 'refused', refused: true, exit: 0, stderr: M.refused, stdout: failed });
  add({ family, fault: 'silent after connect', plan: ['silent'], exit: 0, stderr: M.timeout, stdout: failed });
  add({ family, fault: 'reset mid-body', plan: ['reset'], exit: 0, stderr: M.lost, stdout: failed });
  add({ family, fault: '500 (POST not retried)', plan: [{ status: 500 }], exit: 0, stderr: M.server, stdout: failed });
}

// completion man --install: a page that cannot be written (a full disk; at 6 KiB svc.1 fits, svc-chat.1 does not) fails
// the run with the folder as it was
{
  const family = 'completion man';
  add({ family, fault: 'ok', exit: 0, stderr: M['pages written'], stdout: FAMILIES[family].ok });
  add({ family, fault: 'write failure mid-way (ulimit -f)', ulimit: 6, exit: 1, stderr: M.write, stdout: /^$/ });
}

// emulator record: the upstream's faults reach its client (`svc models list` through it), the recorder stays up and
// stops cleanly at Ctrl-C, whatever is still in flight; a fixture that cannot be written fails it at start
{
  const family = 'emulator record';
  const up = FAMILIES[family].ok;
  const ok = /^(?!.*error)/s;
  add({ family, fault: 'ok', client: { exit: 0, stderr: ok }, exit: 0, stderr: M['recorded 1'], stdout: up });
  add({
    family,
    fault: 'upstream refused (the client gets a 502)',
    refused: true,
    client: { exit: 7, stderr: /the upstream could not be reached.*HTTP 502/ },
    exit: 0,
    stderr: M['recorded 0'],
    stdout: up,
  });
  for (const [fault, plan, client] of [
    ['upstream silent after connect (the client times out; Ctrl-C while it waits)', 'silent', M.timeout],
    ['upstream stall mid-body (the client times out; Ctrl-C while it waits)', 'stall', M.timeout],
    ['upstream reset mid-body (the client loses it)', 'reset', M.lost],
  ] as const)
    add({
      family,
      fault,
      plan: [plan],
      client: { exit: 1, stderr: client },
      exit: 0,
      stderr: M['recorder stopped'],
      stdout: up,
    });
  add({
    family,
    fault: 'upstream 500 (passed on to the client, recorded)',
    plan: [{ status: 500 }],
    client: { exit: 7, stderr: M.server },
    exit: 0,
    stderr: M['recorded 1'],
    stdout: up,
  });
  add({
    family,
    fault: 'fixture not written (ulimit -f 0)',
    ulimit: 0,
    exit: 1,
    stderr: /cannot write .*rec\.json: disk full or file too large \(EFBIG\)/,
    stdout: /^$/,
  });
}

// emulator serve: svc models list against it, then Ctrl-C (its stdout rows are below, with every family's)
{
  const family = 'emulator serve';
  add({
    family,
    fault: 'ok',
    client: { exit: 0, stderr: /^(?!.*error)/s },
    exit: 0,
    stderr: M['emulator stopped'],
    stdout: FAMILIES[family].ok,
  });
}

// svc's own files: the answer is printed before the conversation is kept; a conversation that cannot be written is
// the run's error (naming the file), a call log that cannot be written only a warning (the run's outcome stands)
for (const family of ['chat --no-stream', 'chat streamed'] as const) {
  add({
    family,
    fault: 'conversation not written (ulimit -f 0)',
    ulimit: 0,
    exit: 1,
    stderr: /cannot write .*conv_\w+\.json: disk full or file too large \(EFBIG\)/,
    stdout: FAMILIES[family].ok,
  });
}
add({
  family: 'models',
  fault: 'call log not written (ulimit -f 0)',
  ulimit: 0,
  exit: 0,
  stderr:
    /warning: this run is not in the call log: cannot write .*calls-[\d-]+\.jsonl: disk full or file too large \(EFBIG\)/,
  stdout: FAMILIES.models.ok,
});

// stdout that fails: every family, every way (a closed pipe, EPIPE, stays quiet: test/cli.test.ts). The run stops
// with exit 1 and says so, whatever it was doing (a download does not blame the network), streamed or not. Each row
// is a bash and a CLI process: outside the full run (test/helpers/full.ts) each family meets one way, in turn, so
// that every way is met by a quarter of the families and every family by one way; there the first family of each
// way runs as processes, the others in-process with a stdout whose writes fail with that errno (what a family
// does with a failing stdout is its own; how a real one fails is each way's, and a bash and a CLI process cost
// ~0.1 s of CPU a row).
const everydayStdoutFault = new Map<string, StdoutFault>();
const everydayStdoutProcess = new Set<string>();
for (const [i, family] of (Object.keys(FAMILIES) as (keyof typeof FAMILIES)[]).entries()) {
  everydayStdoutFault.set(family, STDOUT_FAULTS[i % STDOUT_FAULTS.length]!);
  if (i < STDOUT_FAULTS.length) everydayStdoutProcess.add(family);
  for (const kind of STDOUT_FAULTS) {
    add({
      family,
      fault: `stdout fails: ${STDOUT_FAULT_HOW[kind]} (${kind})`,
      stdoutFault: kind,
      exit: 1,
      stderr: STDOUT_M.get(kind)!,
    });
  }
}

/**
 * The rows of a run outside the full run (test/helpers/full.ts): every family meets the faults every command must
 * survive (ok, refused, silent after connect) and its one way of failing stdout; every other fault is met by one
 * family, of those that have it the one with the fewest such rows so far (in the order of FAMILIES). So each fault
 * and each family are met in every run, ~120 rows of ~290; the full run (CI) runs the whole cross product.
 */
function everydayRows(): Set<Row> {
  const keep = new Set<Row>();
  const picks = new Map<string, number>();
  const byFault = new Map<string, Row[]>();
  for (const r of rows) {
    if (r.stdoutFault) {
      if (everydayStdoutFault.get(r.family) === r.stdoutFault) keep.add(r);
    } else if (['ok', 'refused', 'silent after connect'].includes(r.fault)) keep.add(r);
    else byFault.set(r.fault, [...(byFault.get(r.fault) ?? []), r]);
  }
  for (const candidates of byFault.values()) {
    const r = candidates.reduce((a, b) => ((picks.get(b.family) ?? 0) < (picks.get(a.family) ?? 0) ? b : a));
    keep.add(r);
    picks.set(r.family, (picks.get(r.family) ?? 0) + 1);
  }
  return keep;
}

/** docs/fault-matrix.md: the table of the rows, one line per row (written with SVC_UPDATE_DOCS=1). */
function matrixDoc(): string {
  const cls = (re: RegExp) => Object.entries(M).find(([, v]) => v === re)?.[0] ?? re.source.replace(/\|/g, '\\|');
  const lines = rows.map((r) => {
    const out = FAMILIES[r.family]!.out;
    const file =
      out && !(r.stdoutFault && FAMILIES[r.family]!.stdoutArgs) ? (r.exit === 0 ? 'replaced' : 'untouched') : '-';
    const stdout = !r.stdout
      ? '-'
      : r.stdout.source === '^$'
        ? 'empty'
        : r.stdout === FAMILIES[r.family]!.ok
          ? 'the answer'
          : r.stdout.source.startsWith('^Hello') || r.stdout.source.startsWith('^agent: Hello')
            ? 'what arrived'
            : r.stdout.source.startsWith('^FAIL')
              ? 'the failed case'
              : r.stdout.source.includes('isError')
                ? "the tool's error"
                : 'first event only';
    const err =
      r.stderr.source === '^(?!.*error)'
        ? 'no error'
        : FAMILIES[r.family]!.reportsFailuresOnStdout && r.exit === 1 && !r.stdoutFault
          ? `${cls(r.stderr)} (in the case's line on stdout)`
          : cls(r.stderr);
    return `| ${FAMILIES[r.family]!.name} | ${r.fault} | ${r.exit} | ${stdout} | ${err} | ${file} | none |`;
  });
  return [
    '# The fault matrix',
    '',
    'Generated from `test/fault-matrix.test.ts` (`SVC_UPDATE_DOCS=1 npx vitest run test/fault-matrix.test.ts`); the ' +
      'test fails when',
    'this page and the rows differ. Each row runs the CLI against `test/helpers/hostile-server.ts` (HTTP, SSE and ' +
      'WebSocket',
    'on loopback, the fault chosen per request) with `--timeout 1` where the row waits for the timeout (silent, ' +
      'stall), else',
    '`--timeout 2`, and asserts the exit code, stdout, the class of the stderr message, the output file (an existing ' +
      'one is',
    "untouched on failure) and that no temp file is left beside it or in svc's data folder (conversations, the call " +
      'log).',
    'The rows that write over an existing file pass `--force`: without it the file is never replaced, and the run ' +
      'ends before',
    'anything is sent (docs/scripting.md, "Files svc writes").',
    'Rows with a signal, a file size limit (`ulimit -f`) or a failing stdout run the built CLI as a process of its ' +
      'own; the others',
    "run it in the test's process (`svcInProcess`). Outside the full run only the first family of each way of " +
      'failing stdout runs',
    'it as a process; the other families meet their way in-process, with a stdout whose every write fails with ' +
      'that errno.',
    '`emulator record` runs as a process with the hostile server as its upstream: `svc models list` goes through ' +
      "it (the row's fault",
    "is the upstream's; the client's outcome is asserted too), then Ctrl-C stops it. `agents simulate` gets its " +
      "judge's verdict",
    'planned (a JSON answer on the chat route; its judge rows replace it). `completion man --install` needs no ' +
      'server: its folder',
    'holds every page after a success and none after a failure. `emulator serve` runs as a process the same way, ' +
      'without an upstream.',
    '',
    'Message classes: refused (connection refused), timeout (no byte within --timeout: "did not answer in ' +
      'time", "stalled",',
    '"sent nothing for N s"), lost (connection lost or closed 1006/1011/4xxx), incomplete (the end marker ' +
      'never came), protocol',
    '(a 200 that is not what was asked: HTML, JSON instead of an event stream, not valid JSON, wrong magic ' +
      'bytes, empty),',
    'rate (HTTP 429 after retries), server (HTTP 5xx), write (disk full or file too large), interrupted; stdout ' +
      'ENOSPC/EFBIG/EIO/EBADF',
    '("could not write to standard output: …" and that one error only; a family that writes a file has its data ' +
      'sent to stdout',
    'for these rows: `-o -`, `--output -`); mcp silent, mcp exited, mcp oversized (a hostile MCP server of ' +
      '`chat --mcp`: it',
    'never answers `initialize`, it exits, its result is over what svc reads of one reply; the server is named); ' +
      "judge not JSON (agents simulate's",
    "judge answered text); pages written (completion man --install's note); recorded N, recorder stopped (emulator " +
      "record's last note); emulator stopped (emulator serve's last note).",
    '',
    `${rows.length} rows.`,
    '',
    '| command | fault | exit | stdout | stderr | output file | temp files |',
    '|---|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
}

describe('fault matrix', () => {
  it('docs/fault-matrix.md lists every row', () => {
    const path = join(ROOT, 'docs', 'fault-matrix.md');
    if (process.env.SVC_UPDATE_DOCS) writeFileSync(path, matrixDoc());
    expect(readFileSync(path, 'utf8')).toBe(matrixDoc());
  });

  beforeAll(() => {
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', wav, 'synth', '0.4', 'sine', '440']);
  });
  const results: boolean[] = [];
  const everyday = everydayRows();
  const running = rows.filter((r) => FULL_RUN || everyday.has(r));
  afterAll(() => {
    // the figures of the closing note: rows, run, passed
    const run = FULL_RUN ? 'all run' : `${running.length} run (the full run runs every one: test/helpers/full.ts)`;
    process.stdout.write(`fault matrix: ${rows.length} rows, ${run}, ${results.filter(Boolean).length} passed\n`);
  });

  it.concurrent.each(running.map((r) => [`${FAMILIES[r.family]!.name} × ${r.fault}`, r] as const))(
    '%s',
    async (_name, row) => {
      const fam = FAMILIES[row.family]!;
      let server = await HostileServer.start();
      try {
        const base = row.refused || row.refusedThenUp ? await closedPort() : server.url;
        if (row.plan) server.plan(fam.route, ...row.plan);
        if (fam.answers) server.plan(fam.answers.route, ...(row.answers ?? fam.answers.replies));
        const dir = tempDir('svc-matrix-');
        writeFileSync(join(dir, 'up.txt'), 'hello');
        for (const [name, text] of Object.entries(fam.inputs ?? {})) writeFileSync(join(dir, name), text);
        const out = fam.out ? join(dir, fam.out) : '';
        if (out) writeFileSync(out, OLD);
        const command = row.stdoutFault && fam.stdoutArgs ? fam.stdoutArgs(dir) : fam.args(dir, out, base);
        if (row.mcp) command[command.indexOf('--mcp') + 1] = `${MCP_SERVER} ${row.mcp}`;
        // a row that waits for the timeout waits 1 s; the others keep 2 s of slack for a busy machine
        const timeout = String(row.timeout ?? (row.stderr === M.timeout ? 1 : 2));
        const args = ['--timeout', timeout, '--max-retries', String(row.retries ?? 0), ...command];
        const data = join(dir, 'data');
        const opts = {
          env: { SVC_BASE_URL: base, SVC_API_KEY: KEY, SVC_DATA_DIR: data },
          cwd: dir,
          timeout: 60_000,
          input: fam.stdin,
        };
        let r: { exitCode: number; stdout: string; stderr: string };
        if (row.stdoutFault && (FULL_RUN || everydayStdoutProcess.has(row.family))) {
          r = await svcShell(stdoutFaultScript(row.stdoutFault), { ...opts, args });
        } else if (row.stdoutFault) {
          r = await svcInProcess(args, { env: opts.env, input: opts.input, stdoutFails: row.stdoutFault });
        } else if (row.ulimit !== undefined) {
          // the reply is larger than 8 blocks of 512 bytes: the write fails with EFBIG
          r = await svcShell(`ulimit -f ${row.ulimit}; svc "$@"`, { ...opts, args });
          // (svcShell, like execa, drops the final newline of stdout)
          if (r.stdout) r.stdout += '\n';
        } else if (row.refusedThenUp) {
          const child = spawnSvc(args, opts);
          // the first handshake was refused: the server comes up on that port during the backoff
          await new Promise<void>((res) => {
            let seen = '';
            child.stderr!.on('data', (c: Buffer) => {
              seen += c.toString();
              if (/retrying/.test(seen)) res();
            });
            void child.catch(() => {}).finally(() => res());
          });
          await server.close();
          server = await HostileServer.start(Number(new URL(base).port));
          const c = await child;
          r = { exitCode: c.exitCode ?? -1, stdout: String(c.stdout ?? ''), stderr: String(c.stderr ?? '') };
        } else if (fam.serves) {
          const child = spawnSvc(args, opts);
          let said = '';
          const exited = child.then(() => undefined);
          // up: it printed the key for its clients (or it ended)
          const key = await Promise.race([
            exited,
            new Promise<string>((res) =>
              child.stderr!.on('data', (c: Buffer) => {
                said += c.toString();
                const m = /use it with: export SVC_BASE_URL=(\S+) SVC_API_KEY=(\S+)\n/.exec(said);
                if (m) res(`${m[1]} ${m[2]}`);
              }),
            ),
          ]);
          if (key && row.client) {
            const [url, localKey] = key.split(' ');
            const client = await svcInProcess(['--timeout', timeout, '--max-retries', '0', 'models', 'list'], {
              env: { SVC_BASE_URL: url!, SVC_API_KEY: localKey!, SVC_DATA_DIR: join(dir, 'client-data') },
            });
            const whyClient = `client: exit ${client.exitCode}\nstderr: ${client.stderr}`;
            expect(client.exitCode, whyClient).toBe(row.client.exit);
            expect(client.stderr, whyClient).toMatch(row.client.stderr);
          }
          child.kill('SIGINT');
          const c = await child;
          r = { exitCode: c.exitCode ?? -1, stdout: String(c.stdout ?? ''), stderr: String(c.stderr ?? '') };
        } else if (row.signal) {
          const child = spawnSvc(args, opts);
          await server.whenHeld();
          // the transfer has begun (the server holds it mid-way): now the signal
          await new Promise((res) => setTimeout(res, 300));
          child.kill(row.signal);
          const c = await child;
          r = { exitCode: c.exitCode ?? -1, stdout: String(c.stdout ?? ''), stderr: String(c.stderr ?? '') };
        } else {
          // only the exit code, the output and the files are looked at: the command runs in this process (with
          // absolute paths, so no working directory of its own: the rows run concurrently)
          r = await svcInProcess(args, { env: opts.env, input: opts.input });
        }
        const why = `exit ${r.exitCode}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
        expect(r.exitCode, why).toBe(row.exit);
        // a test runner reports the fault in the failing case's line; its stderr has the summary
        const onStdout = fam.reportsFailuresOnStdout && row.exit === 1 && !row.stdoutFault;
        expect(onStdout ? r.stdout : r.stderr, why).toMatch(row.stderr);
        if (onStdout) expect(fam.summaryOnStdout ? r.stdout : r.stderr, why).toMatch(fam.failureSummary!);
        // a stdout that failed is the one error said: not the network, not twice
        if (row.stdoutFault) expect(r.stderr.match(/error:/g), why).toHaveLength(1);
        if (row.stdout) expect(r.stdout, why).toMatch(row.stdout);
        // a page cut at the cap is never sent on
        if (row.plan?.includes('endless'))
          expect(
            server.hits.map((h) => h.route),
            why,
          ).not.toContain('POST /v1/chat/completions');
        // a client's name is one line in the notes, whatever it holds
        if (row.family === 'mcp') expect(r.stderr, why).not.toMatch(/^svc: FORGED/m);
        if (row.fault.startsWith('silent') && (row.family === 'realtime' || row.family === 'calls'))
          expect(r.stderr, why).not.toMatch(/connected/);
        if (out) {
          const now = readFileSync(out);
          if (row.exit === 0) {
            expect(now.toString(), why).not.toBe(OLD);
            if (row.family === 'download') expect(now.equals(FILE_BYTES)).toBe(true);
          } else expect(now.toString(), why).toBe(OLD);
        }
        // no temp file (".name.pid.rand.part" or any other) beside the target
        const left = readdirSync(dir).filter(
          (f) =>
            f !== 'up.txt' &&
            f !== 'data' &&
            f !== 'client-data' &&
            f !== fam.out &&
            !(f in (fam.inputs ?? {})) &&
            !fam.writes?.includes(f),
        );
        expect(left, why).toEqual([]);
        // nor in svc's own files (conversations, the call log)
        const ownTemp = existsSync(data)
          ? readdirSync(data, { recursive: true })
              .map(String)
              .filter((f) => /\.(tmp|part)$/.test(f))
          : [];
        expect(ownTemp, why).toEqual([]);
        if (out) expect(existsSync(out)).toBe(true);
        if (fam.folder) {
          const filled = existsSync(join(dir, fam.folder)) ? readdirSync(join(dir, fam.folder)) : [];
          if (row.exit === 0 && !row.stdoutFault) {
            expect(filled.length, why).toBeGreaterThan(0);
            expect(
              filled.filter((f) => f.startsWith('.')),
              why,
            ).toEqual([]);
          } else expect(filled, why).toEqual([]);
        }
        results.push(true);
      } finally {
        await server.close();
      }
    },
  );
});
