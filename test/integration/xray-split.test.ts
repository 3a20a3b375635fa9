import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, runReplay, testSandbox, xrayOnly, type Mode } from './harness';
import { silentTodos, xrayExecution, xrayExecutions, xrayStatuses } from './xray-helpers';

/**
 * Xray split mode (`projects: 'split'`): one Test Execution per Playwright project, its summary suffixed with the
 * project's name and that name as its only Test Environment, each linked to the Test Plan — in one process and
 * through blob → merge-reports. Only Xray is enabled: split mode needs every enabled target to keep projects apart.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** XT-1 fails in beta only; XT-2 passes in both. */
const files = {
  's.spec.ts': `import { test } from '@playwright/test';
test('shared', { tag: '@XT-1' }, () => {
  if (test.info().project.name === 'beta') throw new Error('fails in beta');
});
test('ok', { tag: '@XT-2' }, () => {});`,
};

const publish = (summary: string, mode: Mode = 'live', extra: Record<string, string> = {}) =>
  runPlaywright({
    files,
    projects: ['alpha', 'beta'],
    mode,
    env: xrayOnly(sandbox.env(), {
      XRAY_TEST_EXECUTION_SUMMARY: summary,
      XRAY_TEST_PLAN_KEY: 'XT-302',
      PW_TMS_PROJECTS: 'split',
      ...extra,
    }),
  });

/** Both projects' executions: their own environment, plan link and statuses; no merge-mode execution. */
function expectSplit(summary: string): void {
  const alpha = xrayExecution(sandbox, `${summary} alpha`);
  const beta = xrayExecution(sandbox, `${summary} beta`);
  expect(xrayExecutions(sandbox, summary)).toHaveLength(0);
  expect(alpha.environments).toEqual(['alpha']);
  expect(beta.environments).toEqual(['beta']);
  expect(alpha.testPlans).toEqual(['XT-302']);
  expect(beta.testPlans).toEqual(['XT-302']);
  expect(xrayStatuses(alpha)).toEqual({ 'XT-1': 'PASSED', 'XT-2': 'PASSED' });
  expect(xrayStatuses(beta)).toEqual({ 'XT-1': 'FAILED', 'XT-2': 'PASSED' });
  expect(beta.runs.find((r) => r.testKey === 'XT-1')!.comment).toContain('fails in beta');
  expect(silentTodos(sandbox)).toBe(0);
}

it('one process: a Test Execution per project with its environment and its own statuses, both linked to the plan; a summary per project', async () => {
  const run = await publish('xsplit one');
  const s = run.summary!.targets.xray;
  expect(s, run.output).toMatchObject({ published: 4, unsent: 0, errors: [], verify: { ok: true } });
  expect(s.byPlace).toEqual({
    alpha: { published: 2, countsByStatus: { PASSED: 2 } },
    beta: { published: 2, countsByStatus: { PASSED: 1, FAILED: 1 } },
  });
  expectSplit('xsplit one');
  // A second run of the summary finds both executions (no twin) and leaves each its own environment.
  const again = await publish('xsplit one');
  expect(again.summary!.targets.xray, again.output).toMatchObject({ published: 4, errors: [], verify: { ok: true } });
  expectSplit('xsplit one');
});

it('through blob and merge-reports: the same executions and statuses', async () => {
  const run = await publish('xsplit blob', 'merge');
  expect(run.summary!.targets.xray, run.output).toMatchObject({ published: 4, errors: [], verify: { ok: true } });
  expectSplit('xsplit blob');
});

it('split mode with a Test Execution key: one clear line, nothing imported', async () => {
  const alpha = xrayExecution(sandbox, 'xsplit one alpha');
  const run = await publish('xsplit key', 'live', { XRAY_TEST_EXECUTION_KEY: alpha.key });
  expect(run.summary!.targets.xray.errors.join('\n')).toMatch(/XRAY_TEST_EXECUTION_KEY \(xray.testExecutionKey\).*projects: 'split'/);
  expect(xrayExecutions(sandbox, 'xsplit key alpha')).toHaveLength(0);
});

it('an outage, then replay with neither the summary nor the mode in its env: into the same two executions', async () => {
  sandbox.setFaults('xray', { down: true });
  let down;
  try {
    down = await publish('xsplit replay', 'live', { PW_TMS_PUBLISH_TIMEOUT: '3' });
  } finally {
    sandbox.setFaults('xray', { down: false });
  }
  expect(down.summary!.targets.xray).toMatchObject({ published: 0, unsent: 4 });
  // The journal holds the summary and the projects (its keys are placed); no key names one execution for all.
  const replay = await runReplay(down.outboxDir, xrayOnly(sandbox.env(), { XRAY_TEST_PLAN_KEY: 'XT-302' }));
  expect(replay.exitCode, replay.output).toBe(0);
  expectSplit('xsplit replay');
});
