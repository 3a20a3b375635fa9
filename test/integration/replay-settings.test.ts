/**
 * The settings a replay publishes with: the run's, from its journal, where the run resolved them; those of
 * playwright.config (found as Playwright finds it, or named with --config) where it could not — a target held
 * back for a typo, or a status name the service refused. Each replay says which it used.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { baseEnv, exec, outboxFiles, REPO, runPlaywright, tempDir, testSandbox, zephyrCycles, type RunResult } from './harness';
import { TEST_BACKOFF_ENV, TEST_UNREACHABLE_ENV } from '../../src/playwright/test-knobs';

/**
 * Runs against a service taken down (connections reset) keep their results in the outbox: they give it up after
 * its 3 tries with the test knob's 20 ms between them, not UNREACHABLE's 1 s and 3 s (that bound is
 * unreachable.test.ts's). Retries of answered failures alike: 20 ms apart, not the lane's backoff.
 */
const QUICK_GIVE_UP = { [TEST_UNREACHABLE_ENV]: '20', [TEST_BACKOFF_ENV]: '20' };

const BIN = path.join(REPO, 'bin/playwright-tms-reporter.js');
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

/**
 * A flaky test (fails, then passes on its retry), a failing one and a passing one (3 Zephyr steps each). The failing
 * one is not retried: a second failure proves nothing more here, and Playwright starts a worker (≈ 1 s of CPU) after
 * each failed attempt — 2 workers a run instead of 4.
 */
const SUITE = {
  's.spec.ts': `const { test } = require('@playwright/test');
test('flaky', { tag: '@PROJ-1' }, () => { if (test.info().retry === 0) throw new Error('first try failed'); });
test('fine', { tag: '@PROJ-3' }, () => {});
test.describe(() => {
  test.describe.configure({ retries: 0 });
  test('broken', { tag: '@PROJ-2' }, () => { throw new Error('broken failed'); });
});`,
};

const zephyrEnv = () => Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => k.startsWith('ZEPHYR_')));

/** The run's config file rewritten with other reporter options: the config "fixed" (or changed) since the run. */
function rewriteOptions(run: RunResult, before: Record<string, unknown>, after: Record<string, unknown>): string {
  const file = path.join(run.dir, 'playwright.config.ts');
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toContain(JSON.stringify(before));
  fs.writeFileSync(file, text.replace(JSON.stringify(before), JSON.stringify(after)));
  return file;
}

function replayIn(cwd: string, args: string[], env: Record<string, string>) {
  return exec(process.execPath, [BIN, 'replay', ...args], cwd, baseEnv(env), 120_000);
}

/** issue key -> [status id, comment] in the one cycle of that name. */
function executions(name: string): Record<string, [number, string]> {
  const cycles = zephyrCycles(sandbox).filter((c) => c.name === name);
  expect(cycles).toHaveLength(1);
  return Object.fromEntries(cycles[0].executions.map((e) => [e.issueKey, [e.statusId, e.comment]]));
}

/** The step results of a key's execution (stepResults `passed`, the default, sets a passed test's to PASS: 1). */
function stepStatuses(name: string, key: string): number[] {
  const cycle = zephyrCycles(sandbox).find((c) => c.name === name)!;
  const e = cycle.executions.find((x) => x.issueKey === key) as unknown as { stepResults: Array<{ statusId: number }> };
  return e.stepResults.map((r) => r.statusId);
}

/**
 * Three cases from ONE Playwright run of three reporter instances (a run costs seconds of process start; all need the
 * service up): each has its own cycle and outbox, each rewrites its own options in the run's config.
 */
