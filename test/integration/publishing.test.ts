/**
 * The status table published to both services by one run per event source (live, and blob -> merge-reports):
 * ZEPHYR_SUITE's keys and CS_SUITE's scenarios are disjoint, so one Playwright run of both suites is asserted
 * for each service as if it had had the run to itself (a run of these failing, retried suites costs about 10 s
 * of CPU: one for both instead of one each).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import {
  allFileText,
  csLastStatuses,
  csRun,
  MODES,
  outboxFiles,
  runPlaywright,
  testSandbox,
  zephyrCycles,
  zephyrStatuses,
  type RunResult,
} from './harness';
import { CS_EXPECTED, CS_SUITE, ZEPHYR_EXPECTED, ZEPHYR_SUITE } from './suites';

/** Tests of each suite: a test of one is unmapped for the other service. */
const ZEPHYR_TESTS = 12;
const CS_TESTS = 10;

let sandbox: RunningSandbox;
beforeAll(async () => {
  // Test generation takes longer than the Playwright run itself: the reporter has to wait out the 423.
  sandbox = await testSandbox({ cucumberstudio: { generationDelayMs: 3000 } });
});
afterAll(async () => {
  await sandbox?.close();
});

const expectedLast = () => {
  const out: Record<number, string[]> = {};
  for (const [id, status] of Object.entries(CS_EXPECTED)) out[Number(id)] = Number(id) === 7 ? [status, status] : [status];
  return out;
};

describe.each(MODES)('publishing both suites (%s)', (mode) => {
  const cycleName = `statuses ${mode}`;
  const runName = `cs ${mode}`;
  // Debug logging on: every request is logged, and still no secret may appear.
  let env: Record<string, string>;
  let run: RunResult;
  beforeAll(async () => {
    env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: cycleName, CUCUMBERSTUDIO_TEST_RUN_NAME: runName, PW_TMS_DEBUG: '1' };
    run = await runPlaywright({ files: { ...ZEPHYR_SUITE, ...CS_SUITE }, env, retries: 1, mode });
  }, 300_000);

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
});
