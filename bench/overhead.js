'use strict';
/** Figure 4: the reporter's overhead on a real `playwright test` run, A/B alternated against the sandbox. */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { project } = require('./playwright-runs');

const HAS_TIME = fs.existsSync('/usr/bin/time');

/** `playwright test` with wall time, peak RSS (largest process) and CPU time (whole tree: waiting for a core is not counted). */
async function timedRun(dir, config, env) {
  const args = [L.PW_CLI, 'test', '-c', config];
  const startedAt = Date.now();
  const t0 = performance.now();
  const res = HAS_TIME
    ? await L.exec('/usr/bin/time', ['-v', process.execPath, ...args], { cwd: dir, env })
    : await L.exec(process.execPath, args, { cwd: dir, env });
  const wallMs = performance.now() - t0;
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(res.output);
  const seconds = (what) => Number(new RegExp(`${what} time \\(seconds\\): ([\\d.]+)`).exec(res.output)?.[1] ?? NaN);
  const cpuS = seconds('User') + seconds('System');
  return { startedAt, wallMs, peakRssMB: m ? Number(m[1]) / 1024 : NaN, cpuS, exitCode: res.exitCode, output: res.output };
}

/**
 * A reporter that appends the times of its onBegin, last onTestEnd and onEnd to $PW_ONEND_MARKS (a JSON line):
 * one before the tms reporter, one after, time its onEnd; the first also splits the run into its phases.
 */
const END_MARKER = `const fs = require('node:fs');
module.exports = class {
  onBegin() { this.begin = Date.now(); }
  onTestEnd() { this.last = Date.now(); }
  onEnd() { if (process.env.PW_ONEND_MARKS) fs.appendFileSync(process.env.PW_ONEND_MARKS, JSON.stringify({ begin: this.begin, last: this.last, end: Date.now() }) + '\\n'); }
};
`;

/**
 * One series: `reps` alternated pairs (A/B, B/A, …) of the same project without (A) and with (B) the tms
 * reporter. `workers: 'default'` = Playwright's default (half the cores).
 */
