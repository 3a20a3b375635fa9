/**
 * The status table published to both services by each event source (live, and blob -> merge-reports):
 * ZEPHYR_SUITE's keys and CS_SUITE's scenarios are disjoint, so one Playwright run of both suites is asserted
 * for each service as if it had had the run to itself. The two event sources share that run too: a live instance
 * of the reporter publishes to a sandbox of its own during the run, which also writes the blob report that
 * merge-reports then publishes to the other sandbox (the failing, retried suites start a Playwright worker per
 * failed attempt: ≈ 18 s of CPU for a run, once instead of twice).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RequestLogEntry } from '../../src/sandbox/server';
import { allFileText, csLastStatuses, csRun, MODES, outboxFiles, testSandbox, zephyrCycles, zephyrStatuses, type Mode } from './harness';
import { runInstances, type InstanceResult } from './shared-run';
import { CS_EXPECTED, CS_SUITE, ZEPHYR_EXPECTED, ZEPHYR_SUITE } from './suites';

/** Tests of each suite: a test of one is unmapped for the other service. */
const ZEPHYR_TESTS = 12;
const CS_TESTS = 10;

/** A sandbox per event source: each instance's requests are counted alone. */
const sandboxes = {} as Record<Mode, RunningSandbox>;
/** Each source's instance: its summary and outbox, the run's output, and the run's folder. */
const runs = {} as Record<Mode, InstanceResult & { dir: string }>;
const names = (mode: Mode) => ({ cycleName: `statuses ${mode}`, testRunName: `cs ${mode}` });

beforeAll(async () => {
  // Test generation takes longer than the Playwright run itself: the reporter has to wait out the 423.
  for (const mode of MODES) sandboxes[mode] = await testSandbox({ cucumberstudio: { generationDelayMs: 3000 } });
  const options = (mode: Mode) => {
    const env = sandboxes[mode].env();
    return {
      zephyr: { baseUrl: env.ZEPHYR_BASE_URL, cycleName: names(mode).cycleName },
      cucumberstudio: { baseUrl: env.CUCUMBERSTUDIO_BASE_URL, testRunName: names(mode).testRunName },
    };
  };
  // Debug logging on: every request is logged, and still no secret may appear.
  const shared = await runInstances(
    { files: { ...ZEPHYR_SUITE, ...CS_SUITE }, env: { ...sandboxes.merge.env(), PW_TMS_DEBUG: '1' }, retries: 1 },
    { live: options('live') },
    options('merge'),
  );
  const merged = shared.merged!;
  runs.live = { ...shared.live, dir: merged.dir };
  runs.merge = { summary: merged.summary!, outboxDir: merged.outboxDir, output: merged.output, dir: merged.dir };
}, 300_000);
afterAll(async () => {
  for (const mode of MODES) await sandboxes[mode]?.close();
});

const expectedLast = () => {
  const out: Record<number, string[]> = {};
  for (const [id, status] of Object.entries(CS_EXPECTED)) out[Number(id)] = Number(id) === 7 ? [status, status] : [status];
  return out;
};

