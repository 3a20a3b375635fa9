'use strict';
/** Figure 6 (and the projects figure 4 runs): real `playwright test` child processes against the sandbox. */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');

/**
 * Writes a Playwright project under .tmp (inside the repo, so the reporter resolves by package name).
 * `workers: 'default'` leaves Playwright's default (half the cores).
 * @param {string} label
 * @param {{ n: number, failEvery?: number, sleepMs?: number, reporter: unknown[], files?: number, workers?: number | 'default' }} options
 */
function project(label, { n, failEvery = 0, sleepMs = 0, reporter, files = 4, workers = 2 }) {
  const dir = L.tmpDir(label);
  fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
  for (let f = 0; f < files; f++) {
    const lines = [`const { test, expect } = require('@playwright/test');`];
    for (let i = f; i < n; i += files) {
      const fail = failEvery > 0 && (i + 1) % failEvery === 0;
      const body = `${sleepMs ? `await new Promise((r) => setTimeout(r, ${sleepMs})); ` : ''}expect(${fail ? 1 : 0}).toBe(0);`;
      lines.push(`test('t${i}', { tag: ['@PROJ-${i + 1}', '@cs-${100 + i + 1}'] }, async () => { ${body} });`);
    }
    fs.writeFileSync(path.join(dir, 'tests', `t${f}.spec.js`), `${lines.join('\n')}\n`);
  }
  const write = (name, rep) =>
    fs.writeFileSync(
      path.join(dir, name),
      `module.exports = ${JSON.stringify({ testDir: './tests', outputDir: './test-results', workers: workers === 'default' ? undefined : workers, fullyParallel: true, retries: 0, reporter: rep }, null, 2)};\n`,
    );
  write('playwright.config.js', reporter);
  return { dir, write };
}

/** Expected statuses from Playwright's JSON report (the ground truth of what finished and how). */
function expectedFromJson(file) {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  const z = {};
  const cs = {};
  const x = {};
  const walk = (suite) => {
    for (const s of suite.suites ?? []) walk(s);
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const last = t.results?.[t.results.length - 1];
        if (!last) continue;
        const st = last.status;
        const zs = st === 'passed' ? 1 : st === 'failed' || st === 'timedOut' ? 2 : st === 'interrupted' ? 4 : -1;
        const cst =
          st === 'passed' ? 'passed' : st === 'failed' || st === 'timedOut' ? 'failed' : st === 'interrupted' ? 'blocked' : 'skipped';
        const xs = st === 'passed' ? 'PASSED' : st === 'failed' || st === 'timedOut' ? 'FAILED' : st === 'interrupted' ? 'ABORTED' : 'TODO';
        for (const raw of spec.tags ?? []) {
          const tag = String(raw).replace(/^@/, '');
          // A Jira-key tag goes to every Jira target: Zephyr and Xray.
          if (/^PROJ-\d+$/.test(tag)) ((z[tag] = zs), (x[tag] = xs));
          const m = /^cs-(\d+)$/.exec(tag);
          if (m) cs[m[1]] = cst;
        }
      }
    }
  };
  for (const s of report.suites ?? []) walk(s);
  return { z, cs, x };
}

/**
 * Figure 6: fault matrix; each cell a real run of 40 mapped tests (Zephyr, CucumberStudio and Xray: the Jira-key tag
 * goes to Zephyr and Xray), exact-state checked. Xray's cells: its 500s before / after applying hit imports and
 * GraphQL alike; its 429s come without Retry-After (the case the service's own ticket reports).
 */
async function faultMatrix(log) {
  const n = 40;
  const cells = [
    { id: '104-5', title: 'errorCode 104 / 503 at 5 %', faults: { faultRate: 0.05 }, pushFault: { status: 503 } },
    { id: '104-20', title: 'errorCode 104 / 503 at 20 %', faults: { faultRate: 0.2 }, pushFault: { status: 503 } },
    { id: '104-50', title: 'errorCode 104 / 503 at 50 %', faults: { faultRate: 0.5 }, pushFault: { status: 503 } },
    {
      id: 'applied-5',
      title: 'applied, then 500 at 5 %',
      faults: { appliedFaultRate: 0.05 },
      pushFault: { status: 500, applied: true },
    },
    { id: 'resets', title: 'connection resets at 5 %', faults: { resetRate: 0.05 } },
    {
      id: '429',
      title: '429 storms (Zephyr 5/s, CucumberStudio 20/2 s, Xray 4/s without Retry-After)',
      faults: {
        zephyr: { rateLimit: { count: 5, windowMs: 1000 } },
        cucumberstudio: { rateLimit: { count: 20, windowMs: 2000 } },
        xray: { rateLimit: { count: 4, windowMs: 1000 } },
      },
      xrayRetryAfter: 'none',
      pushFault: { status: 429, headers: { 'retry-after': '1' } },
    },
    { id: 'down', title: 'every service down for the whole run, then replay', faults: { down: true }, upBeforeReplay: true },
    { id: 'down-mid', title: 'every service down mid-run (3 s), then back', midRun: true },
    { id: 'sigint', title: 'SIGINT to playwright mid-run, then replay', sigint: true },
  ];
  const selected = L.QUICK ? cells.filter((c) => ['104-20', 'down', 'sigint'].includes(c.id)) : cells;
  const rows = [];
  // Two passes: the three services on CucumberStudio's per-result path, then CucumberStudio alone on its bulk
  // push (the project's secret token given; Zephyr and Xray switched off), the same cells.
  for (const push of [false, true]) for (const cell of selected) rows.push(await faultCell(cell, n, push, log));
  return rows;
}

