// The emulator fixture: svc-emulator's own (in this process, a loopback port, a temp state folder, a fresh key),
// with every key it hands out registered as a secret that CLI output must never show.
import { startTestEmulator as startFixture, type TestEmulator } from 'svc-emulator/testing';
import type { EmulatorOptions } from 'svc-emulator';
import { registerSecret } from './secrets.js';

export type { TestEmulator };

export function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  return startFixture({ ...opts, onKey: registerSecret });
}
