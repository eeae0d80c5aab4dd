// svc-emulator in the single executable (scripts/build-exe.mjs): packages/emulator/bin/svc-emulator.js, bundled with
// the emulator's dist/ into one script; it needs no svc beside it.
import { main } from '../../packages/emulator/dist/main.js';

// in a single executable argv[1] is the executable again, as argv[0]
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
