// svc in the single executable (scripts/build-exe.mjs bundles this file and dist/ into one script): the routes of
// bin/svc.cjs without the files it reads beside itself (help pages rendered at build time, the code-cache folder),
// which the executable does not have; its code cache is Node's own (the SEA blob's useCodeCache). The CLI is
// imported, not at the top: the bundler makes its modules lazy, so that --version runs none of them.
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
