// Preloaded into the node processes a benchmark times (`node --require`): reports the process's CPU time (user +
// system, all threads) on stderr at exit. CPU time hardly depends on how loaded the machine is; wall time does.
process.once('exit', () => {
  const { user, system } = process.cpuUsage();
  require('node:fs').writeSync(2, `\nsvc-bench-cpu-us ${user + system}\n`);
});
