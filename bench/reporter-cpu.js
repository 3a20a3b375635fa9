'use strict';
/**
 * Figure 10: the reporter's own CPU, phase by phase, for N results — the part of figure 4 that is the reporter's
 * work, measured where the machine's noise does not reach it (figure 4's ratio moves with the baseline's own
 * spread). The reporter runs in a fresh child process (as in Playwright's runner: loaded once, never warmed up),
 * driven by bench/reporter-cpu-child.js; the sandbox answers in this process, so its CPU is not counted. The
 * phases after onBegin are the child's CPU minus the same driver's with the reporter enabled for nothing: a
 * process woken every few ms pays for each wake-up (≈ 0.3 ms of CPU a test here), the driver's, not the reporter's.
 */
const path = require('node:path');
const L = require('./lib');

const MEDIAN_OF = ['load', 'begin', 'prepare', 'results', 'end', 'endWallMs', 'onTestEndUs'];

/** One fresh child: the reporter publishing to the sandbox (`measured`), or enabled for nothing (the driver's own cost). */
async function child(sandbox, { n, everyMs, label, measured }) {
  const dir = L.tmpDir(`reporter-cpu-${label}`);
  const env = L.cleanEnv({
    ...(measured ? L.pick(sandbox.env(), 'ZEPHYR_') : {}),
    ZEPHYR_CYCLE_NAME: `reporter cpu ${label}`,
    ZEPHYR_RATE_LIMIT: 'off', // as in figure 4: the sandbox has no limit here
    PW_TMS_OUTBOX_DIR: path.join(dir, 'outbox'),
    PW_TMS_SUMMARY_FILE: path.join(dir, 'summary.json'),
    BENCH_N: String(n),
    BENCH_TEST_EVERY_MS: String(everyMs),
    BENCH_PREPARE_MS: String(L.QUICK ? 1500 : 4000),
    BENCH_DIR: dir,
    BENCH_DIST: L.DIST,
  });
  const res = await L.exec(process.execPath, [path.join(__dirname, 'reporter-cpu-child.js')], { env });
  const line = res.output.split('\n').find((l) => l.startsWith('{'));
  if (res.exitCode !== 0 || !line) throw new Error(`reporter-cpu child failed: ${res.output.slice(-800)}`);
  const m = JSON.parse(line);
  if (measured && m.published !== n) throw new Error(`reporter-cpu child published ${m.published} of ${n}`);
  return m;
}

async function reporterCpu(log) {
  const n = L.QUICK ? 300 : 2000;
  // Figure 4's pace: 2,000 trivial tests in ≈ 15 s on two workers.
  const everyMs = 7.5;
  const runs = L.QUICK ? 1 : 3;
  const sandbox = await L.startSandbox({ port: 0, zephyr: { jobDelayMs: 150 }, faults: { zephyr: { latencyMs: 20 } } });
  const all = [];
  const base = [];
  try {
    for (let i = 0; i < runs; i++) {
      const b = await child(sandbox, { n, everyMs, label: `base-${i}`, measured: false });
      const m = await child(sandbox, { n, everyMs, label: `${i}`, measured: true });
      base.push(b);
      all.push(m);
      const minus = (k) => (m[k] - b[k]).toFixed(0);
      log(
        `  run ${i + 1}/${runs}, ms of CPU: load ${m.load.toFixed(0)}, onBegin ${m.begin.toFixed(0)}; minus the driver's own: preparation ${minus('prepare')}, results ${minus('results')} (driver alone ${b.results.toFixed(0)}; onTestEnd ${m.onTestEndUs.toFixed(0)} µs a test, alone ${b.onTestEndUs.toFixed(0)}), end ${minus('end')} (onEnd ${m.endWallMs} ms)`,
      );
    }
  } finally {
    await sandbox.close();
  }
  const med = (rows) => Object.fromEntries(MEDIAN_OF.map((k) => [k, +L.median(rows.map((m) => m[k])).toFixed(1)]));
  const withReporter = med(all);
  const driver = med(base);
  // Loading the package and onBegin are the reporter's whether a target is enabled or not: not subtracted.
  const driverOnly = new Set(['prepare', 'results', 'end']);
  const medians = Object.fromEntries(
    MEDIAN_OF.map((k) => [k, +(driverOnly.has(k) ? withReporter[k] - driver[k] : withReporter[k]).toFixed(1)]),
  );
  const totalMs = Math.round(medians.load + medians.begin + medians.prepare + medians.results + medians.end);
  return {
    n,
    runs,
    testEveryMs: everyMs,
    medians,
    driver,
    withReporter,
    totalMs,
    perTestUs: +((totalMs * 1000) / n).toFixed(0),
    all,
    base,
  };
}

module.exports = { reporterCpu };
