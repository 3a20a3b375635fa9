'use strict';
/**
 * Figure 14: CucumberStudio's bulk push (issue 34). (1) The issue's scenario: real `playwright test` runs of
 * trivial tests mapped to both services, 2 workers, the services' real limits in the sandbox and the client's
 * default pacing: without the reporter, per-result path (no secret token), push path (token), and each service
 * alone on it. (2) CucumberStudio's calls on the push path: figure 8's time-scaled scenario with the token. (3) Its
 * tail: the same scenario at S = 1 (real time) over a 2-minute run, and the 30×-scaled one beside it.
 */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const T = require('./tail');
const { project } = require('./playwright-runs');

/** The services' real limits (spec: CucumberStudio 200 a minute per IP, then a 60 s lock-out; Zephyr ≈ 30 a minute per key). */
const LIMITS = {
  zephyr: { rateLimit: { count: 30, windowMs: 60_000 } },
  cucumberstudio: { rateLimit: { count: 200, windowMs: 60_000 } },
};

/**
 * One `playwright test` run; `kind` without | perResult | push | pushCsOnly | zephyrOnly. A fresh sandbox per run:
 * no window carries over.
 */
async function wallRun(p, kind, i, log) {
  const sandbox = await L.startSandbox({ port: 0, faults: LIMITS });
  try {
    const name = `bench push ${kind} ${i}`;
    const services = { ...L.pick(sandbox.env(), 'ZEPHYR_'), ...L.pick(sandbox.env(), 'CUCUMBERSTUDIO_') };
    if (kind === 'perResult') delete services.CUCUMBERSTUDIO_SECRET_TOKEN;
    // What CucumberStudio's push alone costs the run: Zephyr not configured (not the issue's scenario; a diagnosis).
    if (kind === 'pushCsOnly') for (const k of Object.keys(services)) if (k.startsWith('ZEPHYR_')) delete services[k];
    // Zephyr's own floor: CucumberStudio not configured, so the wall is what Zephyr's calls take at its pace.
    if (kind === 'zephyrOnly') for (const k of Object.keys(services)) if (k.startsWith('CUCUMBERSTUDIO_')) delete services[k];
    // The client's defaults otherwise (pacing Zephyr 28/60, CucumberStudio 195/60; publishTimeout 600 s).
    const env = L.cleanEnv(
      kind === 'without'
        ? {}
        : {
            ...services,
            ZEPHYR_CYCLE_NAME: name,
            CUCUMBERSTUDIO_TEST_RUN_NAME: name,
            PW_TMS_OUTBOX_DIR: path.join(p.dir, `outbox-${kind}-${i}`),
            PW_TMS_SUMMARY_FILE: path.join(p.dir, `summary-${kind}-${i}.json`),
          },
    );
    const startedAt = Date.now();
    const t0 = performance.now();
    const config = kind === 'without' ? 'playwright.config.js' : 'with.config.js';
    const res = await L.exec(process.execPath, [L.PW_CLI, 'test', '-c', config], {
      cwd: p.dir,
      env,
      timeoutMs: 1_500_000,
    });
    const wallMs = Math.round(performance.now() - t0);
    if (res.exitCode !== 0) throw new Error(`figure 14 ${kind} run failed (exit ${res.exitCode}): ${res.output.slice(-800)}`);
    const row = { kind, wallMs };
    if (kind !== 'without') {
      const cs = {};
      const z = {};
      for (let t = 0; t < p.n; t++) {
        z[`PROJ-${t + 1}`] = 1;
        cs[String(100 + t + 1)] = 'passed';
      }
      if (kind === 'pushCsOnly') for (const k of Object.keys(z)) delete z[k];
      if (kind === 'zephyrOnly') for (const k of Object.keys(cs)) delete cs[k];
      const st = sandbox.stats();
      // When each service got its last call (s after the start): which one the end of the run waited for.
      const lastCallS = (svc) =>
        +(
          (Math.max(
            startedAt,
            ...sandbox
              .log()
              .filter((e) => e.service === svc)
              .map((e) => e.at),
          ) -
            startedAt) /
          1000
        ).toFixed(1);
      const summary = JSON.parse(fs.readFileSync(path.join(p.dir, `summary-${kind}-${i}.json`), 'utf8'));
      Object.assign(row, {
        zephyr: {
          ...L.checkZephyr(sandbox, name, z),
          calls: st.zephyr.requests,
          got429: st.zephyr.rateLimited,
          byRoute: st.zephyr.byRoute,
          lastCallS: lastCallS('zephyr'),
        },
        cucumberstudio: {
          ...L.checkCs(sandbox, name, cs),
          calls: st.cucumberstudio.requests,
          got429: st.cucumberstudio.rateLimited,
          byRoute: st.cucumberstudio.byRoute,
          lastCallS: lastCallS('cucumberstudio'),
        },
        durationMs: Object.fromEntries(Object.entries(summary.targets).map(([k, v]) => [k, /** @type {any} */ (v).durationMs])),
        published: Object.fromEntries(Object.entries(summary.targets).map(([k, v]) => [k, /** @type {any} */ (v).published])),
        errors: Object.values(summary.targets).flatMap((v) => /** @type {any} */ (v).errors ?? []),
      });
    }
    const extra = row.zephyr
      ? `; Zephyr ${row.zephyr.delivered}/${row.zephyr.expected} lost ${row.zephyr.lost} dup ${row.zephyr.duplicates} (${row.zephyr.calls} calls, ${row.zephyr.got429}× 429, last at ${row.zephyr.lastCallS} s); ` +
        `CucumberStudio ${row.cucumberstudio.delivered}/${row.cucumberstudio.expected} lost ${row.cucumberstudio.lost} dup ${row.cucumberstudio.duplicates} (${row.cucumberstudio.calls} calls, ${row.cucumberstudio.got429}× 429, last at ${row.cucumberstudio.lastCallS} s) ${JSON.stringify(row.cucumberstudio.byRoute)}`
      : '';
    log(`  ${kind} ${i + 1}: wall ${(wallMs / 1000).toFixed(1)} s${extra}`);
    return row;
  } finally {
    await sandbox.close();
  }
}

