import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import path from 'node:path';
import { allFileText, baseEnv, csRun, csRuns, exec, REPO, runPlaywright, testSandbox, withPush } from './harness';
import { TEST_BATCH_WAIT_ENV } from '../../src/playwright/test-knobs';

/**
 * CucumberStudio's bulk push (the project secret token set): results go by `import_test_results` matched by uid,
 * exact in the CI build's build; a test whose scenario name is not unique in the run goes by the per-result path.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/**
 * 1 passes, 2 fails at its second step, 3 is skipped, 4 is flaky (fails once, passes on retry), 7 and 8 have
 * datasets (every row gets the result), 11 and 12 share the name "Checkout works" (per-result path), 5 fails after
 * its steps (no step failed: the report says it with a hook). Only 2 and 4 are retried (the others' retries 0):
 * Playwright starts a new worker after every failed attempt (≈ 1 s of CPU each), and one test failing on its
 * retry too (2) guards that case; 5, 8 and 12 failing twice would guard nothing more.
 */
// The runs below order their failing tests last where they can: Playwright starts a new worker after a failed test
// only when a test (of the same project) comes after it.
const files = {
  'p.spec.ts': `const { test } = require('@playwright/test');
test('s1', { tag: '@cs-1' }, async () => { await test.step('a', () => {}); await test.step('b', () => {}); await test.step('c', () => {}); });
test.describe('retried', () => {
  test.describe.configure({ retries: 1 });
  test('s2', { tag: '@cs-2' }, async () => {
    await test.step('a', () => {});
    await test.step('b', () => { throw new Error('boom at step b'); });
  });
  test('s4', { tag: '@cs-4' }, ({}, info) => { if (info.retry === 0) throw new Error('first try'); });
});
test('s3', { tag: '@cs-3' }, () => { test.skip(); });
test('s5', { tag: '@cs-5' }, async () => { await test.step('a', () => {}); throw new Error('after the steps'); });
test('s7', { tag: '@cs-7' }, () => {});
test('s8', { tag: '@cs-8' }, () => { throw new Error('eight fails'); });
test('s11', { tag: '@cs-11' }, () => {});
test('s12', { tag: '@cs-12' }, () => { throw new Error('twelve fails'); });`,
};
/** What a run whose point is not the failures publishes: a pass with steps, a skip, a dataset's two rows. */
const light = {
  'l.spec.ts': `const { test } = require('@playwright/test');
test('s1', { tag: '@cs-1' }, async () => { await test.step('a', () => {}); await test.step('b', () => {}); await test.step('c', () => {}); });
test('s3', { tag: '@cs-3' }, () => { test.skip(); });
test('s7', { tag: '@cs-7' }, () => {});`,
};

const env = (name: string, extra: Record<string, string> = {}) =>
  withPush({
    ...Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('ZEPHYR_'))),
    CUCUMBERSTUDIO_TEST_RUN_NAME: name,
    PW_TMS_BUILD: 'ci push',
    ...extra,
  });

type Result = { status: string; description: string; statusAuthor: string; buildId: number | null; stepStatuses?: string[] };

/** scenario id -> per test (dataset rows in order): every result it holds. */
function resultsOf(name: string): Record<number, Result[][]> {
  const out: Record<number, Result[][]> = {};
  for (const s of csRun(sandbox, name).snapshots) (out[s.scenarioId] ??= []).push(s.results as Result[]);
  return out;
}

