'use strict';
/** Figures 1-3 and 5: the publisher (PublishRun) driven directly with synthetic TestRecords. */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { hostYoungGeneration } = require('./playwright-runs');

const ZEPHYR_STATUS = { passed: 1, failed: 2 };

/**
 * Runs one publish like the reporter does: start at suite begin, a test-run period, then finish.
 * @param {any} sandbox
 * @param {{ options: any, env: any, recs: any, runWait?: boolean, deps?: any }} o
 */
async function publishOnce(sandbox, { options, env, recs, runWait = true, deps }) {
  const dir = L.tmpDir('pub');
  const config = L.resolveConfig(
    { outboxDir: path.join(dir, 'outbox'), summaryFile: path.join(dir, 'summary.json'), ...options },
    env,
    dir,
  );
  if (config.problems.length) throw new Error(`bench config: ${config.problems.join('; ')}`);
  const printer = L.silentPrinter();
  const run = new L.PublishRun(config, { printer, deps });
  const before = sandbox.stats();
  const t0 = performance.now();
  run.start(recs);
  let runMs = 0;
  if (runWait) {
    // The test run: long enough for the background prefetch (or 2 s), results journaled as they come.
    const service = config.targets[0].definition.id;
    runMs = await L.waitQuiet(sandbox, service, { minMs: 2000, quietMs: 500, maxMs: 120000 });
  }
  run.journal(recs);
  const t1 = performance.now();
  const summary = await run.finish(recs, 0);
  const t2 = performance.now();
  const after = sandbox.stats();
  const delta = (svc, k) => after[svc][k] - before[svc][k];
  return { summary, tailMs: t2 - t1, totalMs: t2 - t0, runMs, printer, delta, dir };
}

/** Figure 1: Zephyr calls and publish tail vs a naive per-test publisher. */
async function zephyrCalls(log) {
  const sizes = L.QUICK ? [200, 2000] : [200, 2000, 10000];
  const rows = [];
  const sandbox = await L.startSandbox({ port: 0, faults: { zephyr: { latencyMs: 20 } } });
  // Every failed test has a screenshot: its upload is counted apart from the status calls.
  const screenshot = path.join(L.tmpDir('shot'), 'screenshot.png');
  fs.writeFileSync(screenshot, Buffer.alloc(20_000, 1));
  const uploads = () => sandbox.stats().zephyr.byRoute['POST /attachment'] ?? 0;
  try {
    const env = L.pick(sandbox.env(), 'ZEPHYR_');
    for (const n of sizes) {
      const offset = 0;
      const recs = L.records(n, { failEvery: 100, offset, screenshot });
      const uploadsBefore = uploads();
      const name = `bench calls ${n}`;
      // The sandbox has no rate limit here: client pacing off (its default, 28 per minute, would be the whole figure).
      const r = await publishOnce(sandbox, { options: { zephyr: { cycleName: name, rateLimit: 'off' } }, env, recs });
      const expected = Object.fromEntries(recs.map((x) => [x.keys.zephyr?.[0], ZEPHYR_STATUS[x.outcome]]));
      const check = L.checkZephyr(sandbox, name, expected);
      const attachmentCalls = uploads() - uploadsBefore;
      const calls = r.delta('zephyr', 'requests') - attachmentCalls;
      const failed = recs.filter((x) => x.outcome === 'failed').length;
      // Naive baseline, measured in the same run (sampled for large N, then scaled).
      const sampleN = L.QUICK ? Math.min(n, 200) : Math.min(n, n > 2000 ? 1000 : n);
      const naive = await L.naiveZephyr(env, L.records(sampleN, { failEvery: 100, offset: 10000 }), `bench naive ${n}`);
      const scale = n / sampleN;
      const naiveCalls = Math.round(1 + (naive.calls - 1) * scale);
      const naiveMs = naive.ms * scale;
      // A per-test publisher that sends while tests run still has this much left after the last result,
      // with Playwright's ~10 ms per trivial test on 2 cores as the run's pace (conservative for the naive side).
      const naiveTailMs = Math.max(0, naiveMs - n * 10);
      const row = {
        n,
        failed,
        calls,
        attachmentCalls,
        clientCalls: r.summary.targets.zephyr?.calls,
        callsPer1000: Math.round((calls / n) * 1000),
        tailMs: Math.round(r.tailMs),
        exact: check.lost === 0 && check.duplicates === 0,
        errors: r.summary.targets.zephyr?.errors ?? [],
        naive: {
          calls: naiveCalls,
          sequentialMs: Math.round(naiveMs),
          tailMs: Math.round(naiveTailMs),
          sampled: sampleN !== n ? sampleN : undefined,
        },
        callRatio: +(naiveCalls / calls).toFixed(1),
        tailRatio: +(naiveTailMs / Math.max(1, r.tailMs)).toFixed(1),
      };
      row.target =
        n === 2000
          ? { calls: calls <= 150 + failed, tail: r.tailMs <= 5000, ratios: row.callRatio >= 25 && row.tailRatio >= 25 }
          : { ratios: row.callRatio >= 25 && row.tailRatio >= 25 };
      rows.push(row);
      log(
        `  N=${n}: ${calls} calls (${row.callsPer1000}/1000), tail ${row.tailMs} ms, exact ${row.exact}; naive ${naiveCalls} calls, ${row.naive.sequentialMs} ms${row.naive.sampled ? ` (from ${sampleN})` : ''}`,
      );
    }
  } finally {
    await sandbox.close();
  }
  return rows;
}