/** The row of a kind: median wall of its runs, the worst losses and duplicates of any. */
function summarize(kind, runs) {
  const walls = runs.map((r) => r.wallMs);
  const last = runs[runs.length - 1];
  const worst = (svc, f) => Math.max(...runs.map((r) => r[svc][f]));
  return {
    kind,
    runs: runs.length,
    medianWallS: +(L.median(walls) / 1000).toFixed(1),
    wallsS: walls.map((w) => +(w / 1000).toFixed(1)),
    ...(last.zephyr
      ? {
          zephyr: {
            lost: worst('zephyr', 'lost'),
            duplicates: worst('zephyr', 'duplicates'),
            calls: last.zephyr.calls,
            got429: last.zephyr.got429,
            byRoute: last.zephyr.byRoute,
            lastCallS: runs.map((r) => r.zephyr.lastCallS),
          },
          cucumberstudio: {
            lost: worst('cucumberstudio', 'lost'),
            duplicates: worst('cucumberstudio', 'duplicates'),
            calls: last.cucumberstudio.calls,
            got429: last.cucumberstudio.got429,
            byRoute: last.cucumberstudio.byRoute,
            lastCallS: runs.map((r) => r.cucumberstudio.lastCallS),
          },
          errors: [...new Set(runs.flatMap((r) => r.errors))].slice(0, 5),
        }
      : {}),
    detail: runs,
  };
}

/**
 * Figure 14. Full mode: 2,000 tests, without and push twice each (alternated), per-result once (≈ 10 min);
 * `BENCH_PUSH_PER_RESULT=0` leaves the per-result row out. Quick: 300 tests, each once.
 */