describe.each(MODES)('publishing both suites (%s)', (mode) => {
  const { cycleName, testRunName: runName } = names(mode);
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  let run: InstanceResult & { dir: string };
  /** The CucumberStudio requests the sandbox received during the run, and how many it counted. */
  let csLog: RequestLogEntry[];
  let csRequests: number;
  beforeAll(() => {
    sandbox = sandboxes[mode];
    env = sandbox.env();
    run = runs[mode];
    csLog = sandbox.log().filter((e) => e.service === 'cucumberstudio');
    csRequests = sandbox.stats().cucumberstudio.requests;
  });

  it('Zephyr: ends with exactly one execution per key, each with its mapped status', () => {
    expect(run.output).toMatch(/debug: Zephyr GET \/connect\/public\/rest\/api\/1\.0\/cycles\/search\?projectId=10000&versionId=-1 -> 200/);
    expect(run.output).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\./); // no JWT
    expect(run.output).toContain('Zephyr Squad: cycle "statuses');
    expect(run.output).not.toContain('unknown option'); // Playwright's own configDir / _mode keys are accepted
    expect(zephyrStatuses(sandbox, cycleName)).toEqual(ZEPHYR_EXPECTED);
    const cycle = zephyrCycles(sandbox).find((c) => c.name === cycleName)!;
    const byKey = Object.fromEntries(cycle.executions.map((e) => [e.issueKey, e]));
    expect(byKey['PROJ-3'].comment).toContain('Expected: 2');
    expect(byKey['PROJ-3'].comment).not.toMatch(/\u001b\[/);
    expect(byKey['PROJ-9'].comment).toContain('shared key must fail');
    expect(byKey['PROJ-4'].comment).toContain('Flaky');
    expect(byKey['PROJ-5'].statusChanges).toBe(0);
    const z = run.summary!.targets.zephyr!;
    // ZEPHYR_SUITE's one unmapped test, and every CucumberStudio test.
    expect(z).toMatchObject({ published: 11, unsent: 0, unmapped: 1 + CS_TESTS, errors: [] });
    expect(z.countsByStatus).toEqual({ PASS: 7, FAIL: 3, UNEXECUTED: 1 });
    expect(z.verify?.ok).toBe(true);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    for (const s of [env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY, env.CUCUMBERSTUDIO_ACCESS_TOKEN].map((v) => v.trim())) {
      expect(run.output).not.toContain(s);
      expect(allFileText(run.dir)).not.toContain(s);
    }
  });

  it('CucumberStudio: creates the run with the mapped scenarios, waits out the 423, posts one result per test', () => {
    const r = csRun(sandbox, runName);
    expect(r.scenarioIds.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 7, 11, 12]);
    // The run's tests were still being generated when first listed: the 423 was served and waited out.
    const listed = sandbox
      .log()
      .filter((e) => e.service === 'cucumberstudio' && e.target.includes(`/test_runs/${r.id}/test_snapshots`) && e.method === 'GET');
    expect(
      listed.some((e) => e.status === 423),
      JSON.stringify(listed.map((e) => e.status)),
    ).toBe(true);
    expect(csLastStatuses(r)).toEqual(expectedLast());
    expect(r.snapshots.find((s) => s.scenarioId === 2)!.results[0].description).toContain('Expected: "b"');
    expect(r.snapshots.find((s) => s.scenarioId === 11)!.results[0].description).toContain('s11 broke');
    expect(r.statuses).toMatchObject({ passed: 5, failed: 3, skipped: 1, undefined: 0 });
    const cs = run.summary!.targets.cucumberstudio!;
    // CS_SUITE's one unmapped test, and every Zephyr test.
    expect(cs).toMatchObject({ published: 8, unsent: 0, unmapped: 1 + ZEPHYR_TESTS, errors: [] });
    expect(cs.verify?.ok).toBe(true);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    expect(run.output + allFileText(run.dir)).not.toContain(env.CUCUMBERSTUDIO_ACCESS_TOKEN);
  });

  it('CucumberStudio requests: the whole scenario list is read only without the list linkage, and at most once', async () => {
    const log = csLog;
    const count = (route: string) => log.filter((e) => e.route === route).length;
    const linkage = await listCarriesLinkage(sandbox, csRun(sandbox, runName).id);
    expect(count('GET /projects/:pid/scenarios')).toBe(linkage ? 0 : 1);
    // Only the tests named like two scenarios (11 and 12 share a name) are looked up one by one, and only without linkage.
    expect(count('GET /projects/:pid/test_runs/:trid/test_snapshots/:tsid')).toBe(linkage ? 0 : 2);
    expect(count('PATCH /projects/:pid/test_runs/:trid')).toBe(0);
    // Test-list reads depend on how long the generation takes (the 423s waited out): counted apart.
    const polls = count('GET /projects/:pid/test_runs/:trid/test_snapshots');
    // Evidence is counted apart (issue: statuses stay within their budget): Playwright's error-context of each failed test.
    const uploads = log.filter((e) => e.method === 'POST' && e.route.endsWith('/attachments')).length;
    console.log(
      `[publishing ${mode}] CS_SUITE: ${csRequests} CucumberStudio requests (${polls} test-list reads, ${uploads} uploads, linkage ${linkage ? 'served' : 'absent: fallback by names'})`,
    );
    expect(csRequests).toBe(log.length);
    expect(uploads).toBe(run.summary!.targets.cucumberstudio!.attachments?.uploaded ?? 0);
    // project, run list x2, create, 9 posts (+ scenario list and 2 lookups); the read-back is one test-list read (in polls);
    // the CI build's build: environments, builds, create, rename (the name ignored), builds again; at the end builds + the build read
    expect(csRequests - polls - uploads).toBe(linkage ? 20 : 23);
    expect(log.filter((e) => e.target.includes('show_step_statuses=true'))).toHaveLength(1);
  });
});

/** Does the sandbox's test list give `relationships.scenario.data` (asked after the measured run, so not counted in it)? */
async function listCarriesLinkage(sandbox: RunningSandbox, runId: number): Promise<boolean> {
  const env = sandbox.env();
  const res = await fetch(`${sandbox.origin}/api/projects/1/test_runs/${runId}/test_snapshots?include=scenario`, {
    headers: {
      Accept: 'application/vnd.api+json; version=1',
      uid: env.CUCUMBERSTUDIO_UID,
      'access-token': env.CUCUMBERSTUDIO_ACCESS_TOKEN,
      client: env.CUCUMBERSTUDIO_CLIENT,
    },
  });
  const doc = (await res.json()) as { data: Array<{ relationships?: { scenario?: { data?: { id: string } } } }> };
  return doc.data.some((t) => t.relationships?.scenario?.data?.id !== undefined);
}
