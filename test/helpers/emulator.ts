// The emulator fixture: svc-emulator's own (in this process, a loopback port, a temp state folder, a fresh key),
// with every key it hands out registered as a secret that CLI output must never show.
import { it } from 'vitest';
import { startTestEmulator as startFixture, type TestEmulator } from 'svc-emulator/testing';
import type { EmulatorOptions } from 'svc-emulator';
import { registerSecret } from './secrets.js';

export type { TestEmulator };

export function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  return startFixture({ ...opts, onKey: registerSecret });
}

/**
 * `it` whose tests each get an emulator of their own as `emu` in their context (set up by `prepare`), started before
 * and closed after the test: tests that wait (clips played at real time, timeouts) can then run at once
 * (`.concurrent`, or in a `describe.concurrent`) without reading one another's requests, sessions or faults.
 */
export function itWithEmulator(prepare: (emu: TestEmulator) => void = () => {}) {
  return it.extend<{ emu: TestEmulator }>({
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    emu: async ({}, use) => {
      const own = await startTestEmulator();
      prepare(own);
      await use(own);
      await own.close();
    },
  });
}
