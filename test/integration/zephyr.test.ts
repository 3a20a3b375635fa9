import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import {
  allFileText,
  csLastStatuses,
  csRun,
  MODES,
  outboxFiles,
  runPlaywright,
  runReplay,
  testSandbox,
  zephyrCycles,
  zephyrStatuses,
  type Mode,
  type RunResult,
} from './harness';
import { runInstances, type Instances } from './shared-run';
import { TEST_BACKOFF_ENV, TEST_UNREACHABLE_ENV } from '../../src/playwright/test-knobs';

/**
 * Runs against a service taken down (connections reset) keep their results in the outbox: they give it up after
 * its 3 tries with the test knob's 20 ms between them, not UNREACHABLE's 1 s and 3 s (that bound is
 * unreachable.test.ts's). Retries of answered failures alike: 20 ms apart, not the lane's backoff.
 */
const QUICK_GIVE_UP = { [TEST_UNREACHABLE_ENV]: '20', [TEST_BACKOFF_ENV]: '20' };

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

function secretsOf(env: Record<string, string>): string[] {
  return [env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY, env.CUCUMBERSTUDIO_ACCESS_TOKEN].filter(Boolean).map((s) => s.trim());
}

// The status table published live and merged: publishing.test.ts (one run for both services).

describe.each(['live'] as const)('credentials in a test error (%s)', (mode) => {
  it("a test that prints the run's own credentials (in its title, error and a text attachment): they reach neither the services nor the outbox", async () => {
    const name = `printed secrets ${mode}`;
    const e = sandbox.env();
    // As CI secrets often come: with a trailing newline or space. The reporter uses them trimmed, and so does the app under test.
    const env = {
      ...e,
      ZEPHYR_SECRET_KEY: `${e.ZEPHYR_SECRET_KEY}\n`,
      ZEPHYR_ACCESS_KEY: `${e.ZEPHYR_ACCESS_KEY} `,
      CUCUMBERSTUDIO_ACCESS_TOKEN: `${e.CUCUMBERSTUDIO_ACCESS_TOKEN}\r\n`,
      ZEPHYR_CYCLE_NAME: name,
      CUCUMBERSTUDIO_TEST_RUN_NAME: name,
    };
    // The service stays down for the run, so that the journal is kept and can be read (3 s: no need to wait out its retries).
    sandbox.setFaults('zephyr', { down: true });
    let run;
    try {
      run = await runPlaywright({
        files: {
          's.spec.ts': `const { test } = require('@playwright/test');
const env = (k) => process.env[k].trim();
test('prints its env ' + env('ZEPHYR_SECRET_KEY'), { tag: ['@PROJ-61', '@cs-61'] }, async () => {
  await test.info().attach('env-log', { body: 'token ' + env('CUCUMBERSTUDIO_ACCESS_TOKEN'), contentType: 'text/plain' });
  throw new Error('env: ' + env('ZEPHYR_SECRET_KEY') + ' ' + env('ZEPHYR_ACCESS_KEY') + ' ' + env('CUCUMBERSTUDIO_ACCESS_TOKEN'));
});`,
        },
        env: { ...env, PW_TMS_PUBLISH_TIMEOUT: '3', ...QUICK_GIVE_UP },
        mode,
      });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    const journaled = allFileText(run.outboxDir);
    expect(journaled).toContain('token [redacted]'); // the attachment's body, saved beside the journal
    expect(journaled).toContain('prints its env [redacted]');
    for (const s of secretsOf(env)) expect(journaled).not.toContain(s);
    expect((await runReplay(run.outboxDir, env)).exitCode).toBe(0);
    const comment = zephyrCycles(sandbox).find((c) => c.name === name)!.executions[0].comment;
    expect(comment).toContain('env: [redacted] [redacted] [redacted]');
    const held = JSON.stringify(sandbox.state());
    for (const s of secretsOf(env)) expect(held).not.toContain(s);
    // Playwright's error-context.md quotes the error: the copy that goes up does not.
    const zephyr = sandbox.modules.find((m) => m.name === 'zephyr') as unknown as { attachmentBytes(id: string): Buffer };
    const execution = zephyrCycles(sandbox).find((c) => c.name === name)!.executions[0] as unknown as { attachments: { id: string }[] };
    expect(execution.attachments.length).toBeGreaterThan(0);
    // CucumberStudio was up: its copy went during the run, from Playwright's own file.
    const cs = sandbox.modules.find((m) => m.name === 'cucumberstudio') as unknown as { attachmentBytes(id: number): Buffer };
    const result = csRun(sandbox, name).snapshots[0].results[0] as unknown as { attachments: { id: number }[] };
    expect(result.attachments.length).toBeGreaterThan(0);
    const texts = [
      ...execution.attachments.map((a) => zephyr.attachmentBytes(a.id).toString('utf8')),
      ...result.attachments.map((a) => cs.attachmentBytes(a.id).toString('utf8')),
    ];
    for (const text of texts) {
      expect(text).toContain('[redacted]');
      for (const s of secretsOf(env)) expect(text).not.toContain(s);
    }
  });
});

// Both cases of a reused cycle in one pair of runs (their keys are disjoint): the first run publishes every key,
// the second publishes them again into the same cycle, each case asserting its keys (two runs instead of four).
describe('a reused cycle (live)', () => {
  const name = 'reused cycle';
  /** The first run: PROJ-91/92 fail with a comment, PROJ-93..95 pass (93 with 3 steps). The second: the other way round. */
  const spec = (second: boolean) => ({
    'r.spec.ts': `const { test, expect } = require('@playwright/test');
test('a', { tag: '@PROJ-91' }, () => { ${second ? '' : "throw new Error('broken yesterday');"} });
test('b', { tag: '@PROJ-92' }, () => { ${second ? '' : "throw new Error('also broken');"} });
test('c', { tag: '@PROJ-93' }, async () => {
  await test.step('one', async () => {});
  await test.step('two', async () => { expect(${second ? "'declined'" : "'ok'"}).toBe('ok'); });
  await test.step('three', async () => {});
});
test('d', { tag: '@PROJ-94' }, () => { test.skip(${second}, 'not on this platform'); });
test('e', { tag: '@PROJ-95' }, () => { if (${second}) throw new Error('broken now'); });`,
  });
  type Execution = { statusId: number; comment?: string; stepResults: { statusId: number }[] };
  const execs = () =>
    Object.fromEntries(
      zephyrCycles(sandbox)
        .find((c) => c.name === name)!
        .executions.map((e) => [e.issueKey, e as unknown as Execution]),
    );
  const steps = (key: string) => execs()[key].stepResults.map((r) => r.statusId);
  let first: { statuses: Record<string, number>; comment91: string };
  let second: RunResult;
  beforeAll(async () => {
    await runPlaywright({ files: spec(false), env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name } });
    first = { statuses: zephyrStatuses(sandbox, name), comment91: execs()['PROJ-91'].comment ?? '' };
    // detailed: failed tests get their steps one by one; a passed test's steps are PASS as with the default.
    second = await runPlaywright({
      files: spec(true),
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, ZEPHYR_STEP_RESULTS: 'detailed' },
    });
  }, 300_000);

  it('both runs publish every key, the second into the same cycle: one execution per key', () => {
    expect(first.statuses).toEqual({ 'PROJ-91': 2, 'PROJ-92': 2, 'PROJ-93': 1, 'PROJ-94': 1, 'PROJ-95': 1 });
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-91': 1, 'PROJ-92': 1, 'PROJ-93': 2, 'PROJ-94': -1, 'PROJ-95': 2 });
    expect(first.comment91).toContain('broken yesterday');
    expect(second.summary!.targets.zephyr).toMatchObject({ published: 5, errors: [], container: { reused: true } });
    expect(second.summary!.targets.zephyr.verify).toMatchObject({ ok: true });
  });

  it('a key that passes now loses the failure comment an earlier run left', () => {
    expect(zephyrStatuses(sandbox, name)).toMatchObject({ 'PROJ-91': 1, 'PROJ-92': 1 });
    expect(execs()['PROJ-91'].comment ?? '').toBe('');
    // Its own call (the comment cleared) still gives its steps PASS, as the bulk call gives PROJ-92's.
    expect(steps('PROJ-91')).toEqual([1, 1, 1]);
    expect(steps('PROJ-92')).toEqual([1, 1, 1]);
  });

  it('a key failing now keeps no PASS step of the earlier run; a key skipped now does not keep the earlier run’s PASS', () => {
    // Skipped: a run is a build of its own, so the earlier run's PASS is another build's: UNEXECUTED replaces it.
    expect(zephyrStatuses(sandbox, name)).toMatchObject({ 'PROJ-93': 2, 'PROJ-94': -1, 'PROJ-95': 2 });
    // detailed: the steps it ran, and the one it never reached UNEXECUTED (it said PASS from the earlier run).
    expect(steps('PROJ-93')).toEqual([1, 2, -1]);
    expect(steps('PROJ-94')).toEqual([-1, -1, -1]);
    // No steps of its own: none of them says PASS any more.
    expect(steps('PROJ-95')).toEqual([-1, -1, -1]);
  });
});

