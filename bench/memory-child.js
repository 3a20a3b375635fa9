'use strict';
/**
 * Figure 5 child: publishes BENCH_N synthetic results to the sandbox named by the ZEPHYR_* env and
 * prints one JSON line with peak RSS / heap above the baseline taken after the records exist
 * (they are Playwright's data, not the publisher's). Run with --expose-gc.
 *
 * BENCH_HOST_NEW_SPACE_MB (the young generation Playwright's runner has when a reporter's onBegin runs, measured
 * by the parent): before the baseline the child grows its own young generation to that size, as the host has
 * it, so that V8 growing a fresh process's young generation is not counted as the publisher's memory.
 */
const path = require('node:path');
const v8 = require('node:v8');
const L = require('./lib');

/** V8's young generation: reserved and resident MB. */
function newSpace() {
  const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  return { sizeMB: s ? +(s.space_size / 2 ** 20).toFixed(1) : NaN, physicalMB: s ? +(s.physical_space_size / 2 ** 20).toFixed(1) : NaN };
}

/**
 * Short-lived objects, some surviving a scavenge or two (V8 grows the young generation by the bytes that
 * survive), until the young generation is as large and as resident as the host's.
 */
function growYoungGeneration(targetMB) {
  let keep = [];
  for (let i = 0; i < 2e7; i++) {
    keep.push({ i, s: `x${i}` });
    if (keep.length < 20000) continue;
    keep = [];
    if (newSpace().physicalMB >= targetMB) return;
  }
}

async function main() {
  const n = Number(process.env.BENCH_N || 10000);
  const recs = L.records(n, { failEvery: 100 });
  const dir = L.tmpDir('mem');
  const config = L.resolveConfig(
    { outboxDir: path.join(dir, 'outbox'), summaryFile: path.join(dir, 's.json'), zephyr: { cycleName: 'bench memory', rateLimit: 'off' } }, // the sandbox has no limit here
    process.env,
    dir,
  );
  const hostNewSpaceMB = Number(process.env.BENCH_HOST_NEW_SPACE_MB || 0);
  if (hostNewSpaceMB > 0) growYoungGeneration(hostNewSpaceMB);
  global.gc?.();
  await L.sleep(50);
  global.gc?.();
  const youngAtBaseline = newSpace();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 10);
  const run = new L.PublishRun(config, { printer: L.silentPrinter() });
  run.start(recs);
  // Journal as the reporter does: one record per test end.
  for (let i = 0; i < recs.length; i++) {
    run.journal([recs[i]]);
    if (i % 500 === 0) await L.sleep(1);
  }
  const summary = await run.finish(recs, 0);
  clearInterval(timer);
  // What the publisher still holds once published (the peak above is mostly garbage between GCs).
  global.gc?.();
  global.gc?.();
  const live = process.memoryUsage();
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
  const z = summary.targets.zephyr;
  const mb = (b) => +(b / 2 ** 20).toFixed(1);
  process.stdout.write(
    `${JSON.stringify({ n, baselineRssMB: mb(base.rss), peakRssMB: mb(peakRss), rssAboveBaselineMB: mb(peakRss - base.rss), baselineHeapMB: mb(base.heapUsed), peakHeapMB: mb(peakHeap), heapAboveBaselineMB: mb(peakHeap - base.heapUsed), liveHeapAfterGcMB: mb(live.heapUsed - base.heapUsed), youngAtBaseline, published: z.published, exact: z.published === n && z.unsent === 0 })}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e?.message ?? e}\n`);
  process.exit(1);
});
