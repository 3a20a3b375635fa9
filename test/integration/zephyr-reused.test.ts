/**
 * A reused cycle changes while a run goes on (another pipeline, a person re-testing): what the run read at its
 * start is no reason to leave its own later result unsent. The run that publishes last is what the cycle shows.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, testSandbox, zephyrStatuses } from './harness';
import { gatedTest, startLiveRun, until, type LiveRun } from './live-run';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());
const runs: LiveRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.cleanup();
});

const PASS = 1;
const FAIL = 2;
const passing = { 'k.spec.ts': `const { test } = require('@playwright/test');\ntest('k', { tag: '@PROJ-41' }, () => {});` };

// Without failure comments the status goes in the bulk call, where a status equal to the one read was skipped.
describe.each([['the bulk call (no failure comments)', { ZEPHYR_FAILURE_COMMENTS: '0' }]])('%s', (_how, extra) => {
  it('a key set to another status by someone else during the run gets the run’s own result, though it equals what the run read first', async () => {
    const name = `reused, changed meanwhile ${_how}`;
    const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_ACCESS_TOKEN: undefined, ...extra };
    const failing = { 'k.spec.ts': gatedTest('k', ['@PROJ-41'], 'k', true) };
    // Yesterday: FAIL, with the same error (the same spec, so the same comment).
    const yesterday = startLiveRun(failing, env);
    runs.push(yesterday);
    yesterday.open('k');
    await yesterday.exited;
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-41': FAIL });
    // Today's run reads the cycle (FAIL) at its start; its test waits.
    const since = Date.now();
    const run = startLiveRun(failing, env);
    runs.push(run);
    await until('the run has read the cycle', () =>
      sandbox.log().some((e) => e.at >= since && e.service === 'zephyr' && /executions\/search|zql\/search/.test(e.target)),
    );
    // Meanwhile another pipeline sets PASS.
    await runPlaywright({ files: passing, env });
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-41': PASS });
    // Today's test fails: the cycle shows FAIL, the last result.
    run.open('k');
    const exit = await run.exited;
    expect(exit.code, exit.output).toBe(1);
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-41': FAIL });
  });
});