describe('two instances of the reporter in one config (live)', () => {
  it('each publishes to its own cycle, and their lines say which instance speaks', async () => {
    const env = { ...sandbox.env(), CUCUMBERSTUDIO_UID: undefined };
    const run = await runPlaywright({
      files: { 'two.spec.ts': `const { test } = require('@playwright/test');\ntest('passes', { tag: '@PROJ-71' }, () => {});` },
      env,
      options: { zephyr: { cycleName: 'instance one' } },
      secondReporter: { zephyr: { cycleName: 'instance two' }, outboxDir: 'outbox-2', summaryFile: 'summary-2.json' },
    });
    expect(zephyrStatuses(sandbox, 'instance one')).toEqual({ 'PROJ-71': 1 });
    expect(zephyrStatuses(sandbox, 'instance two')).toEqual({ 'PROJ-71': 1 });
    expect(run.output).toMatch(/\[tms-reporter 1\] Zephyr Squad: cycle "instance one"/);
    expect(run.output).toMatch(/\[tms-reporter 2\] Zephyr Squad: cycle "instance two"/);
    expect(run.output).not.toMatch(/\[tms-reporter\] /);
  });
});

describe('replay of a run with a statusMap in its config (live)', () => {
  it('publishes as the run would have: the map is in the journal (replay sees only the env)', async () => {
    const name = 'replay keeps the status map';
    const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name };
    for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { down: true });
    let run;
    try {
      run = await runPlaywright({
        files: {
          'm.spec.ts': `const { test } = require('@playwright/test');
test('skips', { tag: ['@PROJ-81', '@cs-81'] }, () => { test.skip(); });
test('passes', { tag: ['@PROJ-82', '@cs-82'] }, () => {});`,
        },
        env: { ...env, PW_TMS_PUBLISH_TIMEOUT: '3', ...QUICK_GIVE_UP },
        options: { zephyr: { statusMap: { skipped: 'WIP' } }, cucumberstudio: { statusMap: { skipped: 'wip' } } },
      });
    } finally {
      for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { down: false });
    }
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    const replayed = await runReplay(run.outboxDir, env);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-81': 3, 'PROJ-82': 1 });
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 81: ['wip'], 82: ['passed'] });
  });
});

