// Added latency per streamed token: from the emulator writing a token to the CLI writing it to stdout,
// against a minimal node script that reads the same SSE stream and writes the text.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, cleanEnv, median, percentile } from './lib.mjs';

async function measure(emu, cmd, args, env) {
  const sent = [];
  const onSse = (e) => {
    const piece = e.data?.choices?.[0]?.delta?.content;
    if (piece) sent.push({ at: performance.now(), piece });
  };
  emu.core.on('sse', onSse);
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const arrivals = [];
  let total = 0;
  child.stdout.on('data', (d) => {
    total += d.toString().length;
    arrivals.push({ at: performance.now(), total });
  });
  await new Promise((r) => child.once('exit', r));
  emu.core.off('sse', onSse);
  const latencies = [];
  let cum = 0;
  for (const s of sent) {
    cum += s.piece.length;
    const a = arrivals.find((x) => x.total >= cum);
    if (a) latencies.push(a.at - s.at);
  }
  return latencies;
}

export default async function streamLatency() {
  const { startEmulator } = await import(join(ROOT, 'packages/emulator/dist/http/server.js'));
  const emu = await startEmulator({ tokenDelayMs: 15 });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
    const reader = join(dir, 'reader.mjs');
    writeFileSync(
      reader,
      `import http from 'node:http';
const messages = [{ role: 'user', content: process.env.PROMPT }];
const body = JSON.stringify({ model: 'svc-4', stream: true, messages });
const headers = { authorization: 'Bearer ' + process.env.KEY, 'content-type': 'application/json' };
const req = http.request(process.env.URL + '/v1/chat/completions', { method: 'POST', headers }, (res) => {
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\\n\\n')) >= 0) {
      const frame = buf.slice(0, i); buf = buf.slice(i + 2);
      const data = frame.replace(/^data: /, '');
      if (data === '[DONE]') return;
      const piece = JSON.parse(data).choices[0]?.delta?.content;
      if (piece) process.stdout.write(piece);
    }
  });
});
req.end(body);`,
    );
    const env = cleanEnv({
      SVC_BASE_URL: emu.url,
      SVC_API_KEY: emu.defaultKey,
      URL: emu.url,
      KEY: emu.defaultKey,
      PROMPT: 'latency probe',
    });
    const cli = [];
    const base = [];
    for (let i = 0; i < 5; i++) {
      cli.push(...(await measure(emu, 'node', [BIN, 'chat', 'latency probe'], env)));
      base.push(...(await measure(emu, 'node', [reader], env)));
    }
    return [
      { name: 'token latency, minimal SSE reader (median)', value: median(base), unit: 'ms' },
      {
        name: 'token latency, svc chat (median)',
        value: median(cli),
        unit: 'ms',
        baseline: 'minimal SSE reader',
        ratio: median(cli) / Math.max(median(base), 0.001),
      },
      { name: 'token latency, svc chat (p99)', value: percentile(cli, 99), unit: 'ms' },
      { name: 'added latency per token (median, svc − minimal)', value: median(cli) - median(base), unit: 'ms' },
    ];
  } finally {
    await emu.close();
  }
}
