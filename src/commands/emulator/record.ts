import { defineCommand } from '../../cmdutil/command.js';
import { forceFlags } from '../../cmdutil/flag-sets.js';
import { outputPath } from '../../core/atomic-file.js';
import { httpUrl, integer } from '../../core/validate.js';

/** Files the recorder writes in the folder beside the fixture (only these are removed by --force). */
const RECORDED_FILE = /^\d+-(reply|client|server|refusal)\.[a-z0-9]+$/;

export default defineCommand({
  description:
    'Listens on a loopback port and forwards every request — HTTP, server-sent events and the realtime, TTS and ' +
    'STT WebSockets — to the upstream API (--upstream, default: the base URL in use) with your API key, which goes ' +
    'to that origin only; clients of the recorder use the key it prints (stdout: its URL; with --print-env the ' +
    'export lines). Each exchange is written to the fixture (--out) as it ends: credentials, Authorization, ' +
    'cookies and keys removed, audio and other binary bodies kept as files in the folder beside it (NAME.audio/). ' +
    'Replay it with `svc emulator serve --replay FILE`. Ctrl-C stops it (exit 0). The fixture format: ' +
    'packages/emulator/README.md.',
  options: [
    {
      flags: '--upstream <url>',
      description: 'the API to record (default: the base URL in use); your key is sent there only',
      parse: httpUrl(),
    },
    {
      flags: '--out <file>',
      description: 'the fixture to write (its files go to the folder NAME.audio beside it)',
      default: 'svc-recording.json',
      parse: outputPath(),
    },
    {
      flags: '--port <n>',
      description: 'loopback port to listen on (0: any free port)',
      default: 0,
      parse: integer({ min: 0, max: 65535 }),
    },
    {
      flags: '--print-env',
      description: "print `export SVC_BASE_URL=…` and `export SVC_API_KEY=…` (the recorder's key) instead of the URL",
    },
    ...forceFlags('an existing fixture and its recorded files'),
  ],
  examples: [
    'svc emulator record --upstream https://api.svc.example --out ci/session.json',
    'eval "$(svc emulator record --print-env --out ci/s.json 2>/dev/null &)"; svc chat hi; kill $SVC_EMULATOR_PID',
  ],
  async run(ctx, _args, opts) {
    const { UsageError } = await import('../../core/errors.js');
    const { checkBaseUrl } = await import('../../runtime/config.js');
    const { refuseExisting, writeFileAtomic } = await import('../../core/atomic-file.js');
    const { existsSync, readdirSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { assetDir } = await import('svc-emulator/replay');
    const upstream = opts.upstream ?? ctx.config().baseUrl;
    // plain http:// only to loopback (the key would cross the network in clear), as for --base-url
    try {
      checkBaseUrl(upstream, ctx.env);
    } catch (err) {
      throw new UsageError((err as Error).message.replace(/^--base-url/, '--upstream'));
    }
    refuseExisting(opts.out, '--out', opts.force);
    const dir = assetDir(opts.out);
    const earlier = existsSync(dir) ? readdirSync(dir).filter((f) => RECORDED_FILE.test(f)) : [];
    if (earlier.length && !opts.force)
      throw new UsageError(`--out: ${dir} already holds recorded files (${earlier.length}); --force replaces them`);
    const key = await ctx.apiKey();
    for (const f of earlier) rmSync(join(dir, f));
    const { startRecorder } = await import('svc-emulator/record');
    const rec = await startRecorder({
      upstream,
      key,
      out: opts.out,
      port: opts.port,
      save: async (text) => void (await writeFileAtomic(opts.out, text, { replace: true })),
      onSaveError: (err) => ctx.out.error(`the fixture could not be written: ${err.message}`),
    });
    const { exportLines, releaseStdout } = await import('svc-emulator/start-lines');
    if (opts.printEnv) ctx.out.write(exportLines(rec.url, rec.localKey));
    else ctx.out.line(rec.url);
    // the URL is what a client needs: a stdout that failed (a full disk) ends the run now, not a recorder none can find
    const stdout = ctx.out.stdoutGuard;
    await stdout.settle();
    if (stdout.failure) {
      await rec.close();
      throw stdout.failure;
    }
    await releaseStdout(ctx.streams.stdout);
    ctx.out.info(`svc emulator record: ${rec.url} forwards to ${new URL(upstream).origin}; Ctrl-C stops it`);
    ctx.out.info(`key for clients of the recorder: ${rec.localKey}`);
    ctx.out.info(`use it with: export SVC_BASE_URL=${rec.url} SVC_API_KEY=${rec.localKey}`);
    await new Promise<void>((resolve) => {
      ctx.setInterruptHandler(resolve);
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await rec.close();
    ctx.out.info(`recorded ${rec.count()} exchange(s) in ${opts.out}`);
    return 0;
  },
});