/** Figure 2: Zephyr under a time-scaled rate limit (30 calls per second instead of per minute). */
async function zephyrRateLimit(log) {
  const rows = [];
  // The service's wait hint is in whole seconds. Scaling a 60 s window down to 1 s makes that rounding
  // 60 times bigger than it is in production, so the default (hints only) is also measured at 30 per 10 s.
  const variants = [
    { label: 'wait hints only (rateLimit off)', rate: 'off', limit: { count: 30, windowMs: 1000 }, n: L.QUICK ? 1000 : 2000 },
    { label: 'client pacing 28/1 (the default, scaled)', rate: '28/1', limit: { count: 30, windowMs: 1000 }, n: L.QUICK ? 1000 : 2000 },
    { label: 'wait hints only (rateLimit off), 30 per 10 s', rate: 'off', limit: { count: 30, windowMs: 10_000 }, n: L.QUICK ? 200 : 500 },
  ];
  for (const variant of variants) {
    const { limit, n } = variant;
    const sandbox = await L.startSandbox({ port: 0, faults: { zephyr: { latencyMs: 20, rateLimit: limit } } });
    try {
      const env = L.pick(sandbox.env(), 'ZEPHYR_');
      // 20 % failing: one comment call each (independent calls), so the publish is bound by the limit
      // for several windows rather than by job waits.
      const recs = L.records(n, { failEvery: 5 });
      const name = `bench rate ${variant.label}`;
      const r = await publishOnce(sandbox, {
        options: { zephyr: { cycleName: name, ...(variant.rate ? { rateLimit: variant.rate } : {}) } },
        env,
        recs,
        runWait: false,
        // The limit's minute is 1 s here (60×): a paced lane's first look at a job (3 s) scales with it.
        deps: { tuning: { zephyr: { pacedFirstPollMs: 3_000 / 60 } } },
      });
      const log429 = sandbox.log().filter((e) => e.service === 'zephyr');
      const accepted = log429.filter((e) => e.status !== 429).length;
      const got429 = log429.length - accepted;
      const spanMs = log429.length ? log429[log429.length - 1].at - log429[0].at : r.totalMs;
      const windows = Math.max(1, r.totalMs / limit.windowMs);
      const throughput = accepted / (windows * limit.count);
      const expected = Object.fromEntries(recs.map((x) => [x.keys.zephyr?.[0], ZEPHYR_STATUS[x.outcome]]));
      const check = L.checkZephyr(sandbox, name, expected);
      const row = {
        variant: variant.label,
        n,
        limit: `${limit.count}/${limit.windowMs / 1000}s`,
        accepted,
        got429,
        publishMs: Math.round(r.totalMs),
        spanMs,
        throughputOfLimit: +throughput.toFixed(3),
        lost: check.lost,
        duplicates: check.duplicates,
        unsent: r.summary.targets.zephyr?.unsent,
      };
      row.target = { throughput: throughput >= 0.9, lost: check.lost === 0 };
      rows.push(row);
      log(
        `  ${variant.label}: ${accepted} calls in ${Math.round(r.totalMs)} ms = ${(throughput * 100).toFixed(1)} % of the limit, ${got429} x 429, lost ${check.lost}`,
      );
    } finally {
      await sandbox.close();
    }
  }
  return rows;
}

