'use strict';
/**
 * Figure 11, "statuses before evidence": 2,000 quick tests, 10 % failing, each failure with a comment and
 * one file, published to Zephyr at its default pacing (28 calls a minute) against the service's limit,
 * time-scaled like figure 8 (S = 30×: a 60 s window is 2 s). Each test's record goes to `PublishRun.record`
 * as it finishes; after the last one, `finish`. Measured from the last test, by watching the sandbox's
 * cycle: when every status is in it, when every comment is, when every file is (everything), and what
 * publishTimeout left in the outbox. bench/README.md (figure 11).
 */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { scaleRateLimitHints } = require('./scaled-hints');
const { S, SANDBOX, CLIENT } = require('./tail');

const N = 2000;
const FAIL_EVERY = 10; // 10 % failing
const STATUS = { passed: 1, failed: 2 };
/** Real run lengths (2,000 tests in that time): quick tests, and figure 8's ten minutes. */
const RUNS_REAL_MS = L.QUICK ? [300_000] : [300_000, 600_000];
/** How often the cycle is looked at (scaled ms; 25 ms = 0.75 s real). */
const LOOK_MS = 25;

/** What the cycle holds of the run: results with their final status, with a comment, with their file. */
function cycleCounts(sandbox, name, expected) {
  const cycle = sandbox.state().zephyr.cycles.find((c) => c.name === name);
  const counts = { statuses: 0, comments: 0, files: 0, duplicateFiles: 0 };
  for (const e of cycle?.executions ?? []) {
    const want = expected.get(e.issueKey);
    if (want === undefined) continue;
    if (e.statusId === want) counts.statuses++;
    if (want === STATUS.failed && typeof e.comment === 'string' && e.comment.includes('expect(received)')) counts.comments++;
    if (want === STATUS.failed && e.attachments?.length) counts.files++;
    counts.duplicateFiles += Math.max(0, (e.attachments?.length ?? 0) - 1);
  }
  return counts;
}

/**
 * One run of `n` tests over `runRealMs`: the times (real-equivalent s after the last test) statuses, comments
 * and files were all in.
 */
