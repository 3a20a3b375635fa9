import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, outboxFiles, runPlaywright, runReplay, testSandbox, withPush } from './harness';

/**
 * Faults on CucumberStudio's bulk push: a push answered 500 before or after it was applied is never repeated
 * blindly (the build is read first), and a push whose effect cannot be settled (the service gone) waits in the
 * outbox; `replay` reads the build before pushing: every result exact, exactly once.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/**
 * One failing test (22), not two: it shows the per-result path beside the push, and every failed test costs
 * Playwright a new worker (≈ 1 s of CPU) in each of the three runs.
 */
const files = {
  'f.spec.ts': `const { test } = require('@playwright/test');
for (const id of [21, 22, 23])
  test('s' + id, { tag: '@cs-' + id }, () => { if (id % 2 === 0) throw new Error('fails ' + id); });
test('s7', { tag: '@cs-7' }, () => {});
// Scenarios 11 and 12 share a name: the push cannot tell their tests apart, so they go by the per-result path.
test('s11 and s12', { tag: ['@cs-11', '@cs-12'] }, () => {});`,
};
const env = (name: string) =>
  withPush({
    ...Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('ZEPHYR_'))),
    CUCUMBERSTUDIO_TEST_RUN_NAME: name,
    PW_TMS_BUILD: 'ci faults',
  });

/** Every test's results as [author, status], scenario id -> per row; and the failing 22's failure text. */
function exact(name: string): void {
  const byScenario: Record<number, string[][]> = {};
  for (const s of csRun(sandbox, name).snapshots)
    (byScenario[s.scenarioId] ??= []).push(s.results.map((r) => `${r.statusAuthor} ${r.status}`));
  const pushed = (status: string) => [`import_test_results ${status}`];
  // The failed tests go by the per-result path (status and text in one post), the rest by the push.
  const posted = (status: string) => [`playwright-tms-reporter ${status}`];
  expect(byScenario).toEqual({
    21: [pushed('passed')],
    22: [posted('failed')],
    23: [pushed('passed')],
    7: [pushed('passed'), pushed('passed')],
    11: [posted('passed')],
    12: [posted('passed')],
  });
  for (const s of csRun(sandbox, name).snapshots.filter((x) => x.scenarioId === 22))
    expect(s.results[0].description).toContain(`fails ${s.scenarioId}`);
}

for (const when of ['before-applying', 'after-applying'] as const)
  it(`a push answered 500 ${when}: every result exact, none twice`, async () => {
    const name = `push fault ${when}`;
    sandbox.configure('cucumberstudio', { pushFault: { when, times: 1 } });
    try {
      const run = await runPlaywright({ files, env: env(name) });
      expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 6, unsent: 0, errors: [], verify: { ok: true } });
      exact(name);
    } finally {
      sandbox.configure('cucumberstudio', { pushFault: null });
    }
  });

it('a push applied, then the service gone: the results wait in the outbox; replay reads the build and pushes nothing twice', async () => {
  const name = 'push outage';
  // The push is applied and answered 502; every read of the build fails: the push's effect cannot be settled.
  sandbox.setFaults('cucumberstudio', {
    overrides: [
      { method: 'POST', pathIncludes: '/import_test_results/', status: 502, body: 'Bad Gateway', applied: true },
      { method: 'GET', pathIncludes: '?include=test-results', status: 503, body: 'Service Unavailable' },
    ],
  });
  let run;
  try {
    run = await runPlaywright({ files, env: { ...env(name), PW_TMS_PUBLISH_TIMEOUT: '20' } });
  } finally {
    sandbox.setFaults('cucumberstudio', { overrides: [] });
  }
  // The three pushed tests (21, 23, 7); the failed 22 and the unpushable 11 and 12 went by their own posts, which
  // the push's failure did not hold back.
  expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, unsent: 3 });
  expect(outboxFiles(run.outboxDir)).not.toEqual([]);
  const replay = await runReplay(run.outboxDir, env(name));
  expect(replay.exitCode, replay.output).toBe(0);
  exact(name);
  expect(outboxFiles(run.outboxDir)).toEqual([]);
  const again = await runReplay(run.outboxDir, env(name));
  expect(again.output).toContain('nothing to replay');
  exact(name);
});