/** Figure 3: CucumberStudio calls per result and throughput vs a 200/min-equivalent limit (200 per 6 s). */
async function csThroughput(log) {
  const n = L.QUICK ? 300 : 800;
  const limit = { count: 200, windowMs: 6000 };
  const sandbox = await L.startSandbox({
    port: 0,
    cucumberstudio: { generationDelayMs: 300 },
    faults: { cucumberstudio: { latencyMs: 20, rateLimit: limit } },
  });
  try {
    const env = L.pick(sandbox.env(), 'CUCUMBERSTUDIO_');
    const recs = L.records(n, { failEvery: 20, zephyr: false, cs: true, csOffset: 100 });
    const name = 'bench cs';
    const r = await publishOnce(sandbox, {
      options: { cucumberstudio: { testRunName: name, rateLimit: '195/6' } },
      env,
      recs,
      runWait: false,
    });
    const entries = sandbox.log().filter((e) => e.service === 'cucumberstudio');
    const accepted = entries.filter((e) => e.status !== 429).length;
    const got429 = entries.length - accepted;
    const throughput = accepted / ((r.totalMs / limit.windowMs) * limit.count);
    const expected = Object.fromEntries(recs.map((x) => [Number(x.keys.cucumberstudio?.[0]), x.outcome]));
    const check = L.checkCs(sandbox, name, expected);
    const row = {
      n,
      calls: entries.length,
      callsPerResult: +(entries.length / n).toFixed(3),
      constantCalls: entries.length - n,
      limit: '200/6s (sandbox), 195/6 (client)',
      publishMs: Math.round(r.totalMs),
      throughputOfLimit: +throughput.toFixed(3),
      got429,
      lost: check.lost,
      duplicates: check.duplicates,
    };
    row.target = { callsPerResult: entries.length - n <= 20, throughput: throughput >= 0.9, few429: got429 <= 2 };
    log(
      `  N=${n}: ${entries.length} calls (${row.callsPerResult}/result), ${Math.round(r.totalMs)} ms = ${(throughput * 100).toFixed(1)} % of the limit, ${got429} x 429, lost ${check.lost}`,
    );
    return row;
  } finally {
    await sandbox.close();
  }
}

/**
 * Figure 5: peak memory of the publisher for N results, in a child process. Measured twice: in a fresh process
 * (its young generation still small: V8 grows it during the publish) and in one whose young generation was
 * first grown to what Playwright's runner has at onBegin (measured here, in a real run): the reporter's host.
 * The verdict is on the second.
 */
async function memory(log) {
  const n = L.QUICK ? 2000 : 10000;
  const host = await hostYoungGeneration();
  log(
    `  Playwright's runner at onBegin (${host.tests} tests): young generation ${host.begin.sizeMB} MB, ${host.begin.physicalMB} MB resident`,
  );
  const sandbox = await L.startSandbox({ port: 0, faults: { zephyr: { latencyMs: 2 } } });
  try {
    const child = async (hostNewSpaceMB) => {
      const env = { ...L.cleanEnv(L.pick(sandbox.env(), 'ZEPHYR_')), BENCH_N: String(n), BENCH_HOST_NEW_SPACE_MB: String(hostNewSpaceMB) };
      const res = await L.exec(process.execPath, ['--expose-gc', path.join(__dirname, 'memory-child.js')], { env });
      const line = res.output.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error(`memory child failed: ${res.output.slice(-500)}`);
      return JSON.parse(line);
    };
    const cold = await child(0);
    const m = await child(host.begin.physicalMB);
    m.host = host;
    m.cold = cold;
    m.target = { rss: m.rssAboveBaselineMB <= 50 && m.exact };
    for (const [label, r] of [
      ['fresh process', cold],
      ["young generation as Playwright's runner", m],
    ]) {
      log(
        `  N=${n}, ${label} (young ${r.youngAtBaseline.sizeMB} MB / ${r.youngAtBaseline.physicalMB} MB resident at the baseline): peak RSS +${r.rssAboveBaselineMB} MB, peak heap +${r.heapAboveBaselineMB} MB, live heap after GC +${r.liveHeapAfterGcMB} MB above baseline (exact ${r.exact})`,
      );
    }
    return m;
  } finally {
    await sandbox.close();
  }
}

module.exports = { zephyrCalls, zephyrRateLimit, csThroughput, memory, publishOnce };
