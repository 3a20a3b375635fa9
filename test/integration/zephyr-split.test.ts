import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, runReplay, testSandbox, zephyrCycles, type RunResult, type ZCycle, type ZExecution } from './harness';
import { runInstances, type Instances } from './shared-run';

/**
 * Zephyr split mode (`projects: 'split'`): one folder per Playwright project in the cycle, named as the project,
 * holding that project's own executions — in one process, as a job per project of one CI build, through blob →
 * merge-reports, and after an outage through `replay`. Only Zephyr is enabled: split mode needs every enabled
 * target to keep projects apart.
 *
 * Playwright starts are what this file's time goes to: the runs that need no run of their own (the dry run, the
 * local run, the CI build's rerun of both projects, the outage) are instances of the reporter in one process, each
 * with its own cycle, build, outbox and summary file; the outage's instance publishes to a sandbox of its own,
 * down for that whole run. That process also writes the blob report that merge-reports then publishes.
 */
let sandbox: RunningSandbox;
let downed: RunningSandbox;

const UNEXECUTED = -1;
const PASS = 1;
const FAIL = 2;

/**
 * PROJ-803 fails in alpha only (its FAIL must not reach beta's folder); PROJ-801 is skipped in beta only (alpha's
 * PASS must not reach beta's folder: a skip does not replace a PASS of the same build); PROJ-802 passes in both.
 * The one failure is alpha's last test: Playwright starts a new worker after a failed test only when tests remain,
 * and a skip starts none.
 */
const files = {
  's.spec.ts': `const { test } = require('@playwright/test');
for (const id of [801, 802, 803])
  test('z' + id, { tag: '@PROJ-' + id }, () => {
    const project = test.info().project.name;
    test.skip(id === 801 && project === 'beta', 'not in beta');
    if (id === 803 && project === 'alpha') throw new Error('fails in ' + project);
  });`,
};
const EXPECTED = {
  alpha: { 'PROJ-801': PASS, 'PROJ-802': PASS, 'PROJ-803': FAIL },
  beta: { 'PROJ-801': UNEXECUTED, 'PROJ-802': PASS, 'PROJ-803': PASS },
};
const zephyrOnly = (s: RunningSandbox) => Object.fromEntries(Object.entries(s.env()).filter(([k]) => k.startsWith('ZEPHYR_')));
const zEnv = (cycleName?: string) => ({
  ...zephyrOnly(sandbox),
  ...(cycleName ? { ZEPHYR_CYCLE_NAME: cycleName } : {}),
  PW_TMS_PROJECTS: 'split',
});
const publish = (cycleName: string, build: string | undefined, o: { args?: string[] } = {}) =>
  runPlaywright({
    files,
    projects: ['alpha', 'beta'],
    args: o.args,
    env: { ...zEnv(cycleName), ...(build ? { PW_TMS_BUILD: build } : {}) },
  });

type ZFolder = { name: string; executions: ZExecution[] };

/** Folder name -> key -> status; the cycle's root must hold nothing (every project here has a name). */
function byFolder(cycleName: string, cycles: ZCycle[] = zephyrCycles(sandbox)): Record<string, Record<string, number>> {
  const named = cycles.filter((c) => c.name === cycleName);
  expect(named).toHaveLength(1);
  const cycle = named[0] as (typeof named)[0] & { folders: ZFolder[] };
  expect(cycle.executions, 'executions in the cycle root').toEqual([]);
  const out: Record<string, Record<string, number>> = {};
  for (const folder of cycle.folders) {
    out[folder.name] = {};
    for (const e of folder.executions) {
      expect(out[folder.name], `a second execution of ${e.issueKey} in folder "${folder.name}"`).not.toHaveProperty(e.issueKey);
      out[folder.name][e.issueKey] = e.statusId;
    }
  }
  return out;
}

