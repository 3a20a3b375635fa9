import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import { allFileText, MODES, outboxFiles, runReplay, testSandbox, xrayOnly, type Mode } from './harness';
import { runInstances, type Instances } from './shared-run';
import { silentTodos, XRAY_EXPECTED, XRAY_SUITE, xrayExecution, xrayExecutions, xrayState, xrayStatuses } from './xray-helpers';

/**
 * Both modes from ONE `playwright test` run (XRAY_SUITE's failures restart a worker after every failed attempt, so a
 * run per mode cost twice that): a live reporter instance publishes "xray outcomes live", and the run's blob report,
 * merged, publishes "xray outcomes merge". Each has its own summary and Test Execution.
 */
let sandbox: RunningSandbox;
let outcome: Record<Mode, { summary: RunSummary; output: string }>;
let dir: string;
/** Instances of the same run whose settings the service refuses (journals replayed below). */
let refused: Instances<'live' | 'plan' | 'nokey'>;
const summaryOf = (mode: Mode) => `xray outcomes ${mode}`;
/** The wall time of the `playwright test` run (and its merge): every run's start and finish fall inside it. */
let wall: { from: number; to: number };

beforeAll(async () => {
  sandbox = await testSandbox();
  const env = xrayOnly(sandbox.env(), { XRAY_TEST_PLAN_KEY: 'XT-302' });
  const from = Date.now();
  const run = await runInstances(
    { files: XRAY_SUITE, env, retries: 1 },
    {
      live: { xray: { testExecutionSummary: summaryOf('live') } },
      // XT-1 is a Test, not a Test Plan; XT-9999 is no issue at all.
      plan: { xray: { testExecutionSummary: 'xray bad plan', testPlanKey: 'XT-1' } },
      nokey: { xray: { testExecutionSummary: 'xray no such key', testExecutionKey: 'XT-9999' } },
    },
    { xray: { testExecutionSummary: summaryOf('merge') } },
  );
  wall = { from, to: Date.now() };
  refused = run;
  const merged = run.merged!;
  dir = merged.dir;
  // The merge's own lines come after the marker; the live instance's before it.
  const [liveOutput, mergeOutput = ''] = merged.output.split('\n--- merge-reports ---\n');
  outcome = {
    live: { summary: run.live.summary, output: liveOutput },
    merge: { summary: merged.summary ?? ({ targets: {} } as RunSummary), output: mergeOutput },
  };
}, 300_000);
afterAll(async () => {
  await sandbox?.close();
});

describe.each(MODES)('Xray: the status table (%s)', (mode) => {
  it('one Test Execution, every outcome exact, linked to the plan; a key that is not a Test is refused; no silent TODO, no secret anywhere', () => {
    const summary = summaryOf(mode);
    const run = outcome[mode];
    const e = xrayExecution(sandbox, summary);
    expect(xrayStatuses(e)).toEqual(XRAY_EXPECTED);
    expect(e.testPlans).toEqual(['XT-302']);
    expect(e.environments).toEqual([]);
    // The failure's text is the comment, after the line naming the build (worst wins across one build's processes).
    const xt4 = e.runs.find((r) => r.testKey === 'XT-4')!;
    expect(xt4.comment).toMatch(/^Playwright build: local [0-9a-f]+\n\{noformat\}Failed: .*xt4 must fail/);
    expect(e.runs.find((r) => r.testKey === 'XT-8')!.comment).toContain('xt8 broke');
    expect(silentTodos(sandbox)).toBe(0);
    expect(xrayState(sandbox).counters.testInfo).toBe(0);
    const s = run.summary.targets.xray!;
    expect(s, run.output).toMatchObject({ published: 8, unsent: 0, refused: 1 });
    expect(s.errors).toEqual([expect.stringMatching(/^XT-301 is not a Test in Xray .*fix the test's key/)]);
    expect(s.container).toMatchObject({ kind: 'Test Execution', id: e.key, name: summary, reused: false });
    expect(s.verify?.ok).toBe(true);
    expect(run.summary.targets.zephyr).toBeUndefined();
    expect(run.output).toContain('XT-301');
    const secret = sandbox.env().XRAY_CLIENT_SECRET;
    expect(allFileText(dir) + run.output).not.toContain(secret);
    expect(xrayExecutions(sandbox, summary)).toHaveLength(1);
  });

  it("every run has the start and finish of its test's attempt, in order, inside the run's wall time", () => {
    const e = xrayExecution(sandbox, summaryOf(mode));
    for (const r of e.runs) {
      const [start, finish] = [Date.parse(r.startedOn ?? ''), Date.parse(r.finishedOn ?? '')];
      expect([r.testKey, r.startedOn, r.finishedOn]).toEqual([r.testKey, expect.stringMatching(/Z$/), expect.stringMatching(/Z$/)]);
      expect(start, r.testKey).toBeGreaterThanOrEqual(wall.from);
      expect(finish, r.testKey).toBeGreaterThanOrEqual(start);
      expect(finish, r.testKey).toBeLessThanOrEqual(wall.to);
    }
    // XT-9 times out at 300 ms: its failing attempt lasted at least that.
    const xt9 = e.runs.find((r) => r.testKey === 'XT-9')!;
    expect(Date.parse(xt9.finishedOn!) - Date.parse(xt9.startedOn!)).toBeGreaterThanOrEqual(300);
  });
});

describe('Xray: replaying settings the run could not use', () => {
  it('a Test Plan key that is no Test Plan: refused by the service, so the replay links the plan configured now, and says so', async () => {
    const run = refused.plan;
    expect(run.summary.targets.xray, run.output).toMatchObject({ published: 0 });
    expect(run.output).toContain('Xray has no Test Plan XT-1: check XRAY_TEST_PLAN_KEY (xray.testPlanKey) = XT-1.');
    // Made before the link was refused: the replay goes into it by key (a run configured by summary names no key).
    const made = xrayExecution(sandbox, 'xray bad plan');
    const env = xrayOnly(sandbox.env(), { XRAY_TEST_PLAN_KEY: 'XT-301', XRAY_TEST_EXECUTION_KEY: made.key });
    const replayed = await runReplay(run.outboxDir, env);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).toContain(
      `Xray: the run never reached Test Execution "xray bad plan"; replaying into ${made.key}, as configured now`,
    );
    expect(replayed.output).toMatch(
      /Xray: replaying with the run's settings from its journal \(projectKey, statusMap\); testPlanKey from the environment .*\(the service refused the run's\)/,
    );
    expect(replayed.output).not.toContain('undefined');
    expect(replayed.output).not.toContain('XT-1:');
    const e = xrayExecution(sandbox, 'xray bad plan');
    expect(xrayStatuses(e)).toEqual(XRAY_EXPECTED);
    expect(e.testPlans).toEqual(['XT-301']);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it("a Test Execution key Xray does not have, replayed without one: the line says the run's journal named it", async () => {
    const run = refused.nokey;
    expect(run.output).toContain('Xray has no Test Execution XT-9999: check XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey) = XT-9999.');
    const replayed = await runReplay(run.outboxDir, xrayOnly(sandbox.env(), { XRAY_TEST_PLAN_KEY: undefined }));
    expect(replayed.exitCode).toBe(1);
    expect(replayed.output).toContain(
      "Xray has no Test Execution XT-9999: check Test Execution XT-9999, named by the run's journal; to replay into another, set XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey).",
    );
    expect(replayed.output).not.toContain('XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey) = XT-9999');
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
  });
});
