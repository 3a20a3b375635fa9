import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, csRuns, runPlaywright, runReplay, testSandbox, type CsRun, type RunResult } from './harness';
import { runInstances, type Instances } from './shared-run';

/**
 * CucumberStudio split mode (`projects: 'split'`): one execution environment per Playwright project, named as the
 * project, each with the CI build's build holding that project's own results — in one process, as a job per
 * project, through blob → merge-reports, and after an outage through `replay`. Only CucumberStudio is enabled:
 * split mode needs every enabled target to keep projects apart.
 *
 * Playwright starts are what this file's time goes to: the runs that need no run of their own (the dry run, the
 * first run, the CI build's rerun of both projects, the outage) are instances of the reporter in one process, each
 * with its own test run, build, outbox and summary file; the outage's instance publishes to a sandbox of its own,
 * down for that whole run. That process also writes the blob report that merge-reports then publishes.
 */
let sandbox: RunningSandbox;
let downed: RunningSandbox;

/** Scenario 81 fails in beta only, 82 in alpha only, 83 passes in both. */
const files = {
  's.spec.ts': `const { test } = require('@playwright/test');
const failsIn = { 81: 'beta', 82: 'alpha' };
for (const id of [81, 82, 83])
  test('s' + id, { tag: '@cs-' + id }, () => {
    if (failsIn[id] === test.info().project.name) throw new Error('fails in ' + test.info().project.name);
  });`,
};
const EXPECTED = {
  alpha: { 81: 'passed', 82: 'failed', 83: 'passed' },
  beta: { 81: 'failed', 82: 'passed', 83: 'passed' },
};
const csOnly = (s: RunningSandbox) => Object.fromEntries(Object.entries(s.env()).filter(([k]) => k.startsWith('CUCUMBERSTUDIO_')));
const csEnv = (runName?: string) => ({
  ...csOnly(sandbox),
  ...(runName ? { CUCUMBERSTUDIO_TEST_RUN_NAME: runName } : {}),
  PW_TMS_PROJECTS: 'split',
});
const publish = (runName: string, build: string, o: { args?: string[] } = {}) =>
  runPlaywright({
    files,
    projects: ['alpha', 'beta'],
    args: o.args,
    env: { ...csEnv(runName), PW_TMS_BUILD: build },
  });

interface BuildView {
  id: number;
  name: string;
  running: boolean;
}

/**
 * Environment name -> scenario id -> latest status of its test in that environment's build `build` (each
 * environment holds exactly one build of that name: reused, never a twin).
 */
function byEnvironment(runName: string, build: string, run: CsRun = csRun(sandbox, runName)): Record<string, Record<number, string>> {
  const environments = (run as unknown as { environments: Array<{ name: string; builds: BuildView[] }> }).environments;
  const out: Record<string, Record<number, string>> = {};
  for (const environment of environments) {
    const builds = environment.builds.filter((b) => b.name === build);
    if (!builds.length) continue;
    expect(builds, `builds "${build}" of environment "${environment.name}"`).toHaveLength(1);
    expect(builds[0].running).toBe(true);
    const latest: Record<number, string> = {};
    for (const s of run.snapshots) {
      const mine = s.results.filter((r) => r.buildId === builds[0].id);
      if (mine.length) latest[s.scenarioId] = mine.at(-1)!.status;
    }
    out[environment.name] = latest;
  }
  return out;
}

/** The run's environments by name (the order they were created in depends on which project's result came first). */
const environmentNames = (runName: string, run: CsRun = csRun(sandbox, runName)) =>
  (run as unknown as { environments: Array<{ name: string }> }).environments.map((e) => e.name).sort();

/** The scenarios of the one shared run: name -> the options of its reporter instance. */
const instances = () => ({
  one: { cucumberstudio: { testRunName: 'split one' }, build: 'ci 1' },
  dry: { cucumberstudio: { testRunName: 'split dry' }, build: 'ci dry', dryRun: true },
  both: { cucumberstudio: { testRunName: 'split jobs' }, build: 'ci 2' }, // after the jobs of alpha and beta
  down: { cucumberstudio: { testRunName: 'split replay', baseUrl: downed.origin }, build: 'ci 4', publishTimeout: 3 },
});
let shared: Instances<keyof ReturnType<typeof instances>>;
let jobs: { alpha: RunResult; beta: RunResult; run: CsRun };

