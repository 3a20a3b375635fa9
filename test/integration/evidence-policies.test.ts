import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { evidenceReaders, NOTES, PNG, sha, SUITE } from './evidence-helpers';
import type { RunSummary } from '../../src/shared/model';
import { TEST_BACKOFF_ENV } from '../../src/playwright/test-knobs';
import { csRun, outboxFiles, runPlaywright, runReplay, testSandbox, zephyrCycles, type RunResult } from './harness';

/** Evidence policies and limits, and evidence that could not be sent kept for replay (live runs against the sandbox). */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});
const { resultOf, executionOf, envFor, uploadsTo } = evidenceReaders(() => sandbox);

/**
 * The policies and limits from ONE Playwright run of three reporter instances, each with its own cycle / test run,
 * outbox and summary (a run costs seconds of process start; these need no faults, so they can share one):
 * 1 `attachments: 'none'`, 2 `attachmentMaxBytes: 100`, 3 the defaults. Every instance gets every test (SUITE:
 * PROJ-3/4 and scenarios 3/4; errors.spec: PROJ-31 / 31; odd.spec: PROJ-5 / 5); each case reads its own instance.
 */
describe('evidence: policies and limits, three reporter instances in one run (live)', () => {
  const NONE = 'evidence cs none';
  const OVERSIZE = 'evidence cs oversize';
  const DEFAULTS = 'evidence defaults';
  const names = (name: string) => ({ zephyr: { cycleName: name }, cucumberstudio: { testRunName: name } });
  let run: RunResult;
  const summaryOf = (n: number): RunSummary => JSON.parse(fs.readFileSync(path.join(run.dir, `summary-${n}.json`), 'utf8')) as RunSummary;
  beforeAll(async () => {
    run = await runPlaywright({
      files: {
        ...SUITE,
        'errors.spec.ts': `const { test, expect } = require('@playwright/test');
test('several errors', { tag: ['@PROJ-31', '@cs-31'] }, () => {
  expect.soft(1, 'first soft').toBe(2);
  expect.soft('a', 'second soft').toBe('b');
  throw new Error('request failed', { cause: new Error('ECONNRESET from the stub') });
});`,
        'odd.spec.ts': `const { test } = require('@playwright/test');
test('odd files @cs-5 @PROJ-5', async ({}, testInfo) => {
  testInfo.attachments.push({ name: 'output folder', path: testInfo.outputDir, contentType: 'text/plain' });
  await testInfo.attach('my report.final v2', { body: 'all done', contentType: 'text/plain' });
  throw new Error('broke');
});`,
      },
      env: sandbox.env(),
      options: { ...names(NONE), attachments: 'none' },
      moreReporters: [
        { ...names(OVERSIZE), attachmentMaxBytes: 100, outboxDir: 'outbox-2', summaryFile: 'summary-2.json' },
        { ...names(DEFAULTS), outboxDir: 'outbox-3', summaryFile: 'summary-3.json' },
      ],
    });
  }, 300_000);

  it('attachments: none makes no upload call; the steps still go', () => {
    const name = NONE;
    const runId = csRun(sandbox, name).id;
    expect(uploadsTo(runId)).toEqual([]);
    const cycleId = zephyrCycles(sandbox).find((c) => c.name === name)!.id;
    expect(sandbox.log().filter((e) => e.service === 'zephyr' && e.target.includes('/attachment') && e.target.includes(cycleId))).toEqual(
      [],
    );
    expect(executionOf(name, 'PROJ-3').attachments).toEqual([]);
    expect(resultOf(name, 3).stepStatusesSent).toEqual(['passed', 'failed', 'skipped']);
    // stepResults `passed` (the default): the passed test's steps PASS in the bulk call, the failed test's untouched.
    expect(executionOf(name, 'PROJ-4').stepResults.map((r) => r.statusId)).toEqual([1, 1, 1]);
    expect(executionOf(name, 'PROJ-3').stepResults.map((r) => r.statusId)).toEqual([-1, -1, -1]);
  });

  it('every error of a test is in its comment and description: soft expects, the error thrown and its cause', () => {
    const name = DEFAULTS;
    const comment = executionOf(name, 'PROJ-31').comment;
    expect(comment).toContain('first soft');
    expect(comment).toContain('--- error 2 of 3 ---');
    expect(comment).toContain('second soft');
    expect(comment).toMatch(/--- error 3 of 3 ---\nError: request failed\n\[cause\]: Error: ECONNRESET from the stub/);
    expect(resultOf(name, 31).description).toContain('[cause]: Error: ECONNRESET from the stub');
  });

  it('a file over attachmentMaxBytes is skipped and named; the others go', () => {
    const name = OVERSIZE;
    const summary = summaryOf(2);
    // notes.txt is 26 bytes; shot.png 256 and Playwright's error context a few kB are over the limit.
    expect(resultOf(name, 3).attachments.map((a) => a.fileName)).toEqual(['notes.txt']);
    expect(summary.targets.cucumberstudio?.attachments?.skipped).toContain('shot.png (256 bytes, over attachmentMaxBytes 100)');
    expect(summary.targets.zephyr?.attachments?.skipped).toContain('shot.png (256 bytes, over attachmentMaxBytes 100)');
    expect(executionOf(name, 'PROJ-3').attachments.map((a) => a.fileName)).toEqual(['notes.txt']);
    // The line names the first three files skipped, in the order the run met them (shot.png among them or not):
    // any of them is a file over the limit, named with its size; the summary above lists every one.
    expect(run.output).toMatch(/\[tms-reporter 2\] CucumberStudio: .*skipped: [^\n]*\(\d+ bytes, over attachmentMaxBytes 100\)/);
    expect(run.output).toMatch(/\[tms-reporter 2\] Zephyr Squad: .*skipped: [^\n]*\(\d+ bytes, over attachmentMaxBytes 100\)/);
    expect(outboxFiles(path.join(run.dir, 'outbox-2'))).toEqual([]);
  });

  it('a folder given as a path is skipped and named, not kept for replay; a name with a dot in it keeps its type', () => {
    const name = DEFAULTS;
    const summary = summaryOf(3);
    expect(resultOf(name, 5).attachments.map((a) => a.fileName)).toContain('my_report.final_v2.txt');
    expect(executionOf(name, 'PROJ-5').attachments.map((a) => a.fileName)).toContain('my_report.final_v2.txt');
    for (const target of ['zephyr', 'cucumberstudio'] as const) {
      const files = summary.targets[target]?.attachments;
      expect(files?.skipped).toEqual([expect.stringMatching(/^output_folder\.txt \(not a file: .+\)$/)]);
      expect(files?.failed).toEqual([]);
      expect(summary.targets[target]).toMatchObject({ unsent: 0, errors: [] });
    }
    expect(outboxFiles(path.join(run.dir, 'outbox-3'))).toEqual([]);
  });
});