describe('replay settings: settings the run could not use (three reporter instances in one run)', () => {
  const HELD_BACK = 'replay settings held back';
  const REFUSED = 'replay settings refused status';
  // outboxDir first: each instance's options are one JSON text in the config, replaced whole by rewriteOptions.
  const typo = {
    outboxDir: 'outbox-typo',
    zephyr: { cycleName: HELD_BACK, statusMap: { flakey: 'WIP' }, failureComments: false, stepResults: 'off' },
  };
  // failed: 'FIAL' too: timedOut follows it, and the one typo must be said once, of the option set.
  const unknown = {
    outboxDir: 'outbox-unknown',
    zephyr: { cycleName: REFUSED, statusMap: { flaky: 'GREEN', failed: 'FIAL' }, failureComments: false },
  };
  const NO_PROJECT = 'replay settings no such project';
  const noProject = { outboxDir: 'outbox-project', zephyr: { cycleName: NO_PROJECT, projectId: 99999, failureComments: false } };
  let run: RunResult;
  beforeAll(async () => {
    // A TypeScript config, as most users have: the replay reads the config rewritten since the run.
    run = await runPlaywright({
      files: SUITE,
      env: zephyrEnv(),
      options: typo,
      secondReporter: unknown,
      moreReporters: [noProject],
      retries: 1,
      config: 'ts',
    });
  }, 120_000);

  it('a target held back for a typo in statusMap: the replay publishes with the fixed playwright.config, found in the working directory', async () => {
    const name = HELD_BACK;
    const env = zephyrEnv();
    const outboxDir = path.join(run.dir, typo.outboxDir);
    expect(run.output).toContain('zephyr.statusMap.flakey: unknown outcome');
    expect(outboxFiles(outboxDir)).toHaveLength(1);
    expect(zephyrCycles(sandbox).filter((c) => c.name === name)).toEqual([]);
    rewriteOptions(run, typo, { ...typo, zephyr: { ...typo.zephyr, statusMap: { flaky: 'WIP' } } });

    const replayed = await replayIn(run.dir, [outboxDir], env);
    expect(replayed.exitCode, replayed.output).toBe(0);
    // flaky -> WIP as configured (not the default PASS); no failure comment (failureComments: false); steps untouched (stepResults: 'off').
    expect(executions(name)).toEqual({ 'PROJ-1': [3, ''], 'PROJ-2': [2, ''], 'PROJ-3': [1, ''] });
    expect(stepStatuses(name, 'PROJ-3')).toEqual([-1, -1, -1]);
    expect(replayed.output).toContain(
      'Zephyr Squad: the run could not resolve its settings; replaying with those of playwright.config.ts and the environment',
    );
    expect(outboxFiles(outboxDir)).toEqual([]);
  });

  it('a status name the tenant does not have: nothing is sent; the replay takes the statusMap from the config named with --config', async () => {
    const name = REFUSED;
    const env = zephyrEnv();
    const outboxDir = path.join(run.dir, unknown.outboxDir);
    expect(run.output).toMatch(
      /zephyr\.statusMap\.flaky: Zephyr has no status "GREEN" .*nothing is sent to Zephyr, its results are kept for replay/,
    );
    expect(run.output).toMatch(/zephyr\.statusMap\.failed: Zephyr has no status "FIAL"/);
    expect(run.output).not.toContain('zephyr.statusMap.timedOut');
    expect(zephyrCycles(sandbox).filter((c) => c.name === name)).toEqual([]);
    expect(outboxFiles(outboxDir)).toHaveLength(1);
    const file = rewriteOptions(run, unknown, { ...unknown, zephyr: { ...unknown.zephyr, statusMap: { flaky: 'WIP' } } });

    // From elsewhere (no playwright.config there): the config is named.
    const replayed = await replayIn(REPO, [outboxDir, '--config', file], env);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).toMatch(
      /Zephyr Squad: replaying with the run's settings from its journal \(projectId, versionId, failureComments, commentLimit, stepResults\); statusMap from .*playwright\.config\.ts and the environment \(the service refused the run's\)/,
    );
    expect(executions(name)).toEqual({ 'PROJ-1': [3, ''], 'PROJ-2': [2, ''], 'PROJ-3': [1, ''] });
    // stepResults as configured there (the default, `passed`): what 'off' above left untouched is set here.
    expect(stepStatuses(name, 'PROJ-3')).toEqual([1, 1, 1]);
  });

  it('a project the service does not have: the replay takes the project and version from the fixed config, not the run', async () => {
    const outboxDir = path.join(run.dir, noProject.outboxDir);
    expect(run.output).toMatch(/Project 99999 does not exist.*ZEPHYR_PROJECT_ID \(zephyr\.projectId\) = 99999/);
    expect(outboxFiles(outboxDir)).toHaveLength(1);
    rewriteOptions(run, noProject, { outboxDir: noProject.outboxDir, zephyr: { cycleName: NO_PROJECT, failureComments: false } });

    const replayed = await replayIn(run.dir, [outboxDir], zephyrEnv());
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).toMatch(
      /Zephyr Squad: replaying with the run's settings from its journal \([^)]*\); projectId, versionId from playwright\.config\.ts and the environment \(the service refused the run's\)/,
    );
    expect(executions(NO_PROJECT)).toEqual({ 'PROJ-1': [1, ''], 'PROJ-2': [2, ''], 'PROJ-3': [1, ''] });
    expect(outboxFiles(outboxDir)).toEqual([]);
  });
});

