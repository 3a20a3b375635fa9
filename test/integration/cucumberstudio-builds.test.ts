import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, runPlaywright, runReplay, testSandbox } from './harness';

/**
 * CucumberStudio builds: every result goes into the CI build's build (PW_TMS_BUILD here) in the run's `Default`
 * environment, and worst wins across every process of one CI build (sequential, concurrent, replayed).
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close(); // the harness also checks that no result went in with no build
});

const NAME = 'cs builds';
/**
 * Scenarios 61–63; a test fails when its scenario id is in FAIL (the process's env). The failing tests run last:
 * Playwright starts a new worker (≈ 1 s of CPU) after a failed test only when a test comes after it.
 */
const files = {
  'b.spec.ts': `const { test } = require('@playwright/test');
const fails = (id) => (process.env.FAIL ?? '').split(',').includes(String(id));
for (const id of [61, 62, 63].sort((a, b) => Number(fails(a)) - Number(fails(b))))
  test('s' + id, { tag: '@cs-' + id }, () => {
    if (fails(id)) throw new Error('fails in process ' + process.env.SIDE);
  });`,
};
const csEnv = () => ({
  ...Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('ZEPHYR_'))),
  CUCUMBERSTUDIO_TEST_RUN_NAME: NAME,
});
const publish = (build: string, side: string, fail: string, extra: Record<string, string> = {}) =>
  runPlaywright({ files, env: { ...csEnv(), PW_TMS_BUILD: build, SIDE: side, FAIL: fail, ...extra } });

interface BuildView {
  id: number;
  name: string;
  running: boolean;
  resultIds: number[];
}

/** The builds of the run's `Default` environment named `name`, lowest id first. */
function buildsNamed(name: string): BuildView[] {
  const run = csRun(sandbox, NAME) as unknown as { environments: Array<{ name: string; builds: BuildView[] }> };
  expect(run.environments.map((e) => e.name)).toEqual(['Default']);
  return run.environments[0].builds.filter((b) => b.name === name).sort((a, b) => a.id - b.id);
}

/** scenario id -> [status, description] of the latest result of its test in build `buildId`. */
function latestIn(buildId: number): Record<number, [string, string]> {
  const out: Record<number, [string, string]> = {};
  for (const s of csRun(sandbox, NAME).snapshots) {
    const mine = s.results.filter((r) => r.buildId === buildId);
    if (mine.length) out[s.scenarioId] = [mine.at(-1)!.status, mine.at(-1)!.description ?? ''];
  }
  return out;
}

it('worst wins across the processes of one CI build (both orders, sequential and concurrent); a new build keeps the earlier one; a replay posts into its run build', async () => {
  // CI build 1, one process after the other: 61 fails then passes, 62 passes then fails, 63 fails then passes.
  const a = await publish('ci 1', 'A', '61,63');
  expect(a.summary!.targets.cucumberstudio).toMatchObject({ published: 3, errors: [] });
  const b = await publish('ci 1', 'B', '62');
  // The later process's read-back does not call the earlier one's failures a failure of its own.
  expect(b.summary!.targets.cucumberstudio).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  const [ci1, ...twins1] = buildsNamed('ci 1');
  expect(twins1).toEqual([]);
  expect(ci1.running).toBe(true); // never closed: other processes of the build may still post
  const first = latestIn(ci1.id);
  expect(Object.fromEntries(Object.entries(first).map(([k, v]) => [k, v[0]]))).toEqual({ 61: 'failed', 62: 'failed', 63: 'failed' });
  expect(first[61][1]).toContain('fails in process A'); // the worst's own text, not the later pass's
  expect(first[62][1]).toContain('fails in process B');

  // CI build 2, two processes at once: 61 fails in C only, 62 in D only, 63 passes in both.
  const [c, d] = await Promise.all([publish('ci 2', 'C', '61'), publish('ci 2', 'D', '62')]);
  for (const run of [c, d]) expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  const [ci2] = buildsNamed('ci 2');
  expect(ci2.id).not.toBe(ci1.id);
  const second = latestIn(ci2.id);
  expect(Object.fromEntries(Object.entries(second).map(([k, v]) => [k, v[0]]))).toEqual({ 61: 'failed', 62: 'failed', 63: 'passed' });
  // The new build's pass of 63 does not look at build 1's failure, which stays as history.
  expect(latestIn(ci1.id)).toEqual(first);

  // CI build 3 while CucumberStudio is down, then `replay` (with no build in its own env): into build "ci 3".
  sandbox.setFaults('cucumberstudio', { down: true });
  let e;
  try {
    e = await publish('ci 3', 'E', '63', { PW_TMS_PUBLISH_TIMEOUT: '3' });
  } finally {
    sandbox.setFaults('cucumberstudio', { down: false });
  }
  expect(e.summary!.targets.cucumberstudio).toMatchObject({ published: 0, unsent: 3 });
  const replay = await runReplay(e.outboxDir, csEnv());
  expect(replay.exitCode, replay.output).toBe(0);
  const [ci3, ...twins3] = buildsNamed('ci 3');
  expect(twins3).toEqual([]);
  const third = latestIn(ci3.id);
  expect(Object.fromEntries(Object.entries(third).map(([k, v]) => [k, v[0]]))).toEqual({ 61: 'passed', 62: 'passed', 63: 'failed' });
  expect(sandbox.stats().cucumberstudio.counters).toMatchObject({ resultsWithoutBuild: 0 });
});