async function scenario(log, { runRealMs, n = N }) {
  const runMs = Math.round(runRealMs / S);
  const sandbox = await L.startSandbox({ port: 0, zephyr: SANDBOX.zephyr, faults: { zephyr: SANDBOX.faults.zephyr } });
  const undoHints = scaleRateLimitHints(sandbox, S);
  try {
    const dir = L.tmpDir('statuses-first');
    const screenshot = path.join(dir, 'screenshot.png');
    fs.writeFileSync(screenshot, Buffer.alloc(20_000, 1));
    const recs = L.records(n, { failEvery: FAIL_EVERY, screenshot });
    const failed = recs.filter((r) => r.outcome === 'failed').length;
    const expected = new Map(recs.map((r) => [r.keys.zephyr[0], STATUS[r.outcome]]));
    const name = `bench statuses first ${runRealMs}`;
    const options = {
      outboxDir: path.join(dir, 'outbox'),
      summaryFile: path.join(dir, 'summary.json'),
      publishTimeout: CLIENT.publishTimeoutS,
      zephyr: { cycleName: name, rateLimit: CLIENT.zephyrRate(1) },
    };
    const config = L.resolveConfig(options, L.pick(sandbox.env(), 'ZEPHYR_'), dir);
    if (config.problems.length) throw new Error(`bench config: ${config.problems.join('; ')}`);
    const run = new L.PublishRun(config, { printer: L.silentPrinter(), deps: { tuning: CLIENT.tuning }, offerEveryMs: 1 });
    for (const s of /** @type {any} */ (run).sessions)
      s.target.batching = { ...s.target.batching, maxWaitMs: CLIENT.batchingMaxWaitMs[s.id] };

    const t0 = performance.now();
    run.start(recs.map((r) => ({ testId: r.testId, keys: r.keys })));
    for (let j = 0; j < recs.length; j++) {
      const at = ((j + 1) * runMs) / recs.length;
      const wait = at - (performance.now() - t0);
      if (wait > 0) await L.sleep(wait);
      run.record(recs[j]);
    }
    const atEnd = cycleCounts(sandbox, name, expected);
    const tEnd = performance.now();
    /** Scaled ms after the last test when each count was complete. @type {Record<'statuses' | 'comments' | 'files', number | null>} */
    const done = { statuses: null, comments: null, files: null };
    let finished = false;
    const ending = run.finish(recs, 0).finally(() => (finished = true));
    let last = atEnd;
    for (;;) {
      last = cycleCounts(sandbox, name, expected);
      const t = performance.now() - tEnd;
      if (done.statuses === null && last.statuses === n) done.statuses = t;
      if (done.comments === null && last.comments === failed) done.comments = t;
      if (done.files === null && last.files === failed) done.files = t;
      if (finished) break;
      await L.sleep(LOOK_MS);
    }
    const summary = (await ending).targets.zephyr;
    const tailMs = performance.now() - tEnd;
    // What publishTimeout left is in the outbox: a replay (same scaled pacing) sends it, each file once. A kept
    // journal stays locked while the run's process lives (work it abandoned could still confirm into it); here
    // the run's work is over (its finish has settled), and the replay runs in the same process: let go of it.
    /** @type {any} */ (run).outbox?.releaseLock?.();
    const beforeReplay = sandbox.stats().zephyr;
    /** @type {{ replay: typeof import('../dist/commands/replay').replay }} */
    const { replay } = require(path.join(L.DIST, 'commands', 'replay.js'));
    const printer = L.silentPrinter();
    const replayed = await replay(options.outboxDir, options, L.pick(sandbox.env(), 'ZEPHYR_'), printer, { tuning: CLIENT.tuning });
    if (process.env.BENCH_DEBUG) log(printer.lines.join('\n'));
    const afterReplay = cycleCounts(sandbox, name, expected);
    const realS = (ms) => (ms === null ? null : +((ms * S) / 1000).toFixed(1));
    const everything = done.statuses !== null && done.comments !== null && done.files !== null;
    const row = {
      runRealS: runRealMs / 1000,
      n,
      failed,
      atLastTest: atEnd,
      statusesS: realS(done.statuses),
      commentsS: realS(done.comments),
      everythingS: everything ? realS(Math.max(Number(done.statuses), Number(done.comments), Number(done.files))) : null,
      finishS: realS(tailMs),
      leftInOutbox: { results: summary?.unsent ?? 0, files: summary?.attachments?.failed.length ?? 0 },
      atFinishEnd: last,
      // Right after the run, the service's window still holds the run's last calls: the replay's own pacing starts empty.
      replay: {
        journals: replayed.journals,
        unsent: replayed.unsent,
        after: afterReplay,
        calls: sandbox.stats().zephyr.requests - beforeReplay.requests,
        got429: sandbox.stats().zephyr.rateLimited - beforeReplay.rateLimited,
      },
      cutShort: !!summary?.cutShort,
      calls: beforeReplay.requests,
      got429: beforeReplay.rateLimited,
      byRoute: beforeReplay.byRoute,
    };
    const exact =
      afterReplay.statuses === n && afterReplay.comments === failed && afterReplay.files === failed && !afterReplay.duplicateFiles;
    row.target = { statuses: row.statusesS !== null && row.statusesS <= 30, exactAfterReplay: exact };
    log(
      `  run ${row.runRealS} s: statuses all in ${row.statusesS ?? '—'} s after the last test (${atEnd.statuses}/${n} at it), comments ${row.commentsS ?? '—'} s, ` +
        `everything ${row.everythingS ?? `not within publishTimeout (${last.comments}/${failed} comments, ${last.files}/${failed} files)`}${row.everythingS === null ? '' : ' s'}; ` +
        `finish ${row.finishS} s${row.cutShort ? ' (cut by publishTimeout)' : ''}, left in the outbox ${row.leftInOutbox.results} results / ${row.leftInOutbox.files} files; ${row.calls} calls, ${row.got429}× 429; ` +
        `replay of ${replayed.journals} journal(s): ${afterReplay.statuses}/${n} statuses, ${afterReplay.comments}/${failed} comments, ${afterReplay.files}/${failed} files, ${afterReplay.duplicateFiles} duplicate files, ${replayed.unsent} unsent (${row.replay.calls} calls, ${row.replay.got429}× 429)`,
    );
    return row;
  } finally {
    undoHints();
    await sandbox.close();
  }
}

/** Figure 11: one row per run length. */
async function statusesFirst(log) {
  log(
    `  scale ${S}×: Zephyr 30 per ${SANDBOX.faults.zephyr.rateLimit.windowMs} ms (sliding), client ${CLIENT.zephyrRate(1)}; N = ${N}, 10 % failing, each with a comment and a file`,
  );
  const rows = [];
  for (const runRealMs of RUNS_REAL_MS) rows.push(await scenario(log, { runRealMs }));
  return { scale: S, rows };
}

module.exports = { statusesFirst, scenario };