/** One cell of figure 6: a real run under the cell's faults, the replay of what is left, the exact state. */
async function faultCell(cell, n, push, log) {
  const sandbox = await L.startSandbox({
    port: 0,
    seed: 7,
    zephyr: { jobDelayMs: 60 },
    cucumberstudio: { generationDelayMs: 300 },
    faults: { zephyr: { latencyMs: 5 }, cucumberstudio: { latencyMs: 5 }, xray: { latencyMs: 5 } },
    // The tag PROJ-n is a Test of Xray's project too.
    xray: { projectKey: 'PROJ', testCount: n },
  });
  if (cell.xrayRetryAfter) sandbox.configure('xray', { retryAfter: cell.xrayRetryAfter });
  try {
    const slow = cell.midRun || cell.sigint;
    const p = project(`matrix-${cell.id}`, {
      n,
      failEvery: 10,
      sleepMs: slow ? 150 : 0,
      reporter: [['dot'], ['json', { outputFile: 'report.json' }], ['playwright-tms-reporter', {}]],
    });
    const name = `matrix ${cell.id}`;
    const outbox = path.join(p.dir, 'outbox');
    const env = L.cleanEnv({
      ...sandbox.env(),
      ZEPHYR_CYCLE_NAME: name,
      ZEPHYR_RATE_LIMIT: 'off', // the cells set the sandbox's limits themselves
      CUCUMBERSTUDIO_TEST_RUN_NAME: name,
      // The first pass keeps the per-result path, as the figure was first measured (the sandbox's env names
      // the push's token too); the second pushes, CucumberStudio alone.
      ...(push ? { ZEPHYR_ENABLED: 'false', XRAY_ENABLED: 'false' } : { CUCUMBERSTUDIO_SECRET_TOKEN: undefined }),
      XRAY_TEST_EXECUTION_SUMMARY: name,
      XRAY_RATE_LIMIT: 'off',
      PW_TMS_OUTBOX_DIR: outbox,
      PW_TMS_SUMMARY_FILE: path.join(p.dir, 'summary.json'),
    });
    const applyFaults = (f) => {
      const { zephyr, cucumberstudio, xray, ...all } = f;
      sandbox.setFaults('zephyr', { ...all, ...(zephyr ?? {}) });
      sandbox.setFaults('cucumberstudio', { ...all, ...(cucumberstudio ?? {}) });
      sandbox.setFaults('xray', { ...all, ...(xray ?? {}) });
    };
    if (cell.faults) applyFaults(cell.faults);
    // 40 results make one push, which the cell's random faults may miss: its first attempt gets the cell's fault.
    if (push && cell.pushFault)
      sandbox.setFaults('cucumberstudio', {
        overrides: [{ method: 'POST', pathIncludes: '/import_test_results/', body: '', times: 1, ...cell.pushFault }],
      });
    const t0 = performance.now();
    let toggler;
    const run = await L.exec(process.execPath, [L.PW_CLI, 'test', '-c', 'playwright.config.js'], {
      cwd: p.dir,
      env,
      onSpawn: (child) => {
        if (cell.midRun) {
          toggler = (async () => {
            while (sandbox.stats()[push ? 'cucumberstudio' : 'zephyr'].requests === 0) await L.sleep(20);
            await L.sleep(300);
            applyFaults({ down: true });
            await L.sleep(3000);
            applyFaults({ down: false });
          })();
        }
        if (cell.sigint) {
          toggler = (async () => {
            // Wait until about half of the tests have finished (the journal holds one line per test).
            for (;;) {
              await L.sleep(50);
              const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.jsonl')) : [];
              const lines = files.length
                ? fs
                    .readFileSync(path.join(outbox, files[0]), 'utf8')
                    .split('\n')
                    .filter((l) => l.includes('"t":"test"')).length
                : 0;
              if (lines >= n / 2) break;
            }
            child.kill('SIGINT');
          })();
        }
      },
    });
    await toggler;
    const runMs = performance.now() - t0;
    if (cell.upBeforeReplay) applyFaults({ down: false });
    if (cell.faults && !cell.upBeforeReplay) applyFaults({ faultRate: 0, appliedFaultRate: 0, resetRate: 0, rateLimit: null, down: false });
    if (!fs.existsSync(path.join(p.dir, 'report.json'))) throw new Error(`${cell.id}: no JSON report:\n${run.output.slice(-1500)}`);
    const expected = expectedFromJson(path.join(p.dir, 'report.json'));
    // The push pass publishes CucumberStudio alone: the others' checks would count everything lost.
    const none = { expected: 0, delivered: 0, duplicates: 0, lost: 0 };
    const check = () => ({
      z: push ? none : L.checkZephyr(sandbox, name, expected.z),
      cs: L.checkCs(sandbox, name, expected.cs),
      x: push ? none : L.checkXray(sandbox, name, expected.x),
    });
    const before = check();
    const leftFiles = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.jsonl')) : [];
    let replayed = false;
    let replayOut = '';
    if (leftFiles.length) {
      const r = await L.exec(process.execPath, [L.BIN, 'replay', outbox], { cwd: L.REPO, env });
      replayed = true;
      replayOut = r.output;
    }
    const after = check();
    const st = sandbox.stats();
    const row = {
      cell: push ? `${cell.title} — CucumberStudio push` : cell.title,
      id: push ? `${cell.id}-push` : cell.id,
      push,
      tests: n,
      finished: Object.keys(expected.cs).length,
      exitCode: run.exitCode,
      runMs: Math.round(runMs),
      injected: {
        faults: st.zephyr.faultsInjected + st.cucumberstudio.faultsInjected + st.xray.faultsInjected,
        pushFaults: st.cucumberstudio.overridden,
        applied: st.zephyr.appliedFaults + st.cucumberstudio.appliedFaults + st.xray.appliedFaults,
        resets: st.zephyr.resets + st.cucumberstudio.resets + st.xray.resets,
        rateLimited: st.zephyr.rateLimited + st.cucumberstudio.rateLimited + st.xray.rateLimited,
      },
      xrayInjected: {
        faults: st.xray.faultsInjected,
        applied: st.xray.appliedFaults,
        resets: st.xray.resets,
        rateLimited: st.xray.rateLimited,
      },
      outboxBeforeReplay: leftFiles.length,
      replayed,
      zephyr: { beforeReplay: before.z, final: after.z },
      cucumberstudio: { beforeReplay: before.cs, final: after.cs },
      xray: { beforeReplay: before.x, final: after.x },
      secretLeak: [
        env.ZEPHYR_SECRET_KEY,
        env.ZEPHYR_ACCESS_KEY,
        env.CUCUMBERSTUDIO_ACCESS_TOKEN,
        env.CUCUMBERSTUDIO_SECRET_TOKEN,
        env.XRAY_CLIENT_SECRET,
      ].some((s) => !!s && (run.output + replayOut).includes(s)),
    };
    const ok = (c) => c.lost === 0 && c.duplicates === 0 && c.delivered === c.expected;
    row.target = { exact: ok(after.z) && ok(after.cs) && ok(after.x), noLeak: !row.secretLeak };
    if (cell.sigint) row.target.outboxHeldFinished = leftFiles.length > 0 || (ok(before.z) && ok(before.cs) && ok(before.x));
    const fmt = (c) => `${c.delivered}/${c.expected} dup ${c.duplicates} lost ${c.lost}`;
    log(
      push
        ? `  ${row.cell}: CucumberStudio ${fmt(after.cs)}, ${st.cucumberstudio.requests} calls, ${st.cucumberstudio.overridden} push answer(s) faulted${replayed ? ` (after replay; before: ${fmt(before.cs)})` : ''}`
        : `  ${cell.title}: Zephyr ${fmt(after.z)}, CucumberStudio ${fmt(after.cs)}, Xray ${fmt(after.x)}${replayed ? ` (after replay; before: Z ${fmt(before.z)}, CS ${fmt(before.cs)}, X ${fmt(before.x)})` : ''}`,
    );
    return row;
  } finally {
    await sandbox.close();
  }
}