beforeAll(async () => {
  sandbox = await testSandbox();
  downed = await testSandbox();
  // A job per project of CI build "ci 2"; the shared run below is that build's rerun of both.
  const alpha = await publish('split jobs', 'ci 2', { args: ['--project=alpha'] });
  const beta = await publish('split jobs', 'ci 2', { args: ['--project=beta'] });
  jobs = { alpha, beta, run: structuredClone(csRun(sandbox, 'split jobs')) };
  downed.setFaults('cucumberstudio', { down: true });
  try {
    // The same run's blob report, merged: merge-reports publishes it as CI build "ci 3".
    shared = await runInstances({ files, projects: ['alpha', 'beta'], env: csEnv() }, instances(), {
      cucumberstudio: { testRunName: 'split blob' },
      build: 'ci 3',
    });
  } finally {
    downed.setFaults('cucumberstudio', { down: false });
  }
}, 300_000);
afterAll(async () => {
  // The harness also checks that no result went in with no build.
  await sandbox?.close();
  await downed?.close();
});

it("one process: an environment per project, each with the CI build's build and its own statuses; a summary line per project; the dry run names them", () => {
  const dry = shared.dry;
  expect(dry.output).toContain('would publish into build "ci dry" of execution environment "alpha" (found by name, or created)');
  expect(dry.output).toContain('would publish into build "ci dry" of execution environment "beta" (found by name, or created)');

  expect(csRuns(sandbox, 'split dry')).toEqual([]);
  const one = shared.one;
  const summary = one.summary.targets.cucumberstudio!;
  expect(summary, one.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(summary.byPlace).toEqual({
    alpha: { published: 3, countsByStatus: { passed: 2, failed: 1 } },
    beta: { published: 3, countsByStatus: { passed: 2, failed: 1 } },
  });
  expect(environmentNames('split one')).toEqual(['Default', 'alpha', 'beta']);
  expect(byEnvironment('split one', 'ci 1')).toEqual(EXPECTED);
});

it('every run is created with its scenario ids (the keys less their project): nothing refused, no run patched', () => {
  const wrong = [...sandbox.log(), ...downed.log()].filter(
    (e) =>
      e.service === 'cucumberstudio' &&
      (e.status === 422 || e.target.includes('NaN') || (e.method === 'PATCH' && /\/test_runs\/\d+$/.test(e.target))),
  );
  expect(wrong.map((e) => `${e.method} ${e.target} ${e.status}`)).toEqual([]);
  for (const run of csRuns(sandbox).filter((r) => r.name.startsWith('split '))) expect(run.scenarioIds, run.name).toEqual([81, 82, 83]);
});

it('a job per project, then both again, of one CI build: the same two environments, each build reused by name', () => {
  const { alpha, beta } = jobs;
  expect(alpha.summary!.targets.cucumberstudio, alpha.output).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  expect(beta.summary!.targets.cucumberstudio, beta.output).toMatchObject({ published: 3, errors: [], verify: { ok: true } });
  expect(byEnvironment('split jobs', 'ci 2', jobs.run)).toEqual(EXPECTED);
  // A rerun of the whole build finds both environments and both builds (byEnvironment: no twin).
  const both = shared.both;
  expect(both.summary.targets.cucumberstudio, both.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(environmentNames('split jobs')).toEqual(['Default', 'alpha', 'beta']);
  expect(byEnvironment('split jobs', 'ci 2')).toEqual(EXPECTED);
});

it('through blob and merge-reports: the same environments and statuses', () => {
  const merged = shared.merged!;
  expect(merged.summary!.targets.cucumberstudio, merged.output).toMatchObject({ published: 6, errors: [], verify: { ok: true } });
  expect(environmentNames('split blob')).toEqual(['Default', 'alpha', 'beta']);
  expect(byEnvironment('split blob', 'ci 3')).toEqual(EXPECTED);
});

it('an outage, then replay: into the same environments and build', async () => {
  const down = shared.down;
  expect(down.summary.targets.cucumberstudio, down.output).toMatchObject({ published: 0, unsent: 6 });
  expect(csRuns(downed)).toEqual([]);
  // The replay's own env names no CI build and no projects mode: both come from the journal.
  const replay = await runReplay(down.outboxDir, { ...csOnly(downed), CUCUMBERSTUDIO_TEST_RUN_NAME: 'split replay' });
  expect(replay.exitCode, replay.output).toBe(0);
  const run = csRun(downed, 'split replay');
  expect(environmentNames('split replay', run)).toEqual(['Default', 'alpha', 'beta']);
  expect(byEnvironment('split replay', 'ci 4', run)).toEqual(EXPECTED);
  expect(downed.stats().cucumberstudio.counters).toMatchObject({ resultsWithoutBuild: 0 });
});
