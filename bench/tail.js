'use strict';
/**
 * Figure 8, "tail under real limits": a 10-minute run of 2,000 mapped tests (5 % failing) against the
 * services' real rate limits, time-scaled S = 30× (the run is 20 s, a 60 s window is 2 s). Each test's
 * result is handed to `PublishRun.record` when it finishes, as the reporter does; `finish` at the end
 * of the run is timed: that is the **tail** CI waits for after the last test (× S = real-equivalent s; figure 14
 * also runs it at S = 1, real time). The
 * baseline row never calls `record` (all at `finish`, the old behaviour). bench/README.md (figure 8): what is scaled.
 */
const path = require('node:path');
const L = require('./lib');
const { scaleRateLimitHints } = require('./scaled-hints');

const N = 2000;
const SHARDS = 4;
const FAIL_EVERY = 20; // 5 % failing
const ZEPHYR_STATUS = { passed: 1, failed: 2 };
const REPS = 3;

/**
 * Everything the time scale S decides (real ms = scaled ms × S): the run's length (real 10 minutes unless
 * given), the services' delays, limits and latencies, and the client's defaults. S = 1 is real time: every value
 * below is then the real one (figure 14's tail, issue 34).
 */
function settings(S, runRealMs = 600_000) {
  const scaled = (realMs) => Math.max(1, Math.round(realMs / S));
  /** The services, scaled (real value in the comment). */
  const SANDBOX = {
    zephyr: { jobDelayMs: scaled(3_000) }, // an add-tests / bulk-status job takes ~3 s
    cucumberstudio: { generationDelayMs: scaled(9_000) }, // a 2,000-scenario run's tests appear after ~9 s
    faults: {
      zephyr: { latencyMs: scaled(300), rateLimit: { count: 30, windowMs: scaled(60_000) } }, // 30/min per key, sliding
      cucumberstudio: { latencyMs: scaled(150), rateLimit: { count: 200, windowMs: scaled(60_000) } }, // 200/min per IP, lock-out
    },
  };
  /** The client's real-time defaults, scaled. */
  const CLIENT = {
    zephyrRate: (processes) => `${Math.floor(28 / processes)}/${60 / S}`, // default floor(28/N) per 60 s with N processes
    csRate: `195/${60 / S}`, // default 195/60
    publishTimeoutS: 600 / S, // default 600 s
    tuning: {
      zephyr: { firstPollMs: scaled(200), maxPollMs: scaled(2_000), pacedFirstPollMs: scaled(3_000) }, // waitForJob defaults 200 ms ×1.6 up to 2 s (paced shards: ≥ their pacing interval)
      cucumberstudio: { wait: { firstDelayMs: scaled(250), maxDelayMs: scaled(2_000) } }, // waitForSnapshots: 250 ms ×1.5, cap 2 s
    },
    // Result stream batching (Target.batching): Zephyr a batch per ≤ 3 s, CucumberStudio per ≤ 200 ms.
    batchingMaxWaitMs: { zephyr: scaled(3_000), cucumberstudio: scaled(200) },
    // The engine's batch of journaled results (25 ms real; 1 ms at 30×).
    offerEveryMs: scaled(25),
  };
  return { S, scaled, RUN_MS: scaled(runRealMs), SANDBOX, CLIENT };
}

/** Figure 8's scale: S = 30× (a 10-minute run is 20 s, a 60 s window is 2 s). */
const FIG8 = settings(30);
const { S, SANDBOX, CLIENT } = FIG8;

/** The engine's state of one run's sessions (private fields, read for the report only). */
function sessionState(run) {
  return /** @type {any} */ (run).sessions.map((s) => ({
    target: s.id,
    streaming: !!s.stream,
    queued: s.stream ? s.stream.pending.size : null,
    inflight: s.stream ? s.stream.batches.size : null, // batches in flight
    confirmed: s.ledger.confirmedCount,
    lanePausedMs: Math.max(0, Math.round(s.target.lane.pausedUntil - Date.now())),
    laneCalls: s.target.lane.stats.calls,
    lane429: s.target.lane.stats.rateLimited,
  }));
}

/**
 * One scenario: `parts` PublishRuns (1, or one per shard) started together at t = 0, each test's
 * record handed over at its arrival time (evenly over RUN_MS) unless `stream` is false, `finish` at
 * RUN_MS. Returns per-run tail (ms of `finish`), sandbox counts and the exact-state check. `scale` (default
 * figure 8's 30×) and `runRealMs` (default 10 minutes) set the time scale and the run's real length.
 */
