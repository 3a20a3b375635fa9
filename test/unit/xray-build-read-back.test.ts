import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttp, type Http } from '../../src/http/client';
import { RequestLane } from '../../src/kit/lane';
import type { PlanItem } from '../../src/shared/model';
import { XrayClient } from '../../src/targets/xray/client';
import type { XrayConfig } from '../../src/targets/xray/config';
import { XrayTarget } from '../../src/targets/xray/publisher';
import { CREDENTIALS, startXray, type XrayHarness } from './sandbox-xray-helpers';

/**
 * Two processes of one CI build (two shards, both `s3`) write the same execution, each through its own target;
 * the steps run one after another here, so every interleaving is exact. What the end's read-back of one process
 * makes of a run the other wrote: a worse result of this build is kept, whenever it was written (before our
 * import, or between our import and our read); a result of another build, a better one, or none is a failure.
 */
let h: XrayHarness;
let http: Http;
beforeAll(async () => {
  h = await startXray();
  http = createHttp();
});
afterAll(async () => {
  await http.close();
  await h.close();
});

const item = (n: number, status: 'PASSED' | 'FAILED'): PlanItem => ({
  key: `XT-${n}`,
  outcome: status === 'FAILED' ? 'failed' : 'passed',
  status,
  comment: status === 'FAILED' ? `t${n} broke` : '',
  tests: [`t${n}`],
});

/** One process of build `build` (a CI build: its runs are read only at the end, every one of them). */
function shard(summary: string, build: string): XrayTarget {
  const lane = new RequestLane({ name: 'Xray', concurrency: 4, rateLimit: null });
  const client = new XrayClient(
    { baseUrl: h.base, clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret },
    lane,
    (service, req) => http.send(service, req),
    [],
  );
  const cfg = { ...CREDENTIALS, baseUrl: h.base, projectKey: 'XT', testExecutionSummary: summary } as unknown as XrayConfig;
  return new XrayTarget(cfg, client, lane, { runInfo: { buildId: build, description: '' } });
}

/** The runs' statuses and comments in the execution, by Test key. */
function runsOf(summary: string): Record<string, { status: string; comment: string }> {
  const e = h.state().executions.find((x: { summary: string }) => x.summary === summary);
  return Object.fromEntries(e.runs.map((r: { testKey: string; status: string; comment: string }) => [r.testKey, r]));
}

it("another shard's worse result of this build, written before or after our import, is kept, never a read-back failure", async () => {
  const summary = 'build read-back kept';
  const one = shard(summary, 's3');
  const two = shard(summary, 's3');
  await one.begin({ knownKeys: [] });
  await two.begin({ knownKeys: [] });
  // XT-9: one passes it first, then two fails it (between one's import and one's end read): the case.
  // XT-10: two fails it first, one finds it before its import and leaves it. XT-11: both pass.
  expect((await two.publish([item(10, 'FAILED')])).done).toHaveLength(1);
  expect((await one.publish([item(9, 'PASSED'), item(10, 'PASSED'), item(11, 'PASSED')])).done).toHaveLength(3);
  expect((await two.publish([item(9, 'FAILED'), item(11, 'PASSED')])).done).toHaveLength(2);
  const runs = runsOf(summary);
  expect(runs['XT-9']).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*t9 broke/) });
  expect(runs['XT-10']).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*t10 broke/) });

  const first = await one.verify([item(9, 'PASSED'), item(10, 'PASSED'), item(11, 'PASSED')]);
  expect(first).toEqual({
    ok: true,
    details: [expect.stringMatching(/holds the 3 published results \(2 kept a worse result of this build sent by another process\)$/)],
  });
  const second = await two.verify([item(9, 'FAILED'), item(10, 'FAILED'), item(11, 'PASSED')]);
  expect(second).toEqual({ ok: true, details: [expect.stringMatching(/holds the 3 published results$/)] });
});

it('a worse result of another build, a better result of this build: still read-back failures', async () => {
  const summary = 'build read-back wrong';
  const one = shard(summary, 's3');
  await one.begin({ knownKeys: [] });
  expect((await one.publish([item(20, 'PASSED'), item(21, 'FAILED'), item(22, 'PASSED')])).done).toHaveLength(3);
  const key = h.state().executions.find((x: { summary: string }) => x.summary === summary).key;
  // Between our import and our read: XT-20 failed by a process of build s2 (not ours to keep), XT-21 passed by one of
  // this build (better than ours: worst wins was broken), XT-22 failed with no build named (not ours to keep either).
  const wrote = await h.importJson({
    testExecutionKey: key,
    tests: [
      { testKey: 'XT-20', status: 'FAILED', comment: 'Playwright build: s2\n{noformat}older{noformat}' },
      { testKey: 'XT-21', status: 'PASSED', comment: 'Playwright build: s3' },
      { testKey: 'XT-22', status: 'FAILED', comment: 'changed by hand' },
    ],
  });
  expect(wrote.status).toBe(200);
  const report = await one.verify([item(20, 'PASSED'), item(21, 'FAILED'), item(22, 'PASSED')]);
  expect(report.ok).toBe(false);
  expect(report.details).toEqual([
    `XT-20: Test Execution ${key} holds FAILED (build s2), expected PASSED`,
    `XT-21: Test Execution ${key} holds PASSED, expected FAILED`,
    `XT-22: Test Execution ${key} holds FAILED (no build named), expected PASSED`,
  ]);
});