for (const failureText of ['drop', 'carry'] as const)
  it(`every outcome exact in the build by bulk push (pushFailureText ${failureText}), far fewer calls than results`, async () => {
    sandbox.configure('cucumberstudio', { pushFailureText: failureText });
    const name = `push ${failureText}`;
    const start = sandbox.log().length;
    // The 30 s batch window out of reach (a loaded machine took longer and pushed twice): the one push is the end's.
    const run = await runPlaywright({ files, env: env(name, { [TEST_BATCH_WAIT_ENV]: '600000' }) });
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 9, errors: [], verify: { ok: true } });
    const r = resultsOf(name);
    // Exactly one result per test, all in one build.
    for (const tests of Object.values(r)) for (const results of tests) expect(results.length).toBe(1);
    const one = (id: number, row = 0) => r[id][row][0];
    expect(new Set(Object.values(r).flatMap((t) => t.map((x) => x[0].buildId))).size).toBe(1);
    expect([1, 2, 3, 4, 5].map((id) => one(id).status)).toEqual(['passed', 'failed', 'skipped', 'passed', 'failed']);
    // Pushed (author import_test_results): what carries no failure text. Per result: the failed tests (status and
    // text in one post) and the two tests whose name is shared.
    expect([1, 3, 4, 7].map((id) => one(id).statusAuthor)).toEqual(Array(4).fill('import_test_results'));
    expect(r[7].map((t) => t[0].statusAuthor)).toEqual(Array(2).fill('import_test_results'));
    expect([2, 5, 8].map((id) => one(id).statusAuthor)).toEqual(Array(3).fill('playwright-tms-reporter'));
    expect([11, 12].map((id) => [one(id).statusAuthor, one(id).status])).toEqual([
      ['playwright-tms-reporter', 'passed'],
      ['playwright-tms-reporter', 'failed'],
    ]);
    expect(one(12).description).toContain('twelve fails');
    // Step statuses as the per-result path sends them (3 steps each).
    expect(one(1).stepStatuses).toEqual(['passed', 'passed', 'passed']);
    expect(one(2).stepStatuses).toEqual(['passed', 'failed', 'skipped']);
    // Failure texts: in the failed tests' own posts, whatever the push would carry.
    expect(one(2).description).toContain('boom at step b');
    expect(one(5).description).toContain('after the steps');
    expect(r[8].map((t) => t[0].description)).toEqual([expect.stringContaining('eight fails'), expect.stringContaining('eight fails')]);
    expect(r[7].map((t) => t[0].status)).toEqual(['passed', 'passed']);
    expect(r[8].map((t) => t[0].status)).toEqual(['failed', 'failed']);
    // The call count: pushes, not one post per result.
    const log = sandbox.log().slice(start);
    const pushes = log.filter((e) => e.target.includes('/import_test_results/')).length;
    const posts = log.filter((e) => e.method === 'POST' && e.target.endsWith('/test_results')).length;
    // A push at 500 results or after the window, and the end's: this short run is one push.
    expect(pushes).toBe(1);
    expect(posts).toBe(6); // 11 and 12, and the failed 2, 5 and 8's two rows
    expect(log.filter((e) => e.method === 'PATCH' && e.target.includes('/test_results/'))).toEqual([]);
    // The token never shows: not in the output, not in the files the run wrote.
    const token = sandbox.env().CUCUMBERSTUDIO_SECRET_TOKEN!;
    expect(run.output).not.toContain(token);
    expect(allFileText(run.dir)).not.toContain(token);
  });

