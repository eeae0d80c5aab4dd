#!/usr/bin/env node
// The emulator on its own (`npx svc-emulator serve`), for CI jobs that want the emulator and not the CLI.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