/**
 * The fault cases' runs retry as often as the product does, with 20 ms between tries instead of its backoff
 * (seconds): what they check is what each retry does (look before repeating, give up, keep for replay), not how long.
 */
const QUICK_RETRIES = { [TEST_BACKOFF_ENV]: '20' };

/**
 * SUITE with its passing test first: Playwright starts a new worker (≈ 1 s of CPU) after a failed test that has tests
 * after it, none after the last. For the runs where which result goes out first does not matter.
 */
const FAIL_LAST = {
  'evidence.spec.ts': SUITE['evidence.spec.ts'].replace(
    /(test\('checkout[\s\S]*?\n\}\);\n)\n(test\('catalogue[\s\S]*?\n\}\);\n)/,
    '$2\n$1',
  ),
};
it('FAIL_LAST is SUITE with its two tests swapped', () => {
  const text = FAIL_LAST['evidence.spec.ts'];
  expect(text).not.toBe(SUITE['evidence.spec.ts']);
  expect(text.indexOf('catalogue works')).toBeLessThan(text.indexOf('checkout fails'));
  expect([...text].sort().join('')).toBe([...SUITE['evidence.spec.ts']].sort().join(''));
});

describe('evidence: faults and replay (live)', () => {
  it('CucumberStudio: every write applied but answered 500: each file is attached once and each result posted once', async () => {
    const name = 'evidence ambiguous';
    // (Zephyr cannot publish at all under this: its job tokens would never arrive. Its upload's look-before-retry is unit-tested.)
    sandbox.setFaults('cucumberstudio', { appliedFaultRate: 1 });
    let run;
    try {
      run = await runPlaywright({
        files: FAIL_LAST,
        env: { ...envFor(name, QUICK_RETRIES), ZEPHYR_ACCESS_KEY: undefined, ZEPHYR_SECRET_KEY: undefined },
      });
    } finally {
      sandbox.setFaults('cucumberstudio', { appliedFaultRate: 0 });
    }
    const ALL = ['error-context.md', 'notes.txt', 'shot.png'];
    expect(
      resultOf(name, 3)
        .attachments.map((a) => a.fileName)
        .sort(),
      JSON.stringify(run.summary?.targets.cucumberstudio) + run.output.slice(-2000),
    ).toEqual(ALL);
    for (const id of [3, 4]) expect(csRun(sandbox, name).snapshots.find((s) => s.scenarioId === id)!.results).toHaveLength(1);
    expect(run.summary?.targets.cucumberstudio).toMatchObject({ unsent: 0 });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('CucumberStudio: a result post applied but answered 500, then its look failing until its retries run out: the next attempt looks again, no second result', async () => {
    const name = 'evidence ambiguous then look down';
    const error500 = { status: 500, body: '{"errors":[{"status":"500","title":"Internal Server Error"}]}', applied: true, times: 1 };
    // The look's own retries (5) run out on a failure that says nothing was applied (a 423, as while tests are
    // generated): the write's next attempt must still look, as its first failure left that open.
    const down = { status: 423, body: '{"errors":[{"status":"423","title":"Locked"}]}', times: 6 };
    sandbox.setFaults('cucumberstudio', {
      overrides: [
        { method: 'POST', pathIncludes: '/test_results', ...error500 },
        { method: 'GET', pathIncludes: 'include=last-result', ...down },
      ],
    });
    let run;
    try {
      run = await runPlaywright({
        files: SUITE,
        env: { ...envFor(name, QUICK_RETRIES), ZEPHYR_ACCESS_KEY: undefined, ZEPHYR_SECRET_KEY: undefined },
      });
    } finally {
      sandbox.setFaults('cucumberstudio', { overrides: [] });
    }
    const results = (id: number) => csRun(sandbox, name).snapshots.find((s) => s.scenarioId === id)!.results;
    expect(results(3), run.output.slice(-2000)).toHaveLength(1);
    expect(results(4)).toHaveLength(1);
    expect(
      resultOf(name, 3)
        .attachments.map((a) => a.fileName)
        .sort(),
    ).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(run.summary?.targets.cucumberstudio).toMatchObject({ unsent: 0 });
  });

  it('uploads refused during the run stay in the outbox; replay attaches each file exactly once', async () => {
    const name = 'evidence cs replay';
    const outage = {
      method: 'POST',
      pathIncludes: '/attachment',
      status: 503,
      body: 'Service Unavailable',
      headers: { 'content-type': 'text/plain' },
    };
    sandbox.setFaults('cucumberstudio', { overrides: [outage] });
    sandbox.setFaults('zephyr', { overrides: [outage] });
    let run;
    try {
      run = await runPlaywright({ files: FAIL_LAST, env: envFor(name, { ...QUICK_RETRIES, PW_TMS_PUBLISH_TIMEOUT: '20' }) });
    } finally {
      sandbox.setFaults('cucumberstudio', { overrides: [] });
      sandbox.setFaults('zephyr', { overrides: [] });
    }
    expect(run.exitCode).toBe(1); // the test itself fails; publishing problems never fail the run
    expect(resultOf(name, 3).attachments).toEqual([]);
    expect(run.summary?.targets.cucumberstudio?.attachments?.failed).toHaveLength(3);
    expect(run.summary?.targets.zephyr?.attachments?.failed).toHaveLength(3);
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    expect(executionOf(name, 'PROJ-3').attachments).toEqual([]);
    const replay = await runReplay(run.outboxDir, sandbox.env());
    expect(replay.exitCode, replay.output).toBe(0);
    expect(
      resultOf(name, 3)
        .attachments.map((a) => a.fileName)
        .sort(),
    ).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(
      executionOf(name, 'PROJ-3')
        .attachments.map((a) => a.fileName)
        .sort(),
    ).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    // A second replay has nothing to send.
    const again = await runReplay(run.outboxDir, sandbox.env());
    expect(again.exitCode).toBe(0);
    expect(resultOf(name, 3).attachments).toHaveLength(3);
    expect(executionOf(name, 'PROJ-3').attachments).toHaveLength(3);
    // Results were posted once each (the replay only attached the files).
    const run3 = csRun(sandbox, name).snapshots.find((s) => s.scenarioId === 3)!;
    expect(run3.results).toHaveLength(1);
  });
});

describe('evidence kept for replay (live)', () => {
  it('files attached by path are copied beside a kept journal: replayed from another folder after test-results is gone, each goes up once', async () => {
    const name = 'evidence moved';
    const zephyrOnly = Object.fromEntries(Object.entries(envFor(name)).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    sandbox.setFaults('zephyr', { down: true });
    let run;
    try {
      run = await runPlaywright({ files: FAIL_LAST, env: { ...zephyrOnly, PW_TMS_PUBLISH_TIMEOUT: '3' } });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    // The next run empties test-results; the outbox travels as a CI artifact to another folder.
    fs.rmSync(path.join(run.dir, 'test-results'), { recursive: true, force: true });
    const moved = path.join(run.dir, 'artifact', 'outbox');
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.renameSync(run.outboxDir, moved);
    const replayed = await runReplay(moved, zephyrOnly);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).not.toContain('gone');
    const files = Object.fromEntries(executionOf(name, 'PROJ-3').attachments.map((a) => [a.fileName, a]));
    expect(Object.keys(files).sort()).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(files['notes.txt'].sha256).toBe(sha(NOTES));
    expect(files['shot.png'].sha256).toBe(sha(PNG));
  });
});