it('a wrong token: one clear line, results still exact by the per-result path; a non-numeric one is refused by name', async () => {
  const name = 'push wrong token';
  const start = sandbox.log().length;
  // s7 ends once s1 went by the per-result path: its result is a later batch, which must not ask the token again.
  const waits = {
    'l.spec.ts': light['l.spec.ts'].replace(
      "test('s7', { tag: '@cs-7' }, () => {});",
      `test('s7', { tag: '@cs-7' }, async () => {
  const posted = async () => {
    const log = (await (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/log')).json()).slice(${start});
    return log.some((e) => e.method === 'POST' && e.target.endsWith('/test_results'));
  };
  while (!(await posted())) await new Promise((r) => setTimeout(r, 100));
});`,
    ),
  };
  const run = await runPlaywright({
    files: waits,
    env: env(name, { CUCUMBERSTUDIO_SECRET_TOKEN: '12345', SANDBOX_ORIGIN: sandbox.origin }),
  });
  const tokenCalls = sandbox
    .log()
    .slice(start)
    .filter((e) => /^\/(publication|import_test_results)\//.test(e.target));
  expect(tokenCalls.map((e) => `${e.method} ${e.target.split('/').slice(0, 3).join('/')} ${e.status}`)).toEqual([
    'GET /publication/12345 404',
  ]);
  expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, errors: [] });
  expect(run.output).toContain('refused the project secret token');
  expect(Object.keys(resultsOf(name))).toEqual(['1', '3', '7']);
  for (const tests of Object.values(resultsOf(name)))
    for (const results of tests) expect(results.map((x) => x.statusAuthor)).toEqual(['playwright-tms-reporter']);
  const bad = await runPlaywright({ files: light, env: env('push bad token', { CUCUMBERSTUDIO_SECRET_TOKEN: 'abc123' }) });
  expect(bad.output).toContain('cucumberstudio.secretToken');
  expect(bad.output).toContain('CUCUMBERSTUDIO_SECRET_TOKEN');
  expect(bad.output).not.toContain('abc123');
});

it('check reads the token read-only (the publication route); a dry run says "bulk push"', async () => {
  const start = sandbox.log().length;
  const check = (token: string) =>
    exec(
      process.execPath,
      [path.join(REPO, 'bin/playwright-tms-reporter.js'), 'check'],
      REPO,
      baseEnv(env('push check', { CUCUMBERSTUDIO_SECRET_TOKEN: token })),
      60_000,
    );
  const ok = await check(sandbox.env().CUCUMBERSTUDIO_SECRET_TOKEN!);
  expect(ok.exitCode, ok.output).toBe(0);
  expect(ok.output).toContain('project secret token accepted');
  const wrong = await check('999');
  expect(wrong.exitCode).not.toBe(0);
  expect(wrong.output).toContain('refused the project secret token');
  expect(wrong.output).not.toContain('/999/');
  const tokenCalls = sandbox
    .log()
    .slice(start)
    .filter((e) => /^\/(publication|import_test_results)\//.test(e.target));
  // Read-only: one read of the runs per check, nothing pushed.
  expect(tokenCalls.map((e) => `${e.method} ${e.target.split('/').slice(0, 2).join('/')}`)).toEqual(Array(2).fill('GET /publication'));
  const dry = await runPlaywright({ files: light, env: env('push dry', { PW_TMS_DRY_RUN: '1' }) });
  expect(dry.output).toContain('by bulk push');
  expect(csRuns(sandbox, 'push dry')).toEqual([]);
});

it('worst wins across two pushing processes of one CI build: the later pass does not hide the earlier failure', async () => {
  const name = 'push worst wins';
  const both = {
    'w.spec.ts': `const { test } = require('@playwright/test');
for (const id of [32, 31])
  test('s' + id, { tag: '@cs-' + id }, () => { if (process.env.FAIL === String(id)) throw new Error('fails in ' + process.env.SIDE); });`,
  };
  const a = await runPlaywright({ files: both, env: env(name, { PW_TMS_BUILD: 'ci worst', FAIL: '31', SIDE: 'A' }) });
  expect(a.summary!.targets.cucumberstudio).toMatchObject({ published: 2, errors: [], verify: { ok: true } });
  const b = await runPlaywright({ files: both, env: env(name, { PW_TMS_BUILD: 'ci worst', FAIL: '', SIDE: 'B' }) });
  expect(b.summary!.targets.cucumberstudio).toMatchObject({ published: 2, errors: [], verify: { ok: true } });
  const r = resultsOf(name);
  // 31: A's failure, B's pass, then A's failure again on top (the one correction); 32: one pass per process.
  expect(r[31][0].map((x) => x.status)).toEqual(['failed', 'passed', 'failed']);
  expect(r[31][0].at(-1)!.description).toContain('fails in A');
  expect(r[32][0].map((x) => x.status)).toEqual(['passed', 'passed']);
});

it('60 results, 2 failing: one push for the passed, one post per failed test with its text, no edit, one read of the build', async () => {
  const name = 'push sixty';
  sandbox.configure('cucumberstudio', { pushFailureText: 'drop' });
  const many = {
    'm.spec.ts': `const { test } = require('@playwright/test');
const ids = Array.from({ length: 60 }, (_, i) => 100 + i);
for (const id of [...ids.filter((id) => id % 50), 100, 150]) test('s' + id, { tag: '@cs-' + id }, () => { if (id % 50 === 0) throw new Error('fails ' + id); });`,
  };
  const start = sandbox.log().length;
  // Two failing tests, not more: each costs Playwright a new worker, and two already show one post per failed test.
  const run = await runPlaywright({ files: many, env: env(name, { [TEST_BATCH_WAIT_ENV]: '600000' }) });
  expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 60, errors: [], verify: { ok: true } });
  const r = resultsOf(name);
  for (let id = 100; id < 160; id++)
    expect(r[id][0].map((x) => `${x.statusAuthor} ${x.status}`)).toEqual([
      id % 50 === 0 ? 'playwright-tms-reporter failed' : 'import_test_results passed',
    ]);
  for (const id of [100, 150]) expect(r[id][0][0].description).toContain(`fails ${id}`);
  const log = sandbox.log().slice(start);
  const routes = (pred: (e: (typeof log)[number]) => boolean) => log.filter(pred).length;
  // By count, not timing: 58 results are far from 500 and the window out of reach, so the end's flush is the one push.
  expect(routes((e) => e.target.includes('/import_test_results/'))).toBe(1);
  // One call per failed test: its post carries status and text; nothing edited afterwards.
  expect(routes((e) => e.method === 'POST' && e.target.endsWith('/test_results'))).toBe(2);
  expect(routes((e) => e.method === 'PATCH' && e.target.includes('/test_results/'))).toBe(0);
  // One read of the uids (the run's tests were final before the push), one read of the build: the end's verify.
  expect(routes((e) => e.target.includes('/publication/'))).toBe(1);
  expect(routes((e) => e.method === 'GET' && e.target.includes('include=test-results'))).toBe(1);
});

