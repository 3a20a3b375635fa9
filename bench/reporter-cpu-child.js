'use strict';
/**
 * Figure 10's child: a fresh process that loads the built reporter and drives it as Playwright's runner would
 * (onBegin with N tests, one onTestEnd per test at the pace of a run, onEnd), publishing to the sandbox the
 * parent runs. It measures its own CPU (all threads: GC, the libuv pool) per phase and prints one JSON line.
 * The tests are plain objects of the shape the reporter reads from Playwright's TestCase (no browser, no runner).
 * Without ZEPHYR_* in its environment it is the baseline: the same driver, the reporter enabled for nothing.
 */
const fs = require('node:fs');
const path = require('node:path');
const cpuMs = (since) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A test of the shape mapping.ts reads (TestLike): `@PROJ-n` tagged, one attempt. */
function syntheticTest(i) {
  const results = [];
  const title = `t${i} @PROJ-${i + 1}`;
  return {
    id: `test-${i}`,
    title,
    tags: [`@PROJ-${i + 1}`],
    annotations: [],
    retries: 0,
    repeatEachIndex: 0,
    expectedStatus: 'passed',
    results,
    location: { file: `tests/t${i % 4}.spec.js`, line: i + 2, column: 1 },
    outcome: () => (results.at(-1)?.status === 'passed' ? 'expected' : 'unexpected'),
    titlePath: () => ['', '', `t${i % 4}.spec.js`, title],
  };
}

async function main() {
  const n = Number(process.env.BENCH_N);
  const everyMs = Number(process.env.BENCH_TEST_EVERY_MS);
  const dir = String(process.env.BENCH_DIR);
  const dist = String(process.env.BENCH_DIST);
  let c0 = process.cpuUsage();
  const Reporter = require(path.join(dist, 'index.js')).default;
  const load = cpuMs(c0);
  const tests = Array.from({ length: n }, (_, i) => syntheticTest(i));
  const suite = { suites: [{ title: '', project: () => ({ name: '' }), allTests: () => tests }], allTests: () => tests };
  const reporter = new Reporter({}, process.env);
  c0 = process.cpuUsage();
  reporter.onBegin({ configFile: path.join(dir, 'playwright.config.js'), shard: null }, suite);
  const begin = cpuMs(c0);
  // The preparation the reporter starts at onBegin (cycle, add tests, execution ids) runs while the first tests do.
  c0 = process.cpuUsage();
  await sleep(Number(process.env.BENCH_PREPARE_MS));
  const prepare = cpuMs(c0);
  c0 = process.cpuUsage();
  let hooksUs = 0;
  const started = Date.now();
  for (let i = 0; i < n; i++) {
    // One test every `everyMs` on average, in the ticks a timer gives (≥ 1 ms).
    const due = started + i * everyMs;
    if (due > Date.now() + 1) await sleep(due - Date.now());
    const failed = (i + 1) % 100 === 0;
    const result = {
      status: failed ? 'failed' : 'passed',
      retry: 0,
      duration: 3,
      annotations: [],
      steps: [],
      attachments: [],
      errors: failed
        ? [{ message: 'Error: expect(received).toBe(expected)\n\nExpected: 0\nReceived: 1', location: { file: 'x', line: 1, column: 1 } }]
        : [],
    };
    tests[i].results.push(result);
    const t = process.hrtime.bigint();
    reporter.onTestEnd(tests[i], result);
    hooksUs += Number(process.hrtime.bigint() - t) / 1000;
  }
  const results = cpuMs(c0);
  c0 = process.cpuUsage();
  const t = Date.now();
  await reporter.onEnd({ status: 'passed', startTime: new Date(started) });
  const end = cpuMs(c0);
  // The baseline (no target enabled: the hooks return at once) writes no summary.
  const file = path.join(dir, 'summary.json');
  const published = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')).targets.zephyr?.published ?? 0) : 0;
  process.stdout.write(
    `${JSON.stringify({ load, begin, prepare, results, end, endWallMs: Date.now() - t, onTestEndUs: hooksUs / n, published })}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
