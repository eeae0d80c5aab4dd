// svc in the single executable (scripts/build-exe.mjs bundles this file and dist/ into chunks, which
// scripts/exe/loader.cjs runs from the executable's assets): the routes of bin/svc.cjs without the files it reads
// beside itself (help pages rendered at build time). The CLI is imported, not at the top: it is a chunk of its own
// (and the chunks it requires), so that --version compiles none of them.
/** written in by scripts/build-exe.mjs */
const VERSION = __SVC_VERSION__;

// in a single executable argv[1] is the executable again, as argv[0]
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V'))
  // the version and the Node inside (what a support ticket needs to know of this file)
  process.stdout.write(
    `${VERSION} (single executable, Node.js ${process.version}, ${process.platform}-${process.arch})\n`,
  );
else if (argv[0] === '__complete')
  import('../../dist/commands/completion/dynamic.js').then((m) => m.main(argv.slice(1)));
else import('../../dist/cli.js').then((m) => m.main(argv));
