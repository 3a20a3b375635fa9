/**
 * Worst wins across the processes of one CI build, in Xray, with real `playwright test` processes: two shards of
 * build `s3` at the same time, one execution (merge mode). The interleaving is held by a gate, not by timing: shard
 * 1 has imported its PASS of XT-9 (seen in the sandbox) and is held before its end; shard 2 then fails XT-9 and
 * ends; shard 1 is let go and reads back a run its own import no longer holds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import { TEST_BATCH_WAIT_ENV } from '../../src/playwright/test-knobs';
import { runPlaywright, testSandbox, xrayOnly } from './harness';
import { gatedTest, quickTest, startLiveRun, until, type LiveRun } from './live-run';
import { xrayExecutions } from './xray-helpers';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox?.close());
const live: LiveRun[] = [];
afterEach(() => {
  for (const run of live.splice(0)) run.cleanup();
});

const runOf = (summary: string, key: string) => xrayExecutions(sandbox, summary)[0]?.runs.find((r) => r.testKey === key);

it("two shards of one build at once: the other shard's worse result, stored after our import, is kept, not a read-back failure", async () => {
  const summary = 'xray builds concurrent';
  // A batch goes 200 ms after its first result (not 30 s): shard 1's PASS is imported while its gated test holds it.
  const env = xrayOnly(sandbox.env(), {
    XRAY_TEST_EXECUTION_SUMMARY: summary,
    PW_TMS_BUILD: 's3',
    PW_TMS_FAIL_ON_ERROR: '1',
    [TEST_BATCH_WAIT_ENV]: '200',
  });
  // Shard 1: XT-9 passes at once; XT-11 passes when let go (the process's end, and its read-back, wait for it).
  const one = startLiveRun({ 'k.spec.ts': quickTest('a', ['@XT-9']) + gatedTest('b', ['@XT-11'], 'b') }, env);
  live.push(one);
  await until("shard 1's PASS of XT-9 is stored", () => runOf(summary, 'XT-9')?.status === 'PASSED');

  // Shard 2 (project beta) fails XT-9 over it: shard 1's PASS is this build's and better, so the FAIL goes.
  const two = await runPlaywright({
    files: {
      'k.spec.ts': `const { test } = require('@playwright/test');\ntest('a', { tag: '@XT-9' }, () => { throw new Error('a broke'); });\n`,
    },
    env,
    projects: ['beta'],
  });
  expect(two.exitCode, two.output).toBe(1);
  expect(two.output).not.toContain('read-back check failed');
  expect(runOf(summary, 'XT-9')).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*a broke/) });

  // Shard 1 ends: its read-back finds shard 2's FAIL where it sent a PASS, and keeps it.
  one.open('b');
  const first = await one.exited;
  expect(first.code, first.output).toBe(0);
  expect(first.output).not.toContain('read-back check failed');
  const s = (JSON.parse(fs.readFileSync(path.join(one.dir, 'summary.json'), 'utf8')) as RunSummary).targets.xray!;
  expect(s.errors).toEqual([]);
  expect(s.verify).toEqual({
    ok: true,
    details: [expect.stringMatching(/holds the 2 published results \(1 kept a worse result of this build sent by another process\)$/)],
  });
  expect(runOf(summary, 'XT-9')).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n/) });
  expect(runOf(summary, 'XT-11')?.status).toBe('PASSED');
  expect(xrayExecutions(sandbox, summary)).toHaveLength(1);
}, 120_000);
