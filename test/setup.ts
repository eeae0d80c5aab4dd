// After every test file: no API key may appear in anything a CLI process printed (stdout or stderr, --verbose
// included). svc() checks each run as it ends; this also covers processes started with spawnSvc.
import { afterAll } from 'vitest';
import { scanCapturedOutput } from './helpers/cli.js';

afterAll(() => {
  scanCapturedOutput();
});
