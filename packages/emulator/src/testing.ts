// The emulator as a test fixture, for svc's own suite and anyone else's: started in this process on a loopback port,
// its state in a fresh temporary folder (removed by close()), a fresh key with every ACL, the request log at hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyRecord } from './auth.js';
import type { LoggedRequest } from './backend.js';
import { startEmulator, type Emulator, type EmulatorOptions } from './server.js';

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
}

export async function startTestEmulator(opts: TestEmulatorOptions = {}): Promise<TestEmulator> {
  const { onKey = () => {}, ...emulatorOptions } = opts;
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const emu = await startEmulator({ stateDir: join(dir, 'state'), quietLog: true, ...emulatorOptions });
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
    },
  }) as TestEmulator;
}
