/**
 * publishTimeout beyond what a Node timer keeps (issue 30 item 4): 3,000,000 s used to end the publishing at
 * once (Node fires a timer longer than 2³¹−1 ms after 1 ms) and publish nothing at the end; `0` is no limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, outboxFiles, runPlaywright, testSandbox, zephyrStatuses } from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

const spec = `const { test } = require('@playwright/test');
test('one', { tag: ['@PROJ-11', '@cs-11'] }, () => {});
test('two', { tag: ['@PROJ-12', '@cs-12'] }, () => { throw new Error('two failed'); });
test('three', { tag: ['@PROJ-13', '@cs-13'] }, () => {});
`;

describe('publishTimeout', () => {
  it.each(['3000000', '0'])('%s s: everything is published, nothing is cut short', async (value) => {
    const name = `publish timeout ${value}`;
    const run = await runPlaywright({
      files: { 'p.spec.ts': spec },
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name, PW_TMS_PUBLISH_TIMEOUT: value },
    });
    expect(run.output).not.toContain('publishTimeout');
    expect(run.output).not.toContain('TimeoutOverflowWarning');
    for (const id of ['zephyr', 'cucumberstudio']) {
      expect(run.summary!.targets[id], run.output).toMatchObject({ published: 3, unsent: 0, errors: [] });
      expect(run.summary!.targets[id]!.cutShort).toBeUndefined();
    }
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-11': 1, 'PROJ-12': 2, 'PROJ-13': 1 });
    expect(csRun(sandbox, name).snapshots.map((s) => s.results.length)).toEqual([1, 1, 1]);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });
});