async function scenario(log, { service, shards, stream, push = false, scale = S, runRealMs = 600_000 }) {
  const { scaled, RUN_MS, SANDBOX, CLIENT } = settings(scale, runRealMs);
  const sandbox = await L.startSandbox({ port: 0, ...SANDBOX });
  const undoHints = scaleRateLimitHints(sandbox, scale);
  try {
    const env = L.pick(sandbox.env(), service === 'zephyr' ? 'ZEPHYR_' : 'CUCUMBERSTUDIO_');
    // The sandbox names the project's secret token too: with it CucumberStudio goes by bulk push (figure 14),
    // without it one post per result (figure 8's scenario).
    if (!push) delete env.CUCUMBERSTUDIO_SECRET_TOKEN;
    const name = `bench tail ${service} ${shards} ${stream ? 'stream' : 'end'}${push ? ' push' : ''}`;
    const perShard = N / shards;
    let t0 = performance.now();
    const parts = [];
    for (let i = 0; i < shards; i++) {
      const recs =
        service === 'zephyr'
          ? L.records(perShard, { failEvery: FAIL_EVERY, offset: i * perShard })
          : L.records(perShard, { failEvery: FAIL_EVERY, zephyr: false, cs: true, csOffset: 100 + i * perShard });
      const dir = L.tmpDir('tail');
      const targetOptions =
        service === 'zephyr'
          ? { zephyr: { cycleName: name, rateLimit: CLIENT.zephyrRate(shards) } }
          : { cucumberstudio: { testRunName: name, rateLimit: CLIENT.csRate } };
      // The baseline is measured to its end (as the issue did), not cut at the scaled publishTimeout.
      const options = {
        outboxDir: path.join(dir, 'outbox'),
        summaryFile: path.join(dir, 'summary.json'),
        publishTimeout: stream ? CLIENT.publishTimeoutS : 3600 / scale,
        ...targetOptions,
      };
      const config = L.resolveConfig(options, env, dir);
      if (config.problems.length) throw new Error(`bench config: ${config.problems.join('; ')}`);
      const run = new L.PublishRun(config, {
        printer: L.silentPrinter(),
        shard: shards > 1 ? { current: i + 1, total: shards } : null,
        deps: { tuning: CLIENT.tuning },
        // The engine's batch of journaled results (25 ms real), scaled like the rest.
        offerEveryMs: CLIENT.offerEveryMs,
      });
      // Scale the stream's batching window like every other client timing (no option for it: see README).
      const batches = [];
      for (const s of /** @type {any} */ (run).sessions) {
        // The push path's own window (30 s, or 500 results) is scaled from its value, not replaced by the per-result one.
        const maxWaitMs = push && s.id === 'cucumberstudio' ? scaled(s.target.batching.maxWaitMs) : CLIENT.batchingMaxWaitMs[s.id];
        s.target.batching = { ...s.target.batching, maxWaitMs };
        // Every publish (stream batches, then the end's) with its start and duration, for the report.
        const publish = s.target.publish.bind(s.target);
        s.target.publish = async (items) => {
          const at = performance.now();
          try {
            return await publish(items);
          } finally {
            batches.push({ at: Math.round(at - t0), items: items.length, tookMs: Math.round(performance.now() - at) });
          }
        };
      }
      parts.push({ run, recs, batches });
    }

    const timeline = [];
    const sample = () => {
      const st = sandbox.stats()[service];
      const runs = parts.map((p) => sessionState(p.run)[0]);
      timeline.push({
        t: Math.round(performance.now() - t0),
        calls: st.requests,
        got429: st.rateLimited,
        confirmed: runs.reduce((a, r) => a + r.confirmed, 0),
        queued: runs.reduce((a, r) => a + (r.queued ?? 0), 0),
        streaming: runs.filter((r) => r.streaming).length,
      });
    };
    t0 = performance.now();
    const sampler = setInterval(sample, 1000);
    for (const p of parts) p.run.start(p.recs.map((r) => ({ testId: r.testId, keys: r.keys })));
    // Every part's tests finish evenly over the run, all parts at once.
    const arrivals = parts
      .flatMap((p) => p.recs.map((r, j) => ({ at: ((j + 1) * RUN_MS) / p.recs.length, run: p.run, r })))
      .sort((a, b) => a.at - b.at);
    let next = 0;
    while (next < arrivals.length) {
      const now = performance.now() - t0;
      while (next < arrivals.length && arrivals[next].at <= now) {
        if (stream) arrivals[next].run.record(arrivals[next].r);
        next++;
      }
      if (next < arrivals.length) await L.sleep(Math.max(1, arrivals[next].at - (performance.now() - t0)));
    }
    const lag = performance.now() - t0 - RUN_MS;
    if (lag < 0) await L.sleep(-lag);
    sample();
    clearInterval(sampler);

    // The end of the run: every part's finish at once (onEnd), each timed.
    const atFinish = { wall: Date.now(), stats: sandbox.stats()[service], sessions: parts.map((p) => sessionState(p.run)[0]) };
    const tf = performance.now();
    const ends = await Promise.all(
      parts.map(async (p) => {
        const summary = await p.run.finish(p.recs, 0);
        return { summary, tailMs: performance.now() - tf };
      }),
    );
    const after = sandbox.stats()[service];
    const entries = sandbox.log().filter((e) => e.service === service);
    const tailEntries = entries.filter((e) => e.at >= atFinish.wall);
    const tailByRoute = {};
    for (const e of tailEntries) tailByRoute[e.route] = (tailByRoute[e.route] ?? 0) + 1;

    const all = parts.flatMap((p) => p.recs);
    const check =
      service === 'zephyr'
        ? L.checkZephyr(sandbox, name, Object.fromEntries(all.map((x) => [x.keys.zephyr?.[0], ZEPHYR_STATUS[x.outcome]])))
        : L.checkCs(sandbox, name, Object.fromEntries(all.map((x) => [Number(x.keys.cucumberstudio?.[0]), x.outcome])));
    const tailMs = Math.max(...ends.map((e) => e.tailMs));
    // Stream batches during the run (started before finish), and how long each part's stream sat idle
    // between batches (after the first) while results were waiting: the "wait as long as the last took" rule.
    const finishAt = tf - t0;
    const streamBatches = parts.map((p) => p.batches.filter((b) => b.at < finishAt).sort((a, b) => a.at - b.at));
    const idleMs = streamBatches.map((bs) => bs.slice(1).reduce((a, b, i) => a + Math.max(0, b.at - (bs[i].at + bs[i].tookMs)), 0));
    const firstDoneAt = streamBatches.map((bs) => (bs.length ? bs[0].at + bs[0].tookMs : null));
    const row = {
      service,
      shards,
      variant: `${stream ? 'streamed (record per test)' : 'baseline: everything at finish'}${push ? ', bulk push' : ''}`,
      n: N,
      runRealS: (RUN_MS * scale) / 1000,
      failed: all.filter((x) => x.outcome === 'failed').length,
      tailMs: Math.round(tailMs),
      scale,
      tailRealS: +((tailMs * scale) / 1000).toFixed(1),
      shardTailsRealS: shards > 1 ? ends.map((e) => +((e.tailMs * scale) / 1000).toFixed(1)) : undefined,
      calls: after.requests,
      callsInTail: after.requests - atFinish.stats.requests,
      got429: after.rateLimited,
      got429InTail: after.rateLimited - atFinish.stats.rateLimited,
      lost: check.lost,
      duplicates: check.duplicates,
      delivered: check.delivered,
      unsent: ends.reduce((a, e) => a + (e.summary.targets[service]?.unsent ?? 0), 0),
      errors: [...new Set(ends.flatMap((e) => e.summary.targets[service]?.errors ?? []))].slice(0, 5),
      atFinish: {
        confirmed: atFinish.sessions.reduce((a, s) => a + s.confirmed, 0),
        queued: atFinish.sessions.reduce((a, s) => a + (s.queued ?? 0), 0),
        inflight: atFinish.sessions.reduce((n, s) => n + (s.inflight ?? 0), 0),
        lanePausedMs: Math.max(...atFinish.sessions.map((s) => s.lanePausedMs)),
        calls: atFinish.stats.requests,
        got429: atFinish.stats.rateLimited,
      },
      tailByRoute,
      byRoute: after.byRoute,
      stream: {
        batchesDuringRun: streamBatches.map((bs) => bs.length),
        firstBatchDoneAtMs: firstDoneAt,
        idleBetweenBatchesMs: idleMs,
        batches: streamBatches,
      },
      timeline,
    };
    const met = row.tailRealS <= 10 && row.lost === 0 && row.duplicates === 0 && (shards === 1 || row.got429 <= 5);
    row.target = stream
      ? { tail: row.tailRealS <= 10, exact: row.lost === 0 && row.duplicates === 0, few429: shards > 1 ? row.got429 <= 5 : undefined, met }
      : undefined;
    log(
      `  ${service}, ${shards === 1 ? '1 process' : `${shards} shards`}, ${row.variant}: tail ${row.tailMs} ms = ${row.tailRealS} s ${scale === 1 ? 'real' : 'real-eq'}` +
        `${row.shardTailsRealS ? ` (shards ${row.shardTailsRealS.join('/')})` : ''}; ${row.calls} calls (${row.callsInTail} in the tail), ${row.got429}× 429 (${row.got429InTail} in the tail); ` +
        `lost ${row.lost}, dup ${row.duplicates}; at finish: ${row.atFinish.confirmed}/${N} confirmed, ${row.atFinish.queued} queued, ${row.atFinish.inflight} batch(es) in flight, lane paused ${row.atFinish.lanePausedMs} ms` +
        `; tail calls ${JSON.stringify(tailByRoute)}${row.errors.length ? `; errors: ${row.errors.join(' | ')}` : ''}` +
        (stream
          ? `; stream: ${row.stream.batchesDuringRun.join('/')} batches during the run, first done at ${firstDoneAt.join('/')} ms, idle between batches ${idleMs.map(Math.round).join('/')} ms`
          : ''),
    );
    return row;
  } finally {
    undoHints();
    await sandbox.close();
  }
}

