/**
 * A scenario with datasets has a test per dataset, and a key's result goes to each. When one of those posts
 * fails, the others must settle before the key is sent again: one still waiting (a 429) would post beside
 * the next send and leave its test with two results.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, runPlaywright, testSandbox } from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

it('one dataset test refused, the other waiting out a 429: each test ends with one result', async () => {
  const name = 'datasets one refused one waiting';
  // Whichever post arrives first is refused (a 422: not retried), the other is told to wait 6 s, past the end of the run.
  sandbox.setFaults('cucumberstudio', {
    overrides: [
      { method: 'POST', pathIncludes: '/test_results', status: 422, body: '{"errors":[{"status":"422","title":"invalid"}]}', times: 1 },
      {
        method: 'POST',
        pathIncludes: '/test_results',
        status: 429,
        headers: { 'Retry-After': '6' },
        body: '{"errors":[{"status":"429"}]}',
        times: 1,
      },
    ],
  });
  let run;
  try {
    run = await runPlaywright({
      // The key goes out while the run goes on (the stream); the run ends once both posts are answered, and
      // its end sends the key again for the test refused.
      files: {
        'd.spec.ts': `const { test } = require('@playwright/test');
test('s7 datasets', { tag: '@cs-7' }, () => {});
test('unmapped, ends once both posts are answered', async () => {
  const answered = async () => {
    const log = await (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/log')).json();
    return log.some((e) => e.method === 'POST' && e.target.endsWith('/test_results') && e.status === 429);
  };
  while (!(await answered())) await new Promise((r) => setTimeout(r, 100));
});`,
      },
      env: {
        ...sandbox.env(),
        SANDBOX_ORIGIN: sandbox.origin,
        CUCUMBERSTUDIO_TEST_RUN_NAME: name,
        ZEPHYR_ACCESS_KEY: undefined,
        ZEPHYR_SECRET_KEY: undefined,
      },
    });
  } finally {
    sandbox.setFaults('cucumberstudio', { overrides: [] });
  }
  const snapshots = csRun(sandbox, name).snapshots.filter((s) => s.scenarioId === 7);
  expect(snapshots).toHaveLength(2);
  // The refused test got its result when the end sent the key again; the waiting one kept its single post.
  expect(
    snapshots.map((s) => s.results.map((r) => r.status)),
    run.output.slice(-1500),
  ).toEqual([['passed'], ['passed']]);
  expect(run.summary?.targets.cucumberstudio).toMatchObject({ unsent: 0 });
});