/** The scenarios of the one shared run: name -> the options of its reporter instance. */
const instances = () => ({
  one: { zephyr: { cycleName: 'zsplit one' } }, // a local run: no CI build
  dry: { zephyr: { cycleName: 'zsplit dry' }, dryRun: true },
  both: { zephyr: { cycleName: 'zsplit jobs' }, build: 'zci 2' }, // after the jobs of alpha and beta
  down: { zephyr: { cycleName: 'zsplit replay', baseUrl: downed.env().ZEPHYR_BASE_URL }, build: 'zci 4', publishTimeout: 3 },
});
let shared: Instances<keyof ReturnType<typeof instances>>;
let jobs: { alpha: RunResult; beta: RunResult; cycles: ZCycle[] };

beforeAll(async () => {
  sandbox = await testSandbox();
  downed = await testSandbox();
  // A job per project of CI build "zci 2"; the shared run below is that build's rerun of both.
  const alpha = await publish('zsplit jobs', 'zci 2', { args: ['--project=alpha'] });
  const beta = await publish('zsplit jobs', 'zci 2', { args: ['--project=beta'] });
  jobs = { alpha, beta, cycles: structuredClone(zephyrCycles(sandbox)) };
  downed.setFaults('zephyr', { down: true });
  try {
    // The same run's blob report, merged: merge-reports publishes it as CI build "zci 3".
    shared = await runInstances({ files, projects: ['alpha', 'beta'], env: zEnv() }, instances(), {
      zephyr: { cycleName: 'zsplit blob' },
      build: 'zci 3',
    });
  } finally {
    downed.setFaults('zephyr', { down: false });
  }
}, 300_000);
afterAll(async () => {
  await sandbox?.close();
  await downed?.close();
});

it('one process: a folder per project with its own statuses, a summary line per project; the dry run names the folders', () => {
  const dry = shared.dry;
  expect(dry.output).toContain('would publish into folder "alpha" of cycle "zsplit dry" (found by name, or created)');
  expect(dry.output).toContain('would publish into folder "beta" of cycle "zsplit dry" (found by name, or created)');
  expect(zephyrCycles(sandbox).filter((c) => c.name === 'zsplit dry')).toEqual([]);

  // A local run (no CI build): the read-back compares the cycle's counts, which include the folders'.
  const one = shared.one;
  const summary = one.summary.targets.zephyr!;
  expect(summary, one.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(summary.byPlace).toEqual({
    alpha: { published: 3, countsByStatus: { PASS: 2, FAIL: 1 } },
    beta: { published: 3, countsByStatus: { PASS: 2, UNEXECUTED: 1 } },
  });
  expect(byFolder('zsplit one')).toEqual(EXPECTED);
});

it('a job per project of one CI build, then both again: the same two folders, reused by name', () => {
  const { alpha, beta } = jobs;
  expect(alpha.summary!.targets.zephyr, alpha.output).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  expect(beta.summary!.targets.zephyr, beta.output).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  expect(byFolder('zsplit jobs', jobs.cycles)).toEqual(EXPECTED);
  const both = shared.both;
  expect(both.summary.targets.zephyr!, both.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(Object.keys(byFolder('zsplit jobs')).sort()).toEqual(['alpha', 'beta']);
  expect(byFolder('zsplit jobs')).toEqual(EXPECTED);
});

it('through blob and merge-reports: the same folders and statuses', () => {
  const merged = shared.merged!;
  expect(merged.summary!.targets.zephyr, merged.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(byFolder('zsplit blob')).toEqual(EXPECTED);
});

it('an outage, then replay: into the same folders', async () => {
  const down = shared.down;
  expect(down.summary.targets.zephyr!, down.output).toMatchObject({ published: 0, unsent: 6 });
  expect(zephyrCycles(downed)).toEqual([]);
  // The replay's own env names no CI build and no projects mode: both come from the journal.
  const replay = await runReplay(down.outboxDir, { ...zephyrOnly(downed), ZEPHYR_CYCLE_NAME: 'zsplit replay' });
  expect(replay.exitCode, replay.output).toBe(0);
  expect(byFolder('zsplit replay', zephyrCycles(downed))).toEqual(EXPECTED);
});