/** The run with the median tail, plus every run's tail, 429s in the tail and losses (any loss counts). */
function medianRow(runs) {
  const sorted = [...runs].sort((a, b) => a.tailMs - b.tailMs);
  const row = { ...sorted[(sorted.length - 1) >> 1] };
  row.reps = runs.map((r) => ({
    tailRealS: r.tailRealS,
    calls: r.calls,
    got429: r.got429,
    got429InTail: r.got429InTail,
    lost: r.lost,
    duplicates: r.duplicates,
  }));
  row.lost = Math.max(...runs.map((r) => r.lost));
  row.duplicates = Math.max(...runs.map((r) => r.duplicates));
  row.target = { ...row.target, exact: row.lost === 0 && row.duplicates === 0 };
  if (row.target.few429 !== undefined) row.target.few429 = runs.every((r) => r.got429 <= 5);
  row.target.met = row.target.tail && row.target.exact && row.target.few429 !== false;
  return row;
}

/** Figure 8: streamed vs everything-at-finish, Zephyr (1 process, 4 shards on one key) and CucumberStudio. */
async function tailUnderLimits(log) {
  log(
    `  scale ${S}×: run ${FIG8.RUN_MS} ms, Zephyr 30 per ${SANDBOX.faults.zephyr.rateLimit.windowMs} ms (sliding), CucumberStudio 200 per ${SANDBOX.faults.cucumberstudio.rateLimit.windowMs} ms (lock-out); N = ${N}, 5 % failing`,
  );
  const rows = [];
  // Quick mode (smoke): the streamed rows only, no baselines.
  const variants = L.QUICK ? [true] : [true, false];
  for (const service of ['zephyr', 'cucumberstudio']) {
    for (const stream of variants) {
      // Zephyr, one process, streamed: its tail is short unless the end begins with the service's window
      // full (no client pacing by default), then one 429 wait (up to a window) is the tail. Measured
      // REPS times; the row is the median, with every run's tail kept.
      const reps = service === 'zephyr' && stream && !L.QUICK ? REPS : 1;
      const runs = [];
      for (let i = 0; i < reps; i++) runs.push(await scenario(log, { service, shards: 1, stream }));
      rows.push(reps > 1 ? medianRow(runs) : runs[0]);
    }
  }
  for (const stream of variants) {
    // Four shards, streamed: how full each shard's 7-call window is when the end comes varies from run
    // to run (failures arriving together); measured REPS times like one process, the median reported.
    const reps = stream && !L.QUICK ? REPS : 1;
    const runs = [];
    for (let i = 0; i < reps; i++) runs.push(await scenario(log, { service: 'zephyr', shards: SHARDS, stream }));
    rows.push(reps > 1 ? medianRow(runs) : runs[0]);
  }
  return { scale: S, runMs: FIG8.RUN_MS, sandbox: SANDBOX, client: CLIENT, rows };
}

module.exports = { tailUnderLimits, scenario, sessionState, S, SANDBOX, CLIENT };
