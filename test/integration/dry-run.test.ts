import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, tempDir, testSandbox, type RunResult } from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

it('dry run honours statusMap (resolved offline) and sends nothing', async () => {
  const before = sandbox.stats();
  const run = await runPlaywright({
    files: {
      'dry.spec.ts': `const { test } = require('@playwright/test');
test('ok', { tag: ['@PROJ-3', '@cs-3'] }, () => {});
test('skipped', { tag: '@PROJ-5' }, () => { test.skip(); });
// Last: Playwright replaces the worker after a failed test, and a test after it would cost a second worker.
test('bad', { tag: ['@PROJ-4', '@cs-4'] }, () => { throw new Error('x'); });`,
    },
    env: {
      ...sandbox.env(),
      PW_TMS_DRY_RUN: '1',
      ZEPHYR_CYCLE_NAME: 'Dry nightly',
      CUCUMBERSTUDIO_TEST_RUN_ID: '77',
      PW_TMS_BUILD: 'nightly 12',
    },
    options: {
      zephyr: { statusMap: { failed: 'BLOCKED', skipped: 'Partially Passed' } },
      cucumberstudio: { statusMap: { failed: 'retest' } },
    },
  });
  expect(run.output).toContain('dry run: Zephyr Squad PROJ-3 -> PASS');
  expect(run.output).toContain('dry run: Zephyr Squad PROJ-4 -> BLOCKED (with comment)');
  expect(run.output).toContain('dry run: CucumberStudio 4 -> retest');
  // A tenant status cannot be resolved without asking the tenant: the dry run says so in one line.
  expect(run.output).toMatch(/zephyr\.statusMap\.skipped: "Partially Passed" is not a built-in status/);
  expect(run.output).toContain('dry run: Zephyr Squad PROJ-5 -> UNEXECUTED');
  // The summary names where the results would go: a cycle by name, a run by the id configured.
  expect(run.output).toContain('Zephyr Squad: dry run for cycle "Dry nightly" — would publish 3');
  expect(run.output).toContain('CucumberStudio: dry run for test run (id 77) — would publish 2');
  expect(run.output).toContain('dry run: CucumberStudio would publish into build "nightly 12" of execution environment "Default"');
  expect(run.summary!.targets.zephyr).toMatchObject({ dryRun: true, countsByStatus: { PASS: 1, BLOCKED: 1, UNEXECUTED: 1 }, calls: 0 });
  const after = sandbox.stats();
  expect(after.zephyr.requests).toBe(before.zephyr.requests);
  expect(after.cucumberstudio.requests).toBe(before.cucumberstudio.requests);
});

it('`playwright test --list` publishes nothing and warns about nothing', async () => {
  const before = sandbox.stats();
  const run = await runPlaywright({
    files: { 'listed.spec.ts': `const { test } = require('@playwright/test');\ntest('listed', { tag: ['@PROJ-6', '@cs-6'] }, () => {});` },
    env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'listed only', CUCUMBERSTUDIO_TEST_RUN_NAME: 'listed only' },
    args: ['--list'],
  });
  expect(run.exitCode, run.output).toBe(0);
  expect(run.output).toContain('listed.spec.ts');
  expect(run.output).not.toContain('[tms-reporter]');
  const after = sandbox.stats();
  expect(after.zephyr.requests).toBe(before.zephyr.requests);
  expect(after.cucumberstudio.requests).toBe(before.cucumberstudio.requests);
});