async function pushFigure(log) {
  const n = L.QUICK ? 300 : 2000;
  const reps = L.QUICK ? 1 : Number(process.env.BENCH_PUSH_REPS ?? 2);
  const perResult = process.env.BENCH_PUSH_PER_RESULT !== '0';
  const p = { ...project('push-wall', { n, workers: 2, reporter: [['null']] }), n };
  p.write('with.config.js', [['null'], ['playwright-tms-reporter', {}]]);
  log(
    `  (1) wall: ${n} trivial tests mapped to both services, 2 workers; sandbox Zephyr 30/60 s per key, CucumberStudio 200/60 s per IP (lock-out); client defaults`,
  );
  /** @type {Record<string, any[]>} */
  const runs = { without: [], push: [], pushCsOnly: [], zephyrOnly: [], perResult: [] };
  for (let i = 0; i < reps; i++)
    for (const kind of i % 2 ? ['push', 'without'] : ['without', 'push']) runs[kind].push(await wallRun(p, kind, i, log));
  runs.pushCsOnly.push(await wallRun(p, 'pushCsOnly', 0, log));
  runs.zephyrOnly.push(await wallRun(p, 'zephyrOnly', 0, log));
  if (perResult) runs.perResult.push(await wallRun(p, 'perResult', 0, log));
  const wall = Object.fromEntries(
    Object.entries(runs)
      .filter(([, r]) => r.length)
      .map(([k, r]) => [k, summarize(k, r)]),
  );
  const ratio = (k) => (wall[k] ? +(wall[k].medianWallS / wall.without.medianWallS).toFixed(3) : null);
  const pushRatio = ratio('push');
  const pushCsOnlyRatio = ratio('pushCsOnly');
  log(
    `  wall ratio to without: CucumberStudio alone (push) ${pushCsOnlyRatio}; both services ${pushRatio} beside Zephyr alone ${ratio('zephyrOnly')}${wall.perResult ? `; per result ${ratio('perResult')}` : ''}`,
  );

  log(`  (2)+(3) the push path in figure 8's scenario (${T.S}× time-scaled, 2,000 tests over 10 minutes, 5 % failing)`);
  const tail = await T.scenario(log, { service: 'cucumberstudio', shards: 1, stream: true, push: true });
  // (3) at real time: the end's CPU counts once, as in CI. 2 minutes, not 10: the same 100 failed-test posts
  // in a fifth of the time put more pressure on the 200-a-minute budget, not less. Quick mode: 30 s.
  const realRunMs = L.QUICK ? 30_000 : 120_000;
  log(`  (3) the push path at real time (S = 1): 2,000 tests over ${realRunMs / 1000} s, 5 % failing`);
  const realTail = await T.scenario(log, {
    service: 'cucumberstudio',
    shards: 1,
    stream: true,
    push: true,
    scale: 1,
    runRealMs: realRunMs,
  });
  const uploads = Object.entries(tail.byRoute)
    .filter(([r]) => /attachment/i.test(r))
    .reduce((a, [, c]) => a + c, 0);
  const calls = tail.calls - uploads;
  return {
    n,
    limits: LIMITS,
    wall,
    pushRatio,
    perResultRatio: ratio('perResult'),
    pushCsOnlyRatio,
    zephyrOnlyRatio: ratio('zephyrOnly'),
    calls: {
      n: tail.n,
      failed: tail.failed,
      calls,
      uploads,
      got429: tail.got429,
      byRoute: tail.byRoute,
      lost: tail.lost,
      duplicates: tail.duplicates,
    },
    tail,
    realTail,
    target: {
      // CucumberStudio's push path against the run without: with Zephyr beside it the wall is Zephyr's own (its
      // row alone shows the floor), which no CucumberStudio push can move.
      wall: pushCsOnlyRatio !== null && pushCsOnlyRatio <= 1.1,
      calls: calls <= 150,
      tail: realTail.tailRealS <= 10,
      exact:
        Object.values(wall).every(
          (/** @type {any} */ w) =>
            !w.zephyr || w.zephyr.lost + w.zephyr.duplicates + w.cucumberstudio.lost + w.cucumberstudio.duplicates === 0,
        ) &&
        tail.lost === 0 &&
        tail.duplicates === 0 &&
        realTail.lost === 0 &&
        realTail.duplicates === 0,
    },
  };
}

/** Figure 14's rows of the table (run.js). */
function rows14(f, add, yes) {
  const lossOf = (w) =>
    w.zephyr
      ? `; Z lost ${w.zephyr.lost} dup ${w.zephyr.duplicates}, CS lost ${w.cucumberstudio.lost} dup ${w.cucumberstudio.duplicates}`
      : '';
  const names = {
    without: 'without the reporter',
    perResult: 'with it, per-result path (no token)',
    push: 'with it, push path (token), both services',
    zephyrOnly: '  Zephyr alone (CucumberStudio off): the floor',
    pushCsOnly: '  push path, CucumberStudio alone (Zephyr off)',
  };
  for (const k of ['without', 'perResult', 'push', 'zephyrOnly', 'pushCsOnly']) {
    const w = f.wall[k];
    if (!w) continue;
    add('14', `wall N=${f.n}, ${names[k]}`, `median ${w.medianWallS} s of ${w.runs} (${w.wallsS.join('/')})${lossOf(w)}`, '', '');
  }
  add(
    '14',
    '  push path wall / without, CucumberStudio alone',
    `${f.pushCsOnlyRatio}${f.perResultRatio ? ` (per-result path, both services ${f.perResultRatio})` : ''}`,
    '≤ 1.10',
    yes(f.target.wall),
  );
  // Not a target the push can move: Zephyr's calls for 2,000 new keys at its ≈ 30 a minute.
  add(
    '14',
    '  both services / without, beside Zephyr alone',
    `${f.pushRatio} beside ${f.zephyrOnlyRatio} (Zephyr ${f.wall.zephyrOnly?.zephyr?.calls} calls at its pace)`,
    'Zephyr floor',
    '',
  );
  const c = f.calls;
  add(
    '14',
    `CucumberStudio calls, N=${c.n}, ${c.failed} failing, push path`,
    `${c.calls} (+ ${c.uploads} uploads apart), ${c.got429}× 429`,
    '≤ 150',
    yes(f.target.calls),
  );
  const r = f.realTail;
  add(
    '14',
    `  tail under real limits, push path (real time, ${r.runRealS} s run)`,
    `${r.tailRealS} s, ${r.calls} calls, ${r.got429}× 429, lost ${r.lost}, dup ${r.duplicates}`,
    '≤ 10 s, 0/0',
    `${yes(f.target.tail)}/${yes(f.target.exact)}`,
  );
  add(
    '14',
    "  tail, push path, 30×-scaled (the end's CPU counts 30×)",
    `${f.tail.tailRealS} s real-eq (${f.tail.tailMs} ms of wall), lost ${f.tail.lost}, dup ${f.tail.duplicates}`,
    '',
    '',
  );
}

module.exports = { pushFigure, rows14 };
