import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { allFileText, runPlaywright, testSandbox, xrayOnly } from './harness';
import { xrayExecutions } from './xray-helpers';

/**
 * Xray's rows of the bad-input matrix (test/integration/bad-input.test.ts: one clear `[tms-reporter]` line per
 * problem naming the option and the env var, no stack trace, the run's exit code kept, no secret anywhere), and
 * the dry run, which names the Test Execution(s) results would go to and sends nothing.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const files = {
  'a.spec.ts': `const { test } = require('@playwright/test');
test('ok', { tag: '@XT-1' }, () => {});`,
};

it('bad Xray options: one line each naming the option and the env var; nothing sent', async () => {
  const summary = 'xray bad input';
  const run = await runPlaywright({
    files,
    env: xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary, XRAY_RATE_LIMIT: 'fast' }),
    options: {
      xray: {
        testExecutionKey: 'not a key',
        testPlanKey: 'PLAN',
        projectKey: 'lower case',
        statusMap: { broken: 'FAILED' },
        jiraUrl: 'ftp://x',
      },
    },
  });
  expect(run.exitCode, run.output).toBe(0);
  const lines = run.output.split('\n').filter((l) => l.startsWith('[tms-reporter]'));
  const said = (names: string[], words: RegExp) =>
    expect(
      lines.some((l) => names.every((n) => l.includes(n)) && words.test(l)),
      `${names.join(', ')}\n${run.output}`,
    ).toBe(true);
  said(['xray.testExecutionKey', 'XRAY_TEST_EXECUTION_KEY'], /expected a Jira issue key/);
  said(['xray.testPlanKey', 'XRAY_TEST_PLAN_KEY'], /expected a Jira issue key/);
  said(['xray.projectKey', 'XRAY_PROJECT_KEY'], /expected a Jira project key/);
  said(['xray.rateLimit', 'XRAY_RATE_LIMIT'], /fast/);
  said(['xray.jiraUrl', 'XRAY_JIRA_URL'], /ftp/);
  said(['xray.statusMap'], /broken/);
  expect(run.output).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(allFileText(run.dir) + run.output).not.toContain(sandbox.env().XRAY_CLIENT_SECRET);
  expect(xrayExecutions(sandbox, summary)).toHaveLength(0);
});

it("dry run in split mode: names each project's Test Execution with its environment and plan; creates nothing", async () => {
  const summary = 'xray dry split';
  const run = await runPlaywright({
    files,
    projects: ['alpha', 'beta'],
    env: xrayOnly(sandbox.env(), {
      XRAY_TEST_EXECUTION_SUMMARY: summary,
      XRAY_TEST_PLAN_KEY: 'XT-302',
      PW_TMS_PROJECTS: 'split',
      PW_TMS_DRY_RUN: '1',
    }),
  });
  expect(run.exitCode, run.output).toBe(0);
  for (const project of ['alpha', 'beta'])
    expect(run.output).toContain(
      `dry run: Xray would publish into Test Execution "${summary} ${project}" with Test Environment "${project}" in project XT (found by summary, or created), linked to Test Plan XT-302`,
    );
  expect(xrayExecutions(sandbox, `${summary} alpha`)).toHaveLength(0);
  // The summary line names no execution of the summary itself: none would have it (the lines above name each).
  expect(run.output).toMatch(/Xray: dry run — would publish \d+/);
  expect(run.output).not.toContain(`Test Execution "${summary}"`);
  expect(run.summary!.targets.xray!.container).toBeUndefined();
});
