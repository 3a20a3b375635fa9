// Loaded with `node --require` into every process a test starts (Playwright's runner, its workers, replay…) when
// PW_TMS_TEST_CPU_LOG=<file> is set (see countStart in harness.ts): at exit, one line per process — the test file,
// what the process was, its CPU seconds and wall ms. Workers are what a failing test costs: Playwright starts a new
// one after every failed attempt (≈ 1 s of CPU each).
const fs = require('node:fs');
const started = Date.now();
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  const argv = process.argv.slice(1).map((a) => a.replace(/.*\//, ''));
  const what = /workerProcessEntry|processHost/.test(process.argv.join(' ')) ? 'worker' : argv.join(' ').slice(0, 60);
  const line = [process.env.PW_TMS_TEST_CPU_FILE || '?', what, ((user + system) / 1e6).toFixed(3), Date.now() - started];
  try {
    fs.appendFileSync(process.env.PW_TMS_TEST_CPU_LOG, line.join('\t') + '\n');
  } catch {
    // accounting only
  }
});
