import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { TargetSummary } from '../../src/shared/model';
import { baseEnv, exec, outboxFiles, REPO, runReplay, testSandbox, xrayOnly } from './harness';
import { runInstances, type Instances } from './shared-run';
import { silentTodos, xrayExecution, xrayExecutions, xrayStatuses } from './xray-helpers';

/**
 * Xray split mode (`projects: 'split'`): one Test Execution per Playwright project, its summary suffixed with the
 * project's name and that name as its only Test Environment, each linked to the Test Plan — in one process and
 * through blob → merge-reports. Only Xray is enabled: split mode needs every enabled target to keep projects apart.
 *
 * Playwright starts are what this file's time goes to: the live runs are two processes, each with several instances
 * of the reporter (their own summaries, outboxes and summary files): the first run of "xsplit one" beside the outage
 * (a sandbox of its own, down for that whole run), whose blob report merge-reports publishes, then its second run
 * beside the one given a Test Execution key.
 */
let sandbox: RunningSandbox;
let downed: RunningSandbox;
const JIRA = 'https://acme.atlassian.net';

/** XT-1 fails in beta only; XT-2 passes in both. The failure is beta's last test: no worker starts after it. */
const files = {
  's.spec.ts': `const { test } = require('@playwright/test');
test('ok', { tag: '@XT-2' }, () => {});
test('shared', { tag: '@XT-1' }, () => {
  if (test.info().project.name === 'beta') throw new Error('fails in beta');
});`,
};

const env = (s: RunningSandbox, extra: Record<string, string | undefined> = {}) =>
  xrayOnly(s.env(), { XRAY_TEST_PLAN_KEY: 'XT-302', PW_TMS_PROJECTS: 'split', ...extra });
const shared = <K extends string>(instances: Record<K, Record<string, unknown>>, merged?: Record<string, unknown>) =>
  runInstances({ files, projects: ['alpha', 'beta'], env: env(sandbox) }, instances, merged);

/** Both projects' executions: their own environment, plan link and statuses; no merge-mode execution. */
function expectSplit(summary: string, s: Pick<RunningSandbox, 'state'> = sandbox): void {
  const held = s as RunningSandbox;
  const alpha = xrayExecution(held, `${summary} alpha`);
  const beta = xrayExecution(held, `${summary} beta`);
  expect(xrayExecutions(held, summary)).toHaveLength(0);
  expect(alpha.environments).toEqual(['alpha']);
  expect(beta.environments).toEqual(['beta']);
  expect(alpha.testPlans).toEqual(['XT-302']);
  expect(beta.testPlans).toEqual(['XT-302']);
  expect(xrayStatuses(alpha)).toEqual({ 'XT-1': 'PASSED', 'XT-2': 'PASSED' });
  expect(xrayStatuses(beta)).toEqual({ 'XT-1': 'FAILED', 'XT-2': 'PASSED' });
  expect(beta.runs.find((r) => r.testKey === 'XT-1')!.comment).toContain('fails in beta');
  expect(silentTodos(held)).toBe(0);
}

let first: Instances<'one' | 'down'>;
/** The sandbox's state after the first run of "xsplit one", before its second. */
let afterFirst: ReturnType<RunningSandbox['state']>;
let second: Instances<'again' | 'key'>;

beforeAll(async () => {
  sandbox = await testSandbox();
  downed = await testSandbox();
  downed.setFaults('xray', { down: true });
  try {
    // The run's blob report, merged, is "xsplit blob".
    first = await shared(
      {
        one: { xray: { testExecutionSummary: 'xsplit one', jiraUrl: JIRA } },
        down: { xray: { testExecutionSummary: 'xsplit replay', baseUrl: downed.env().XRAY_BASE_URL }, publishTimeout: 3 },
      },
      { xray: { testExecutionSummary: 'xsplit blob' } },
    );
  } finally {
    downed.setFaults('xray', { down: false });
  }
  afterFirst = structuredClone(sandbox.state());
  second = await shared({
    again: { xray: { testExecutionSummary: 'xsplit one' } },
    // An execution that exists (alpha's of the first run): split mode refuses a key whatever it names.
    key: { xray: { testExecutionSummary: 'xsplit key', testExecutionKey: xrayExecution(sandbox, 'xsplit one alpha').key } },
  });
}, 300_000);
afterAll(async () => {
  await sandbox?.close();
  await downed?.close();
});

/** Each project's Test Execution by key and summary, as the summary file gives it (the run has none of its own). */
function expectPlaces(s: TargetSummary, summary: string, reused: boolean, link = false): void {
  const [alpha, beta] = ['alpha', 'beta'].map((p) => xrayExecution(sandbox, `${summary} ${p}`).key);
  expect(s.container).toBeUndefined();
  const place = (key: string, name: string) => ({
    container: { kind: 'Test Execution', id: key, name, reused },
    ...(link ? { link: `${JIRA}/browse/${key}` } : {}),
  });
  expect(s.byPlace).toMatchObject({ alpha: place(alpha, `${summary} alpha`), beta: place(beta, `${summary} beta`) });
}