/** A reporter that writes V8's young generation (reserved / resident MB) of Playwright's runner at onBegin and onEnd. */
const YOUNG_PROBE = `const fs = require('node:fs');
const v8 = require('node:v8');
const young = () => {
  const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  return { sizeMB: +(s.space_size / 2 ** 20).toFixed(1), physicalMB: +(s.physical_space_size / 2 ** 20).toFixed(1) };
};
module.exports = class {
  onBegin() { this.begin = young(); }
  onEnd() { fs.writeFileSync(process.env.PW_YOUNG_OUT, JSON.stringify({ begin: this.begin, end: young() })); }
};
`;

/**
 * Figure 5's host: the young generation Playwright's runner already has when a reporter's onBegin runs (a run
 * of `n` trivial tests, no tms reporter). What a publisher adds to it is what figure 5 measures.
 */
async function hostYoungGeneration(n = 20) {
  const p = project('host-young', { n, reporter: [['null'], ['./young-probe.js']] });
  try {
    fs.writeFileSync(path.join(p.dir, 'young-probe.js'), YOUNG_PROBE);
    const out = path.join(p.dir, 'young.json');
    const res = await L.exec(process.execPath, [L.PW_CLI, 'test', '-c', 'playwright.config.js'], {
      cwd: p.dir,
      env: L.cleanEnv({ PW_YOUNG_OUT: out }),
    });
    if (res.exitCode !== 0 || !fs.existsSync(out)) throw new Error(`young generation probe failed: ${res.output.slice(-500)}`);
    return { tests: n, ...JSON.parse(fs.readFileSync(out, 'utf8')) };
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

module.exports = { project, faultMatrix, hostYoungGeneration };
