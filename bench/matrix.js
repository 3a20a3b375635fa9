'use strict';
/**
 * Figure 12: the test matrix — T tests × 3 Playwright projects, merge vs split, Zephyr and CucumberStudio; and what
 * a process of a CI build pays for worst wins across the build's processes (a local run pays nothing).
 * The publisher is driven directly (publishOnce), against a sandbox without a rate limit, 20 ms latency.
 */
const { publishOnce } = require('./publisher');
const L = require('./lib');

const PROJECTS = ['chromium', 'firefox', 'webkit'];

/**
 * T keys, each run by every project; 1 % of the keys fail, in one project only (firefox).
 * @param {number} t
 * @param {'zephyr' | 'cucumberstudio'} service
 * @param {boolean} split
 */
function matrixRecords(t, service, split) {
  const out = [];
  for (const project of PROJECTS)
    for (let i = 0; i < t; i++) {
      const failed = project === 'firefox' && (i + 1) % 100 === 0;
      const key = service === 'zephyr' ? `PROJ-${i + 1}` : String(100 + i + 1);
      out.push({
        testId: `${project}-${i}`,
        title: `${project} › file${i % 10}.spec.ts › test ${i}`,
        keys: { [service]: [key] },
        outcome: /** @type {'failed' | 'passed'} */ (failed ? 'failed' : 'passed'),
        ...(failed ? { error: `Error: expect(received).toBe(expected)\n\nExpected: 0\nReceived: 1` } : {}),
        attempts: 1,
        ...(split ? { place: project } : {}),
      });
    }
  return out;
}

/** @param {(line: string) => void} log */
async function matrix(log) {
  const t = L.QUICK ? 500 : 2000;
  const rows = [];
  const sandbox = await L.startSandbox({
    port: 0,
    cucumberstudio: { generationDelayMs: 300 },
    faults: { zephyr: { latencyMs: 20 }, cucumberstudio: { latencyMs: 20 } },
  });
  try {
    /**
     * @param {'zephyr' | 'cucumberstudio'} service
     * @param {'merge' | 'split'} projects
     * @param {string | undefined} build the CI build (PW_TMS_BUILD), or a local run's own
     * @param {string} name
     */
    const one = async (service, projects, build, name) => {
      const env = {
        ...L.pick(sandbox.env(), service === 'zephyr' ? 'ZEPHYR_' : 'CUCUMBERSTUDIO_'),
        ...(build ? { PW_TMS_BUILD: build } : {}),
      };
      const own =
        service === 'zephyr'
          ? { zephyr: { cycleName: name, rateLimit: 'off' } }
          : { cucumberstudio: { testRunName: name, rateLimit: 'off' } };
      const recs = matrixRecords(t, service, projects === 'split');
      const r = await publishOnce(sandbox, { options: { ...own, projects }, env, recs, runWait: service === 'zephyr' });
      const s = r.summary.targets[service];
      const calls = r.delta(service, 'requests');
      return {
        service,
        projects,
        build: build ? 'CI build' : 'local',
        results: s?.published ?? 0,
        calls,
        errors: s?.errors ?? [],
        tailMs: Math.round(r.tailMs),
      };
    };
    const cases = /** @type {Array<['zephyr' | 'cucumberstudio', 'merge' | 'split', string | undefined, string]>} */ ([
      ['zephyr', 'merge', undefined, 'matrix z merge'],
      ['zephyr', 'merge', 'ci 1', 'matrix z merge ci'],
      // A second process of the same CI build (a shard, a job per project) publishing into that cycle.
      ['zephyr', 'merge', 'ci 1', 'matrix z merge ci'],
      ['zephyr', 'split', undefined, 'matrix z split'],
      ['cucumberstudio', 'merge', undefined, 'matrix cs merge'],
      ['cucumberstudio', 'merge', 'ci 2', 'matrix cs merge ci'],
      ['cucumberstudio', 'merge', 'ci 2', 'matrix cs merge ci'],
      ['cucumberstudio', 'split', undefined, 'matrix cs split'],
    ]);
    for (const [service, projects, build, name] of cases) {
      const row = await one(service, projects, build, name);
      // CucumberStudio takes one result per call at 200 a minute per IP: what this many calls costs at the real limit.
      row.atRealLimitMin = service === 'cucumberstudio' ? +(row.calls / 195).toFixed(1) : +(row.calls / 28).toFixed(1);
      rows.push(row);
      log(
        `  ${service} ${projects} (${row.build}): ${row.results} results, ${row.calls} calls (≈ ${row.atRealLimitMin} min at the real limit), tail ${row.tailMs} ms${row.errors.length ? `, errors: ${row.errors.join('; ')}` : ''}`,
      );
    }
  } finally {
    await sandbox.close();
  }
  return { tests: t, projects: PROJECTS.length, rows };
}

module.exports = { matrix, matrixRecords };