async function series(sandbox, { label, n, reps, workers }, log) {
  // The same end markers on both sides, so that they cost the same; on B they bracket the tms reporter's onEnd.
  const p = project(label, { n, workers, reporter: [['null'], ['./end-marker.js'], ['./end-marker.js']] });
  fs.writeFileSync(path.join(p.dir, 'end-marker.js'), END_MARKER);
  p.write('with.config.js', [['null'], ['./end-marker.js'], ['playwright-tms-reporter', {}], ['./end-marker.js']]);
  /** @type {{ A: Array<{ wallMs: number, peakRssMB: number, cpuS: number }>, B: Array<{ wallMs: number, peakRssMB: number, cpuS: number }> }} */
  const base = { A: [], B: [] };
  const onEndMs = [];
  /** Per side: start → onBegin (loading), onBegin → last test (the tests), last test → exit (the end, every reporter's onEnd). */
  /** @type {{ A: Array<{ loadMs: number, testsMs: number, endMs: number }>, B: Array<{ loadMs: number, testsMs: number, endMs: number }> }} */
  const phases = { A: [], B: [] };
  const sandboxCpuS = []; // the sandbox answers in this process: CPU a remote service would not take from the run
  let published = 0;
  for (let i = 0; i < reps; i++) {
    const order = i % 2 ? ['B', 'A'] : ['A', 'B'];
    for (const k of order) {
      const marks = path.join(p.dir, `onend-${k}-${i}.txt`);
      const env = L.cleanEnv(
        k === 'B'
          ? {
              ...L.pick(sandbox.env(), 'ZEPHYR_'),
              ZEPHYR_CYCLE_NAME: `${label} ${i}`,
              ZEPHYR_RATE_LIMIT: 'off', // the sandbox has no limit here
              PW_TMS_OUTBOX_DIR: path.join(p.dir, `outbox-${i}`),
              PW_TMS_SUMMARY_FILE: path.join(p.dir, `summary-${i}.json`),
              PW_ONEND_MARKS: marks,
            }
          : { PW_ONEND_MARKS: marks },
      );
      const cpu0 = process.cpuUsage();
      const r = await timedRun(p.dir, k === 'A' ? 'playwright.config.js' : 'with.config.js', env);
      const cpu = process.cpuUsage(cpu0);
      if (r.exitCode !== 0) throw new Error(`overhead run ${k} failed: ${r.output.slice(-800)}`);
      base[k].push(r);
      const [before, after] = fs
        .readFileSync(marks, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      phases[k].push({
        loadMs: before.begin - r.startedAt,
        testsMs: before.last - before.begin,
        endMs: r.startedAt + r.wallMs - before.last,
      });
      if (k === 'B') {
        const s = JSON.parse(fs.readFileSync(path.join(p.dir, `summary-${i}.json`), 'utf8'));
        published = s.targets.zephyr.published;
        onEndMs.push(after.end - before.end);
        sandboxCpuS.push((cpu.user + cpu.system) / 1e6);
      }
    }
    log(
      `  ${label} rep ${i + 1}/${reps}: without ${Math.round(base.A[i].wallMs)} ms / ${base.A[i].cpuS.toFixed(1)} s CPU / ${base.A[i].peakRssMB.toFixed(0)} MB, ` +
        `with ${Math.round(base.B[i].wallMs)} ms / ${base.B[i].cpuS.toFixed(1)} s CPU / ${base.B[i].peakRssMB.toFixed(0)} MB, its onEnd ${onEndMs[i]} ms`,
    );
  }
  const ratios = base.A.map((a, i) => base.B[i].wallMs / a.wallMs);
  const rssRatios = base.A.map((a, i) => base.B[i].peakRssMB / a.peakRssMB);
  const cpuRatios = base.A.map((a, i) => base.B[i].cpuS / a.cpuS);
  const noise = base.A.map((a, i) => (i > 0 ? a.wallMs / base.A[i - 1].wallMs : NaN)).filter((x) => !Number.isNaN(x));
  const row = {
    n,
    reps,
    workers,
    medianWallMsWithout: Math.round(L.median(base.A.map((r) => r.wallMs))),
    medianWallMsWith: Math.round(L.median(base.B.map((r) => r.wallMs))),
    medianWallRatio: +L.median(ratios).toFixed(3),
    wallRatioRange: [+Math.min(...ratios).toFixed(3), +Math.max(...ratios).toFixed(3)],
    baselineRunToRunSpread: noise.length ? [+Math.min(...noise).toFixed(3), +Math.max(...noise).toFixed(3)] : null,
    medianPeakRssMBWithout: Math.round(L.median(base.A.map((r) => r.peakRssMB))),
    medianPeakRssMBWith: Math.round(L.median(base.B.map((r) => r.peakRssMB))),
    medianRssRatio: +L.median(rssRatios).toFixed(3),
    medianCpuSWithout: +L.median(base.A.map((r) => r.cpuS)).toFixed(2),
    medianCpuSWith: +L.median(base.B.map((r) => r.cpuS)).toFixed(2),
    medianCpuRatio: +L.median(cpuRatios).toFixed(3),
    // The tms reporter's onEnd (what Playwright awaits after the last test): the rest of the results, then the read-back.
    medianOnEndMs: Math.round(L.median(onEndMs)),
    onEndMs,
    medianSandboxCpuS: +L.median(sandboxCpuS).toFixed(2),
    // Where the difference goes, median ms with minus without: loading, the tests (the reporter's work while they run), the end.
    phaseDeltaMs: Object.fromEntries(
      ['loadMs', 'testsMs', 'endMs'].map((f) => [f, Math.round(L.median(phases.B.map((b) => b[f])) - L.median(phases.A.map((a) => a[f])))]),
    ),
    medianTestsMsWithout: Math.round(L.median(phases.A.map((a) => a.testsMs))),
    rssMeasuredWith: HAS_TIME ? '/usr/bin/time -v (max RSS of the largest process)' : 'not available',
    published,
  };
  log(
    `  ${label}: median wall ratio ${row.medianWallRatio} (range ${row.wallRatioRange.join('..')}), CPU ratio ${row.medianCpuRatio} (+ sandbox ${row.medianSandboxCpuS} s), onEnd ${row.medianOnEndMs} ms, RSS ratio ${row.medianRssRatio}; with − without: load ${row.phaseDeltaMs.loadMs} ms, tests ${row.phaseDeltaMs.testsMs} ms (of ${row.medianTestsMsWithout}), end ${row.phaseDeltaMs.endMs} ms`,
  );
  return row;
}

/**
 * Figure 4. The measured series runs 2 workers on this 2-core machine, so that the workers keep every core
 * busy and any CPU the reporter takes in Playwright's runner comes off the tests (the hardest case). A
 * second series (full mode only, not the verdict) uses Playwright's default worker count — half the cores,
 * which leaves the runner a core — to show what a run with the default setting pays.
 */
async function overhead(log) {
  const n = L.QUICK ? 300 : 2000;
  const sandbox = await L.startSandbox({ port: 0, zephyr: { jobDelayMs: 150 }, faults: { zephyr: { latencyMs: 20 } } });
  try {
    const row = await series(sandbox, { label: 'overhead', n, reps: L.QUICK ? 2 : 5, workers: 2 }, log);
    row.target = { wall: row.medianWallRatio <= 1.02 };
    if (!L.QUICK) row.defaultWorkers = await series(sandbox, { label: 'overhead-default-workers', n, reps: 3, workers: 'default' }, log);
    return row;
  } finally {
    await sandbox.close();
  }
}

module.exports = { overhead };