// Live and merged in one Playwright run: its live instance publishes "max failures live", and merge-reports the same
// run's blob into "max failures merge" (a run fewer).
describe('a run stopped by --max-failures', () => {
  const files = {
    'x.spec.ts': `const { test } = require('@playwright/test');
test('a1', { tag: '@PROJ-203' }, () => {});
test('a2', { tag: '@PROJ-204' }, () => { throw new Error('stop here'); });
test('a3', { tag: '@PROJ-203' }, () => {});
test('a4', { tag: '@PROJ-205' }, () => {});`,
  };
  let shared: Instances<'live'>;
  beforeAll(async () => {
    shared = await runInstances(
      { files, workers: 1, args: ['-x'], env: sandbox.env() },
      { live: { zephyr: { cycleName: 'max failures live' } } },
      { zephyr: { cycleName: 'max failures merge' } },
    );
  }, 300_000);
  /** What each mode printed: the live instance in `playwright test`, the merged one in merge-reports. */
  const printed = (mode: Mode) => {
    const [live, merged] = shared.merged!.output.split('\n--- merge-reports ---\n');
    return mode === 'live' ? live : merged;
  };

  it.each(MODES)('a key also mapped by a test that never started is published from the tests that ran, and named (%s)', (mode) => {
    const name = `max failures ${mode}`;
    const summary = mode === 'live' ? shared.live.summary : shared.merged!.summary!;
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-203': 1, 'PROJ-204': 2, 'PROJ-205': -1 });
    expect(summary.targets.zephyr).toMatchObject({ notRun: 2, partlyRun: ['PROJ-203'] });
    expect(printed(mode)).toContain('2 tests not run; 1 key published from the tests that ran (others mapped to it did not run): PROJ-203');
  });
});

