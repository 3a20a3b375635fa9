'use strict';
/**
 * Figure 13, Xray Cloud: 2,000 mapped tests (1 % failing, no attachments) over a 10-minute run, time-scaled
 * S = 30× like figure 8 (the run is 20 s; Xray's 300 requests per 5 minutes become 300 per 10 s), each result handed
 * to `PublishRun.record` as its test ends. Reported: every request the sandbox received (REST and GraphQL, 429s and
 * retries included), the request bytes the client sent, and the tail — `finish` after the last test (× S = real s).
 */
const path = require('node:path');
const L = require('./lib');
const { scaleRateLimitHints } = require('./scaled-hints');

const S = 30;
const scaled = (realMs) => Math.max(1, Math.round(realMs / S));
const N = 2000;
const FAIL_EVERY = 100; // 1 % failing
const RUN_MS = scaled(600_000);

/** Request bodies the Xray client sends (its one `request` builder, plus authenticate's small body: not counted). */
function countRequestBytes() {
  const { XrayClient } = require(path.join(L.DIST, 'targets', 'xray', 'client.js'));
  const proto = XrayClient.prototype;
  const request = proto.request;
  const counted = { bytes: 0 };
  proto.request = function (...args) {
    const req = request.apply(this, args);
    counted.bytes += Buffer.byteLength(String(req.body ?? ''));
    return req;
  };
  return { counted, undo: () => (proto.request = request) };
}

async function xrayFigure(log) {
  const sandbox = await L.startSandbox({
    port: 0,
    xray: { testCount: N, rateLimit: { count: 300, windowMs: scaled(300_000) } },
    faults: { xray: { latencyMs: scaled(300), rateLimit: { count: 300, windowMs: scaled(300_000) } } },
  });
  const undoHints = scaleRateLimitHints(sandbox, S);
  const bytes = countRequestBytes();
  try {
    const summary = 'bench xray';
    const dir = L.tmpDir('xray');
    const env = L.pick(sandbox.env(), 'XRAY_');
    const options = {
      outboxDir: path.join(dir, 'outbox'),
      summaryFile: path.join(dir, 'summary.json'),
      publishTimeout: 600 / S,
      xray: { testExecutionSummary: summary, rateLimit: `290/${300 / S}` }, // the default 290 per 300 s, scaled
    };
    const config = L.resolveConfig(options, env, dir);
    if (config.problems.length) throw new Error(`bench config: ${config.problems.join('; ')}`);
    const run = new L.PublishRun(config, { printer: L.silentPrinter(), deps: {}, offerEveryMs: 1 });
    for (const s of /** @type {any} */ (run).sessions) s.target.batching = { ...s.target.batching, maxWaitMs: scaled(30_000) };
    const recs = L.records(N, { failEvery: FAIL_EVERY, zephyr: false }).map((r, i) => ({ ...r, keys: { xray: [`XT-${i + 1}`] } }));
    const t0 = performance.now();
    run.start(recs.map((r) => ({ testId: r.testId, keys: r.keys })));
    for (let i = 0; i < recs.length; i++) {
      const at = ((i + 1) * RUN_MS) / recs.length;
      const wait = at - (performance.now() - t0);
      if (wait > 0) await L.sleep(wait);
      run.record(recs[i]);
    }
    const before = sandbox.stats().xray.requests;
    const tf = performance.now();
    const out = await run.finish(recs, 0);
    const tailMs = performance.now() - tf;
    const st = sandbox.stats().xray;
    const e = /** @type {any} */ (sandbox.state().xray).executions.filter((/** @type {any} */ x) => x.summary === summary);
    const held = new Map((e[0]?.runs ?? []).map((r) => [r.testKey, r.status]));
    const lost = recs.filter((r) => held.get(r.keys.xray[0]) !== (r.outcome === 'failed' ? 'FAILED' : 'PASSED')).length;
    const row = {
      n: N,
      failed: recs.filter((r) => r.outcome === 'failed').length,
      calls: st.requests,
      callsInTail: st.requests - before,
      got429: st.rateLimited,
      requestBytes: bytes.counted.bytes,
      answerBytes: st.bytesOut,
      tailMs: Math.round(tailMs),
      tailRealS: +((tailMs * S) / 1000).toFixed(1),
      executions: e.length,
      lost,
      unsent: out.targets.xray?.unsent,
      errors: out.targets.xray?.errors ?? [],
      byRoute: st.byRoute,
    };
    log(
      `  Xray N=${N}: ${row.calls} calls (${row.callsInTail} in the tail, ${row.got429} × 429), ${row.requestBytes} bytes sent, tail ${row.tailRealS} s real, lost ${lost}`,
    );
    return row;
  } finally {
    bytes.undo();
    undoHints();
    await sandbox.close();
  }
}

module.exports = { xrayFigure };