it("a pushed test corrected to a failure during the run: its own post (with the text) is the build's latest, verify ok", async () => {
  // 41 passes and is pushed while the run goes on (a 200 ms batch window); the next test then maps 41 at run time
  // and fails: the key is corrected to failed, which goes by the per-result path.
  const name = 'push corrected';
  const run = await runPlaywright({
    files: {
      'c.spec.ts': `const { test } = require('@playwright/test');
test.describe.configure({ mode: 'serial' });
const results = async (id) => {
  const s = await (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/state')).json();
  return s.cucumberstudio.testRuns.filter((r) => r.name === ${JSON.stringify(name)}).flatMap((r) => r.snapshots).filter((x) => x.scenarioId === id).flatMap((x) => x.results);
};
test('passes first', { tag: '@cs-41' }, () => {});
test('maps 41 at run time after its push, and fails', async () => {
  test.setTimeout(90_000);
  while ((await results(41)).length === 0) await new Promise((r) => setTimeout(r, 200));
  test.info().annotations.push({ type: 'cucumberstudio', description: '41' });
  throw new Error('late failure');
});`,
    },
    env: env(name, { SANDBOX_ORIGIN: sandbox.origin, [TEST_BATCH_WAIT_ENV]: '200' }),
  });
  expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 1, unsent: 0, errors: [], verify: { ok: true } });
  // What the build holds: the pushed pass, then the correction posted on top (an edit could not change its steps).
  const [results] = resultsOf(name)[41];
  expect(results.map((x) => `${x.statusAuthor} ${x.status}`)).toEqual(['import_test_results passed', 'playwright-tms-reporter failed']);
  expect(results[1].description).toContain('late failure');
  expect(new Set(results.map((x) => x.buildId)).size).toBe(1);
});

