'use strict';
/**
 * Figure 9, "bytes downloaded": what publishing 20 mapped scenarios costs in CucumberStudio answer bytes
 * (`stats().cucumberstudio.bytesOut`, every answer body the sandbox sent) in a project of 200 and of 20,000
 * scenarios. The client finds each test's scenario through the test list's `include=scenario` linkage, so the
 * figure must not grow with the project. Next to it, same sandbox: the bytes of the project's whole scenario
 * list, i.e. what one read of it (the fallback without linkage) would cost.
 */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');

const MAPPED = 20;
const SIZES = [200, 20_000];
const TARGET_BYTES = 200 * 1024;

/** One publish of `recs` like the reporter's (start at suite begin, finish at the end); returns the summary. */
async function publish(env, recs, name) {
  const dir = L.tmpDir('bytes');
  const config = L.resolveConfig(
    { outboxDir: path.join(dir, 'outbox'), summaryFile: path.join(dir, 'summary.json'), cucumberstudio: { testRunName: name } },
    env,
    dir,
  );
  if (config.problems.length) throw new Error(`bench config: ${config.problems.join('; ')}`);
  const run = new L.PublishRun(config, { printer: L.silentPrinter() });
  try {
    run.start(recs);
    run.journal(recs);
    return await run.finish(recs, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Bytes of the project's whole scenario list, read once as the fallback would. */
async function scenarioListBytes(sandbox, env) {
  const res = await fetch(`${sandbox.origin}/api/projects/${env.CUCUMBERSTUDIO_PROJECT_ID}/scenarios`, {
    headers: {
      accept: 'application/vnd.api+json; version=1',
      uid: env.CUCUMBERSTUDIO_UID,
      'access-token': env.CUCUMBERSTUDIO_ACCESS_TOKEN,
      client: env.CUCUMBERSTUDIO_CLIENT,
    },
  });
  if (res.status !== 200) throw new Error(`scenario list answered ${res.status}`);
  return Buffer.byteLength(await res.text());
}

async function csBytes(log) {
  const rows = [];
  for (const scenarioCount of SIZES) {
    const sandbox = await L.startSandbox({ port: 0, cucumberstudio: { scenarioCount, generationDelayMs: 300 } });
    try {
      const env = L.pick(sandbox.env(), 'CUCUMBERSTUDIO_');
      // Scenarios 101..120, a few failing (their results carry the error text).
      const recs = L.records(MAPPED, { failEvery: 5, zephyr: false, cs: true, csOffset: 100 });
      const name = `bench bytes ${scenarioCount}`;
      const summary = await publish(env, recs, name);
      const stats = sandbox.stats().cucumberstudio;
      const byRoute = stats.byRoute;
      const expected = Object.fromEntries(recs.map((x) => [Number(x.keys.cucumberstudio?.[0]), x.outcome]));
      const check = L.checkCs(sandbox, name, expected);
      const row = {
        scenarioCount,
        mapped: MAPPED,
        bytesOut: stats.bytesOut,
        calls: stats.requests,
        byRoute,
        scenarioListReads: byRoute['GET /projects/:pid/scenarios'] ?? 0,
        wholeScenarioListBytes: await scenarioListBytes(sandbox, env),
        exact: check.lost === 0 && check.duplicates === 0,
        errors: summary.targets.cucumberstudio?.errors ?? [],
      };
      row.target = { bytes: row.bytesOut <= TARGET_BYTES, exact: row.exact };
      log(
        `  ${scenarioCount} scenarios: ${(row.bytesOut / 1024).toFixed(1)} KB in ${row.calls} calls (scenario list read ${row.scenarioListReads}×; the whole list would be ${(row.wholeScenarioListBytes / 1024).toFixed(0)} KB), exact ${row.exact}`,
      );
      rows.push(row);
    } finally {
      await sandbox.close();
    }
  }
  const [small, large] = rows;
  return { rows, growth: +(large.bytesOut / small.bytesOut).toFixed(3), targetBytes: TARGET_BYTES };
}

module.exports = { csBytes };