describe('a reused cycle replayed (live)', () => {
  it("an earlier run's file of the same name is not taken for this run's: the replay uploads this run's", async () => {
    // Run A uploads note.txt; run B (same cycle, Zephyr down) keeps its result; the replay looks at the
    // execution's files first (an earlier process may have uploaded them): run A's note.txt is not run B's.
    const name = 'reused files';
    const zephyrOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    const env = { ...zephyrOnly, ZEPHYR_CYCLE_NAME: name };
    const spec = (run: string) => ({
      'f.spec.ts': `const { test } = require('@playwright/test');
test('f', { tag: '@PROJ-96' }, async ({}, testInfo) => {
  await testInfo.attach('note', { body: 'written by run ${run}', contentType: 'text/plain' });
  throw new Error('broken');
});`,
    });
    const notes = () =>
      (
        zephyrCycles(sandbox)
          .find((c) => c.name === name)!
          .executions.find((e) => e.issueKey === 'PROJ-96') as unknown as { attachments: Array<{ fileName: string; sha256: string }> }
      ).attachments
        .filter((a) => a.fileName === 'note.txt')
        .map((a) => a.sha256);
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    await runPlaywright({ files: spec('A'), env });
    expect(notes()).toEqual([sha('written by run A')]);
    sandbox.setFaults('zephyr', { down: true });
    let b;
    try {
      b = await runPlaywright({ files: spec('B'), env: { ...env, PW_TMS_PUBLISH_TIMEOUT: '3', ...QUICK_GIVE_UP } });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    expect(outboxFiles(b.outboxDir)).toHaveLength(1);
    // A copy of the outbox (a CI artifact), to be replayed once more after the first replay.
    const copy = `${b.outboxDir}-copy`;
    fs.cpSync(b.outboxDir, copy, { recursive: true });
    const replay = await runReplay(b.outboxDir, env);
    expect(replay.exitCode, replay.output).toBe(0);
    expect(notes()).toEqual([sha('written by run A'), sha('written by run B')]);
    // The copy still lists the file as not sent: the look finds this run's own (its mark) and uploads nothing.
    const again = await runReplay(copy, env);
    expect(again.exitCode, again.output).toBe(0);
    expect(notes()).toEqual([sha('written by run A'), sha('written by run B')]);
  });
});
