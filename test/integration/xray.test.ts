import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import { allFileText, MODES, testSandbox, xrayOnly, type Mode } from './harness';
import { runInstances } from './shared-run';
import { silentTodos, XRAY_EXPECTED, XRAY_SUITE, xrayExecution, xrayExecutions, xrayState, xrayStatuses } from './xray-helpers';

/**
 * Both modes from ONE `playwright test` run (XRAY_SUITE's failures restart a worker after every failed attempt, so a
 * run per mode cost twice that): a live reporter instance publishes "xray outcomes live", and the run's blob report,
 * merged, publishes "xray outcomes merge". Each has its own summary and Test Execution.
 */
let sandbox: RunningSandbox;
let outcome: Record<Mode, { summary: RunSummary; output: string }>;
let dir: string;
const summaryOf = (mode: Mode) => `xray outcomes ${mode}`;

beforeAll(async () => {
  sandbox = await testSandbox();
  const env = xrayOnly(sandbox.env(), { XRAY_TEST_PLAN_KEY: 'XT-302' });
  const run = await runInstances(
    { files: XRAY_SUITE, env, retries: 1 },
    { live: { xray: { testExecutionSummary: summaryOf('live') } } },
    { xray: { testExecutionSummary: summaryOf('merge') } },
  );
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
});
