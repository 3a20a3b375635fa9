import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, testSandbox } from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

it('dry run honours statusMap (resolved offline) and sends nothing', async () => {
  const before = sandbox.stats();
  const run = await runPlaywright({
    files: {
      'dry.spec.ts': `import { test } from '@playwright/test';
test('ok', { tag: ['@PROJ-3', '@cs-3'] }, () => {});
test('bad', { tag: ['@PROJ-4', '@cs-4'] }, () => { throw new Error('x'); });
test('skipped', { tag: '@PROJ-5' }, () => { test.skip(); });`,
    },
    env: { ...sandbox.env(), PW_TMS_DRY_RUN: '1' },
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
  expect(run.summary!.targets.zephyr).toMatchObject({ dryRun: true, countsByStatus: { PASS: 1, BLOCKED: 1, UNEXECUTED: 1 }, calls: 0 });
  const after = sandbox.stats();
  expect(after.zephyr.requests).toBe(before.zephyr.requests);
  expect(after.cucumberstudio.requests).toBe(before.cucumberstudio.requests);
});