it('one process: a Test Execution per project with its environment and its own statuses, both linked to the plan; a summary per project', () => {
  const s = first.one.summary.targets.xray!;
  expect(s, first.one.output).toMatchObject({ published: 4, unsent: 0, errors: [], verify: { ok: true } });
  expect(s.byPlace).toMatchObject({
    alpha: { published: 2, countsByStatus: { PASSED: 2 } },
    beta: { published: 2, countsByStatus: { PASSED: 1, FAILED: 1 } },
  });
  expectSplit('xsplit one', { state: () => afterFirst });
  // A second run of the summary finds both executions (no twin) and leaves each its own environment.
  expect(second.again.summary.targets.xray, second.again.output).toMatchObject({ published: 4, errors: [], verify: { ok: true } });
  expectSplit('xsplit one');
});

it("the summary names each project's Test Execution by key, with its link, not the run's summary that none has", () => {
  const [alpha, beta] = ['alpha', 'beta'].map((p) => xrayExecution(sandbox, `xsplit one ${p}`).key);
  const out = first.one.output;
  expect(out).toContain(`Xray: Test Executions ${alpha} "xsplit one alpha", ${beta} "xsplit one beta" — 4 published: `);
  expect(out).toContain(`\n  alpha: 2 published: PASSED 2; ${JIRA}/browse/${alpha}\n`);
  expect(out).toMatch(new RegExp(`\\n  beta: 2 published: (PASSED 1, FAILED 1|FAILED 1, PASSED 1); ${JIRA}/browse/${beta}\\n`));
  expect(out).not.toContain('Test Execution "xsplit one"');
  expectPlaces(first.one.summary.targets.xray!, 'xsplit one', false, true);
  // Found again by the second run (no jiraUrl there: no link); through merge-reports alike.
  expectPlaces(second.again.summary.targets.xray!, 'xsplit one', true);
  expect(second.again.summary.targets.xray!.byPlace!.alpha.link).toBeUndefined();
  expectPlaces(first.merged!.summary!.targets.xray!, 'xsplit blob', false);
});

it("`test-execution create` with split mode creates nothing and says the run makes one per project; merge mode's as before", async () => {
  const bin = path.join(REPO, 'bin/playwright-tms-reporter.js');
  const create = (extra: Record<string, string | undefined>) =>
    exec(process.execPath, [bin, 'test-execution', 'create', '--name', 'Pre split'], REPO, baseEnv(env(sandbox, extra)), 60_000);
  const split = await create({});
  expect(split.exitCode, split.output).toBe(1);
  expect(split.output).toContain(
    `Xray: nothing created — projects: 'split' (PW_TMS_PROJECTS=split) makes one Test Execution per Playwright project, "Pre split <project>"`,
  );
  expect(split.output).toContain('XRAY_TEST_EXECUTION_SUMMARY (xray.testExecutionSummary) = "Pre split"');
  expect(xrayExecutions(sandbox, 'Pre split')).toHaveLength(0);
  const merge = await create({ PW_TMS_PROJECTS: undefined });
  expect(merge.exitCode, merge.output).toBe(0);
  expect(merge.output.trim().split('\n').pop()).toBe(xrayExecution(sandbox, 'Pre split').key);
});

it('through blob and merge-reports: the same executions and statuses', () => {
  const run = first.merged!;
  expect(run.summary!.targets.xray, run.output).toMatchObject({ published: 4, errors: [], verify: { ok: true } });
  expectSplit('xsplit blob');
});

it("split mode with a Test Execution key: one clear line, nothing imported nor journaled of the key; the replay opens each project's execution", async () => {
  const run = second.key;
  expect(run.output).toMatch(
    /xray\.testExecutionKey \(env XRAY_TEST_EXECUTION_KEY\): names one Test Execution \(XT-\d+\), and projects: 'split'/,
  );
  expect(run.summary.targets.xray).toMatchObject({ published: 0, unsent: 4 });
  expect(xrayExecutions(sandbox, 'xsplit key alpha')).toHaveLength(0);
  // Held back for bad settings: the journal keeps the results and the summary, not the key the run refused.
  const journal = outboxFiles(run.outboxDir);
  expect(journal).toHaveLength(1);
  const head = JSON.parse(fs.readFileSync(path.join(run.outboxDir, journal[0]), 'utf8').split('\n')[0]);
  expect(head.targets.xray).toEqual({ settings: {}, containerName: 'xsplit key' });

  // Without the key (another summary in the env: the journal's is the run's), into each project's execution.
  const replay = await runReplay(run.outboxDir, env(sandbox, { PW_TMS_PROJECTS: undefined, XRAY_TEST_EXECUTION_SUMMARY: 'xsplit other' }));
  expect(replay.exitCode, replay.output).toBe(0);
  expect(replay.output).toContain('Xray: the run could not resolve its settings; replaying with those of the environment');
  expectSplit('xsplit key');
  expect(xrayExecutions(sandbox, 'xsplit other alpha')).toHaveLength(0);
  expect(outboxFiles(run.outboxDir)).toEqual([]);
});

it('an outage, then replay with neither the summary nor the mode in its env: into the same two executions', async () => {
  expect(first.down.summary.targets.xray, first.down.output).toMatchObject({ published: 0, unsent: 4 });
  // The journal holds the summary and the projects (its keys are placed); no key names one execution for all.
  const replay = await runReplay(first.down.outboxDir, xrayOnly(downed.env(), { XRAY_TEST_PLAN_KEY: 'XT-302' }));
  expect(replay.exitCode, replay.output).toBe(0);
  expectSplit('xsplit replay', downed);
});
