import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { evidenceReaders, NOTES, PNG, sha, SUITE } from './evidence-helpers';
import { allFileText, MODES, outboxFiles, runPlaywright, testSandbox, type RunResult } from './harness';

/**
 * Evidence with every result: files, step statuses. Real `playwright test` runs (live and through blob ->
 * merge-reports) against the sandbox; assertions on what the sandbox holds.
 *
 * One Playwright run per event source: SUITE (PROJ-3/4, scenarios 3/4), the trace file (PROJ-5, its retries and
 * trace set in the file) and the step endings (scenarios 6-10) have disjoint keys, so each case reads its own tests
 * from the one run as if it had had the run to itself; the summary's counts are the sum over the three files.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});
const { resultOf, executionOf, zephyrBytes, envFor } = evidenceReaders(() => sandbox);

const TRACE_SPEC = {
  'trace.spec.ts': `const { test, expect } = require('@playwright/test');
test.describe.configure({ retries: 2 });
test.use({ trace: 'on-first-retry' });
test('always fails @PROJ-5', async () => { await test.step('check', async () => { expect(1).toBe(2); }); });`,
};

const STEPS_SPEC = {
  'steps.spec.ts': `const { test } = require('@playwright/test');
test('times out after its steps @cs-6', async () => {
  test.setTimeout(1000);
  await test.step('s1', async () => {});
  await test.step('s2', async () => {});
  await new Promise((r) => setTimeout(r, 5000));
});
test('hangs in its second step @cs-8', async () => {
  test.setTimeout(1000);
  await test.step('s1', async () => {});
  await test.step('s2', () => new Promise(() => {}));
});
test('skips itself inside a step @cs-9', async () => {
  await test.step('s1', async () => {});
  await test.step('s2', async () => test.skip(true, 'not here'));
});
test('fails as it expects @cs-10', async () => {
  test.fail();
  await test.step('s1', async () => {});
  await test.step('s2', async () => { throw new Error('known bug'); });
});`,
};

/** Zephyr: SUITE's two tests and the trace test. CucumberStudio: SUITE's two and the four step endings. */
const ZEPHYR_PUBLISHED = 3;
const CS_PUBLISHED = 6;

describe.each(MODES)('evidence (%s)', (mode) => {
  const name = `evidence ${mode}`;
  let run: RunResult;
  beforeAll(async () => {
    // ZEPHYR_STEP_RESULTS is Zephyr's own: CucumberStudio sends step statuses whatever it says.
    const env = envFor(name, { ZEPHYR_STEP_RESULTS: 'detailed' });
    run = await runPlaywright({ files: { ...SUITE, ...TRACE_SPEC, ...STEPS_SPEC }, env, mode });
  }, 300_000);

  it('Zephyr: the failed execution gets both files and per-step results; the passed one PASS steps and no file', () => {
    expect(run.summary?.targets.zephyr).toMatchObject({ published: ZEPHYR_PUBLISHED, unsent: 0, errors: [] });
    const failed = executionOf(name, 'PROJ-3');
    expect(failed.statusId).toBe(2);
    const files = Object.fromEntries(failed.attachments.map((a) => [a.fileName, a]));
    const tally = JSON.stringify(run.summary?.targets.zephyr?.attachments);
    // Ours, plus the error context Playwright attaches to every failed test.
    expect(Object.keys(files).sort(), tally).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(zephyrBytes(files['shot.png'].id).equals(PNG)).toBe(true);
    expect(files['notes.txt'].sha256).toBe(sha(NOTES));
    // Steps before the failure PASS, the failing one FAIL, the one never reached untouched.
    expect(failed.stepResults.map((r) => r.statusId)).toEqual([1, 2, -1]);
    const passed = executionOf(name, 'PROJ-4');
    expect(passed.statusId).toBe(1);
    expect(passed.stepResults.map((r) => r.statusId)).toEqual([1, 1, 1]);
    expect(passed.attachments).toEqual([]);
    // PROJ-3's three and the trace test's two (its error context and trace).
    expect(run.output).toMatch(/Zephyr Squad: .*5 attachments uploaded/);
    const env = sandbox.env();
    const text = run.output + allFileText(run.dir);
    for (const secret of [env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY, env.CUCUMBERSTUDIO_ACCESS_TOKEN])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/JWT eyJ/);
  });

  it("`trace: 'on-first-retry'` with retries 2: the trace of the first retry goes up with the last attempt's files", () => {
    expect(run.summary?.targets.zephyr).toMatchObject({ published: ZEPHYR_PUBLISHED, unsent: 0, errors: [] });
    const names = executionOf(name, 'PROJ-5').attachments.map((a) => a.fileName);
    expect(names.sort(), JSON.stringify(run.summary?.targets.zephyr?.attachments)).toEqual(['error-context.md', 'trace.zip']);
  });

  // The event source matters for files and steps; the Zephyr case covers merge-reports' paths, CucumberStudio shares that code.
  it.runIf(mode === 'live')('CucumberStudio: a failed test sends its steps and both files; a passed test its steps and no file', () => {
    expect(run.summary?.targets.cucumberstudio, run.output.slice(-3000)).toMatchObject({
      published: CS_PUBLISHED,
      unsent: 0,
      errors: [],
    });
    const failed = resultOf(name, 3);
    expect(failed.status).toBe('failed');
    expect(failed.stepStatusesSent).toEqual(['passed', 'failed', 'skipped']);
    expect(failed.stepStatuses).toEqual(['passed', 'failed', 'skipped']);
    const files = Object.fromEntries(failed.attachments.map((a) => [a.fileName, a]));
    const tally = JSON.stringify(run.summary?.targets.cucumberstudio?.attachments);
    expect(Object.keys(files).sort(), tally).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(files['shot.png'].sha256).toBe(sha(PNG));
    expect(files['notes.txt'].sha256).toBe(sha(NOTES));
    const passed = resultOf(name, 4);
    expect(passed.stepStatusesSent).toEqual(['passed', 'passed', 'passed']);
    expect(passed.attachments).toEqual([]);
    // Scenario 3's three and the error contexts of the two step endings that failed (6 and 8).
    expect(run.summary?.targets.cucumberstudio?.attachments).toMatchObject({ uploaded: 5, skipped: [], failed: [] });
    expect(run.output).toMatch(/CucumberStudio: .*5 attachments uploaded/);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('steps as the attempt ended: a timeout fails the step it cut off only, a skip or an expected failure fails none', () => {
    const steps = (id: number) => [resultOf(name, id).status, resultOf(name, id).stepStatuses];
    expect(steps(6)).toEqual(['failed', ['passed', 'passed', 'skipped']]);
    expect(steps(8)).toEqual(['failed', ['passed', 'failed', 'skipped']]);
    expect(steps(9)).toEqual(['skipped', ['passed', 'skipped', 'skipped']]);
    expect(steps(10)).toEqual(['passed', ['passed', 'passed', 'skipped']]);
  });
});