it('a run whose global setup fails publishes nothing, says why, and writes a summary that says so', async () => {
  const before = sandbox.stats();
  const run = await runPlaywright({
    files: {
      'set.spec.ts': `const { test } = require('@playwright/test');\ntest('never runs', { tag: ['@PROJ-6', '@cs-6'] }, () => {});`,
      'tests/setup.cjs': `module.exports = async () => { throw new Error('the database is not up'); };`,
    },
    globalSetup: 'tests/setup.cjs',
    env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'setup failed', CUCUMBERSTUDIO_TEST_RUN_NAME: 'setup failed' },
  });
  expect(run.exitCode).not.toBe(0);
  expect(run.output).toContain('the database is not up');
  expect(run.output).toContain(
    '[tms-reporter] no test ran (Playwright ended the run "failed" before any test: its error is above); nothing published',
  );
  expect(run.output).not.toContain('this run has no tests');
  expect(run.summary).toMatchObject({
    version: 1,
    targets: {},
    note: expect.stringMatching(/^no test ran \(Playwright ended the run "failed"/),
  });
  const after = sandbox.stats();
  expect(after.zephyr.requests).toBe(before.zephyr.requests);
  expect(after.cucumberstudio.requests).toBe(before.cucumberstudio.requests);
});

/**
 * Three dry runs' cases in one: their keys are disjoint and each asserts on its own lines; the summary's counts are
 * the three files' together (PROJ-7, CS-712; PROJ-341, PROJ-342; PROJ-3 published, the typo's test unmapped).
 */
describe('one dry run of keys, titles and an unwritable step summary', () => {
  let run: RunResult;
  let step: string;
  beforeAll(async () => {
    const blocker = path.join(tempDir('step'), 'a-file');
    fs.writeFileSync(blocker, '');
    step = path.join(blocker, 'step.md'); // under a file: cannot be written
    run = await runPlaywright({
      files: {
        'keys.spec.ts': `const { test } = require('@playwright/test');
test('linked', { annotation: { type: 'zephyr', description: 'https://acme.atlassian.net/browse/PROJ-7' } }, () => {});
test('typo', { annotation: { type: 'zephyr', description: 'PROJ_8' } }, () => {});
test('jira project CS', { tag: '@CS-712' }, () => {});`,
        'titles.spec.ts': `const { test } = require('@playwright/test');
test('login (@PROJ-341)', () => {});
test('logout @PROJ-342, @cs-343.', () => {});`,
        'ok.spec.ts': `const { test } = require('@playwright/test');\ntest('ok', { tag: '@PROJ-3' }, () => {});`,
      },
      env: {
        ...sandbox.env(),
        PW_TMS_DRY_RUN: '1',
        ZEPHYR_CYCLE_NAME: 'Dry titles',
        CUCUMBERSTUDIO_TEST_RUN_ID: '77',
        GITHUB_STEP_SUMMARY: step,
      },
    });
  });

  it('an annotation that is not a key is named; a Jira issue link is read as its key; @CS-712 is a Jira key', () => {
    expect(run.output).toContain('dry run: Zephyr Squad PROJ-7 -> PASS');
    expect(run.output).toContain('dry run: Zephyr Squad CS-712 -> PASS');
    // The only CucumberStudio result is the titles' @cs-343: none of keys.spec.ts's.
    expect(run.output.match(/dry run: CucumberStudio \d+ ->/g)).toEqual(['dry run: CucumberStudio 343 ->']);
    expect(run.output).toContain('Zephyr Squad: the zephyr annotation "PROJ_8" of "keys.spec.ts › typo" is not a key; not mapped by it');
    // The typo's test is the one unmapped: titles.spec.ts's two map.
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 5, unmapped: 1 });
  });

  it('keys written in a title next to punctuation map (Playwright takes the tag up to the next space)', () => {
    expect(run.output).toContain('dry run: Zephyr Squad PROJ-341 -> PASS');
    expect(run.output).toContain('dry run: Zephyr Squad PROJ-342 -> PASS');
    expect(run.output).toContain('dry run: CucumberStudio 343 -> passed');
  });

  it('a GitHub step summary that cannot be written is named in its own line; the summary file is written', () => {
    expect(run.output).toContain(`could not write ${step}:`);
    expect(run.output).not.toMatch(/could not write .*summary\.json/);
    expect(run.summary!.targets.zephyr).toMatchObject({ dryRun: true });
  });
});
