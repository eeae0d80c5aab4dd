// The emulator as a test fixture, for svc's own suite and anyone else's: started in this process on a loopback port,
// its state in a fresh temporary folder (removed by close()), a fresh key with every ACL, the request log at hand.
// Every reply it gives is checked against the API document (spec/openapi.json, contract.ts): close() throws, naming
// each reply the document does not allow. `SVC_CONTRACT_REPORT=FILE` appends what was checked to FILE (one JSON line
// per emulator) for the figures of a run.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyRecord } from './state/auth.js';
import type { LoggedRequest } from './state/request-log.js';
import { ContractChecker, type ReplyRecord } from './core/contract.js';
import { startEmulator, type Emulator, type EmulatorOptions } from './http/server.js';

export interface TestEmulator extends Emulator {
  /** a fresh key with every ACL, registered on the emulator */
  key: string;
  /** the temporary folder of its state */
  dir: string;
  /** requests that reached the emulator, excluding admin calls */
  requests(): LoggedRequest[];
  clearRequests(): void;
}

export interface TestEmulatorOptions extends EmulatorOptions {
  /**
   * told every key the fixture hands out (the built-in one, the test key, each addKey()), e.g. to scan output for it
   */
  onKey?: (key: string) => void;
  /** check every reply against the API document (default true) */
  contract?: boolean;
}

/** one checker per process: its compiled validators serve every emulator of a test run */
let checker: Promise<ContractChecker> | undefined;

/** The reply hook that checks each reply, and what it found. */
async function contractHook(): Promise<{ onReply: (r: ReplyRecord) => void; problems: string[]; report(): void }> {
  // the document itself is checked against the meta-schema by contract.test.ts, not again in every worker
  checker ??= ContractChecker.create(false);
  const c = await checker;
  const problems: string[] = [];
  let replies = 0;
  const before = c.replies;
  return {
    problems,
    onReply(r) {
      try {
        problems.push(...c.check(r));
      } catch (err) {
        problems.push(`the contract checker failed on a reply: ${(err as Error).message}`);
      }
      replies = c.replies - before;
    },
    report() {
      const file = process.env.SVC_CONTRACT_REPORT;
      if (file)
        // what the process's checker has covered so far (read here, not copied at every reply: realtime sessions
        // send thousands of events)
        appendFileSync(file, `${JSON.stringify({ replies, problems: problems.length, covered: [...c.covered] })}\n`);
    },
  };
}

export async function startTestEmulator(opts: TestEmulatorOptions = {}): Promise<TestEmulator> {
  const { onKey = () => {}, contract = true, ...emulatorOptions } = opts;
  const hook = contract ? await contractHook() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const emu = await startEmulator({
    stateDir: join(dir, 'state'),
    quietLog: true,
    ...emulatorOptions,
    onReply: hook?.onReply ?? emulatorOptions.onReply,
  });
  if (hook) emu.core.on('webhook', (event: unknown) => hook.onReply({ kind: 'webhook', event }));
  const addKey = emu.addKey.bind(emu);
  const closeEmulator = emu.close.bind(emu);
  const rec = addKey({ name: 'test key' });
  onKey(rec.key);
  onKey(emu.defaultKey);
  return Object.assign(emu, {
    addKey(partial?: Partial<KeyRecord>) {
      const k = addKey(partial);
      onKey(k.key);
      return k;
    },
    key: rec.key,
    dir,
    requests: () => emu.core.requests,
    clearRequests: () => {
      emu.core.requests.length = 0;
    },
    async close() {
      await closeEmulator();
      rmSync(dir, { recursive: true, force: true });
      hook?.report();
      if (hook?.problems.length) {
        const distinct = [...new Set(hook.problems.map((p) => p.split('; ')[0]!))];
        throw new Error(
          `the emulator gave ${hook.problems.length} repl(ies) the API document (spec/openapi.json) does not allow:\n` +
            distinct.slice(0, 10).join('\n') +
            `\nfirst: ${hook.problems[0]}`,
        );
      }
    },
  }) as TestEmulator;
}