/**
 * Two cases from ONE Playwright run with Zephyr down, of three reporter instances (its own cycle and outbox each):
 * the first case replays its instance's folder with its options rewritten since; the second replays without a
 * folder, every instance of the config (the first's outbox by then empty: nothing to replay there).
 */
describe('replay settings: runs that resolved their settings (three reporter instances in one run, Zephyr down)', () => {
  const JOURNAL = 'replay settings from the journal';
  const then = {
    outboxDir: 'outbox-journal',
    zephyr: { cycleName: JOURNAL, statusMap: { flaky: 'WIP' }, failureComments: false, stepResults: 'off' },
  };
  const names = ['replay settings instance a', 'replay settings instance b'];
  const [a, b] = names.map((cycleName, i) => ({
    outboxDir: `outbox-${i}`,
    zephyr: { cycleName, statusMap: { flaky: i ? 'BLOCKED' : 'WIP' }, failureComments: false },
  }));
  let run: RunResult;
  beforeAll(async () => {
    sandbox.setFaults('zephyr', { down: true });
    try {
      run = await runPlaywright({
        files: SUITE,
        env: { ...zephyrEnv(), PW_TMS_PUBLISH_TIMEOUT: '3', ...QUICK_GIVE_UP },
        options: then,
        moreReporters: [a, b],
        retries: 1,
        config: 'ts',
      });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
  }, 120_000);

  it("a run that resolved its settings: the replay publishes with the run's (its journal), not with a config changed since", async () => {
    const name = JOURNAL;
    const env = zephyrEnv();
    const outboxDir = path.join(run.dir, then.outboxDir);
    expect(outboxFiles(outboxDir), run.output).toHaveLength(1);
    const journal = fs.readFileSync(path.join(outboxDir, outboxFiles(outboxDir)[0]), 'utf8');
    expect(JSON.parse(journal.split('\n')[0]).targets.zephyr.settings).toMatchObject({
      statusMap: { flaky: 'WIP' },
      failureComments: false,
      stepResults: 'off',
    });
    rewriteOptions(run, then, { ...then, zephyr: { cycleName: JOURNAL, statusMap: { flaky: 'BLOCKED' }, failureComments: true } });

    const replayed = await replayIn(run.dir, [outboxDir], env);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(executions(name)).toEqual({ 'PROJ-1': [3, ''], 'PROJ-2': [2, ''], 'PROJ-3': [1, ''] });
    expect(stepStatuses(name, 'PROJ-3')).toEqual([-1, -1, -1]);
    expect(replayed.output).toMatch(
      /Zephyr Squad: replaying with the run's settings from its journal \(projectId, versionId, statusMap, failureComments, commentLimit, stepResults\); credentials and the rest from playwright\.config\.ts and the environment/,
    );
  });

  it('a config that lists the reporter twice: replay without a folder replays each outbox with its own options', async () => {
    for (const dir of ['outbox-0', 'outbox-1']) expect(outboxFiles(path.join(run.dir, dir)), run.output).toHaveLength(1);
    const replayed = await replayIn(run.dir, [], zephyrEnv());
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(executions(names[0])).toEqual({ 'PROJ-1': [3, ''], 'PROJ-2': [2, ''], 'PROJ-3': [1, ''] });
    expect(executions(names[1])).toEqual({ 'PROJ-1': [4, ''], 'PROJ-2': [2, ''], 'PROJ-3': [1, ''] });
    for (const dir of ['outbox-0', 'outbox-1']) expect(outboxFiles(path.join(run.dir, dir))).toEqual([]);
  });
});

describe('replay settings', () => {
  it('a config Playwright cannot read: one line naming it, nothing sent', async () => {
    const dir = tempDir('broken-config');
    fs.writeFileSync(path.join(dir, 'playwright.config.ts'), "export default { reporter: [['dot']], ;\n");
    const r = await replayIn(dir, [], zephyrEnv());
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(
      /^\[tms-reporter\] replay: .*playwright\.config\.ts could not be read by Playwright: .*; fix it, or name another with --config FILE$/m,
    );
    expect(r.output).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