it("a failed test's files go to its own posted result; a passed test's to its pushed one", async () => {
  const name = 'push attachments';
  const run = await runPlaywright({
    files: {
      'a.spec.ts': `const { test } = require('@playwright/test');
test('passes with a note', { tag: '@cs-43' }, async ({}, info) => {
  await info.attach('fine.txt', { body: 'all good', contentType: 'text/plain' });
});
test('fails with a note', { tag: '@cs-42' }, async ({}, info) => {
  await info.attach('note.txt', { body: 'what went wrong', contentType: 'text/plain' });
  throw new Error('broke');
});`,
    },
    // Every test's files (the default uploads only failed and flaky tests'): the pushed result gets one too.
    env: env(name, { PW_TMS_ATTACHMENTS: 'all' }),
  });
  expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 2, unsent: 0, errors: [], verify: { ok: true } });
  type WithFiles = Result & { attachments: Array<{ fileName: string }> };
  const r = resultsOf(name) as unknown as Record<number, WithFiles[][]>;
  expect(r[42][0].map((x) => `${x.statusAuthor} ${x.status}`)).toEqual(['playwright-tms-reporter failed']);
  expect(r[42][0][0].attachments.map((a) => a.fileName)).toContain('note.txt');
  expect(r[43][0].map((x) => `${x.statusAuthor} ${x.status}`)).toEqual(['import_test_results passed']);
  expect(r[43][0][0].attachments.map((a) => a.fileName)).toEqual(['fine.txt']);
});

it('split mode: each project pushed into its own environment of the CI build, statuses apart, one push per environment', async () => {
  const name = 'push split';
  const start = sandbox.log().length;
  const run = await runPlaywright({
    files: {
      's.spec.ts': `const { test } = require('@playwright/test');
const failsIn = { 81: 'beta', 82: 'alpha' };
for (const id of [83, 81, 82])
  test('s' + id, { tag: '@cs-' + id }, () => {
    if (failsIn[id] === test.info().project.name) throw new Error('fails in ' + test.info().project.name);
  });`,
    },
    projects: ['alpha', 'beta'],
    env: env(name, { PW_TMS_PROJECTS: 'split' }),
  });
  expect(run.summary!.targets.cucumberstudio, run.output).toMatchObject({ published: 6, unsent: 0, errors: [], verify: { ok: true } });
  type Env = { name: string; builds: Array<{ id: number; name: string }> };
  const view = csRun(sandbox, name);
  const environments = (view as unknown as { environments: Env[] }).environments;
  // Environment -> scenario -> who wrote its one result in the environment's build "ci push", and the status.
  const held: Record<string, Record<number, string[]>> = {};
  for (const e of environments) {
    const builds = e.builds.filter((b) => b.name === 'ci push');
    if (!builds.length) continue;
    expect(builds).toHaveLength(1);
    for (const s of view.snapshots) {
      const mine = (s.results as Result[]).filter((r) => r.buildId === builds[0].id);
      if (mine.length) (held[e.name] ??= {})[s.scenarioId] = mine.map((r) => `${r.statusAuthor} ${r.status}`);
    }
  }
  const pushed = 'import_test_results passed';
  const posted = 'playwright-tms-reporter failed';
  expect(held).toEqual({
    alpha: { 81: [pushed], 82: [posted], 83: [pushed] },
    beta: { 81: [posted], 82: [pushed], 83: [pushed] },
  });
  // One push per environment (each names its environment), not one per result.
  const pushes = sandbox
    .log()
    .slice(start)
    .filter((e) => e.target.includes('/import_test_results/'))
    .map((e) => new URL(e.target, 'http://x').searchParams.get('execution_environment'))
    .sort();
  expect(pushes).toEqual(['alpha', 'beta']);
});
