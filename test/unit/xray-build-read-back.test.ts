import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttp, type Http } from '../../src/http/client';
import { RequestLane } from '../../src/kit/lane';
import type { PlanItem } from '../../src/shared/model';
import { XrayClient, type ImportAnswer } from '../../src/targets/xray/client';
import type { XrayConfig } from '../../src/targets/xray/config';
import { XrayTarget } from '../../src/targets/xray/publisher';
import { CREDENTIALS, startXray, type XrayHarness } from './sandbox-xray-helpers';

/**
 * Two processes of one CI build (two shards, both `s3`) write the same execution, each through its own target;
 * the steps run one after another here, so every interleaving is exact. What the end's read-back of one process
 * makes of a run the other wrote: a worse result of this build is kept, whenever it was written (before our
 * import, or between our import and our read); a better one (of any build) gets ours again at the end, and what
 * stays is judged; a worse result of another build, or none, is a failure.
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
  return shardWithLane(summary, build).target;
}

/**
 * A shard with its lane (its calls, by label); `aroundImport` wraps each of its imports (a test holds them on a gate:
 * the import waits until `go` is called).
 */
function shardWithLane(
  summary: string,
  build: string,
  aroundImport?: (go: () => Promise<ImportAnswer>) => Promise<ImportAnswer>,
  statusMap: Record<string, string> = {},
): { target: XrayTarget; lane: RequestLane } {
  const lane = new RequestLane({ name: 'Xray', concurrency: 4, rateLimit: null });
  const client = new XrayClient(
    { baseUrl: h.base, clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret },
    lane,
    (service, req) => http.send(service, req),
    [],
  );
  if (aroundImport) {
    const importExecution = client.importExecution.bind(client);
    client.importExecution = (...args) => aroundImport(() => importExecution(...args));
  }
  const cfg = { ...CREDENTIALS, baseUrl: h.base, projectKey: 'XT', testExecutionSummary: summary, statusMap } as unknown as XrayConfig;
  return { target: new XrayTarget(cfg, client, lane, { runInfo: { buildId: build, description: '' } }), lane };
}

/** A promise and the function that settles it. */
function signal(): { done: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const done = new Promise<void>((resolve) => (fire = resolve));
  return { done, fire };
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

it("both shards read before either imports: the FAIL the other shard's PASS overwrote is sent again at the end, once", async () => {
  const summary = 'build read-back race';
  // The gate: shard 1's imports wait until shard 2's first import is done; shard 2's wait until shard 1 reached its
  // import (its read before it done). So both reads come before either import, and shard 1's PASS goes last.
  const oneRead = signal();
  const twoImported = signal();
  const { target: one, lane: oneLane } = shardWithLane(summary, 's3', async (go) => {
    oneRead.fire();
    await twoImported.done;
    return go();
  });
  const { target: two, lane: twoLane } = shardWithLane(summary, 's3', async (go) => {
    await oneRead.done;
    try {
      return await go();
    } finally {
      twoImported.fire();
    }
  });
  await one.begin({ knownKeys: [] });
  await two.begin({ knownKeys: [] });
  // XT-30: the case (shard 2 fails it, shard 1 passes it over). XT-31: both pass. XT-32: shard 1 fails it
  // over shard 2's pass (the worse one last: nothing to correct).
  const ones = [item(30, 'PASSED'), item(31, 'PASSED'), item(32, 'FAILED')];
  const twos = [item(30, 'FAILED'), item(31, 'PASSED'), item(32, 'PASSED')];
  const [a, b] = await Promise.all([one.publish(ones), two.publish(twos)]);
  expect([a.done.length, b.done.length]).toEqual([3, 3]);
  expect(runsOf(summary)['XT-30'].status).toBe('PASSED');
  const imports = () => [oneLane.stats.byLabel.import ?? 0, twoLane.stats.byLabel.import ?? 0];
  expect(imports()).toEqual([1, 1]);

  // Shard 2's end: XT-30 holds a better result than its FAIL, which goes again: one import, no read of its own.
  const twoCalls = twoLane.stats.calls;
  expect(await two.verify(twos)).toEqual({
    ok: true,
    details: [expect.stringMatching(/holds the 3 published results \(1 kept a worse result of this build sent by another process\)$/)],
  });
  expect(twoLane.stats.calls - twoCalls).toBe(2);
  expect(imports()).toEqual([1, 2]);
  // Shard 1's end: the FAIL of XT-30 is this build's and worse than its PASS, kept; nothing sent (no loop).
  expect(await one.verify(ones)).toEqual({
    ok: true,
    details: [expect.stringMatching(/holds the 3 published results \(1 kept a worse result of this build sent by another process\)$/)],
  });
  expect(imports()).toEqual([1, 2]);
  const runs = runsOf(summary);
  expect(runs['XT-30']).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*t30 broke/) });
  expect(runs['XT-31'].status).toBe('PASSED');
  expect(runs['XT-32']).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*t32 broke/) });
});

it('a worse result of another build is a read-back failure; a better one, of any build, gets ours again', async () => {
  const summary = 'build read-back wrong';
  const { target: one, lane } = shardWithLane(summary, 's3');
  await one.begin({ knownKeys: [] });
  const sent = [item(20, 'PASSED'), item(21, 'FAILED'), item(22, 'PASSED'), item(23, 'FAILED')];
  expect((await one.publish(sent)).done).toHaveLength(4);
  const key = h.state().executions.find((x: { summary: string }) => x.summary === summary).key;
  // Between our import and our read: XT-20 failed by a process of build s2 (not ours to keep), XT-21 passed by one of
  // this build and XT-23 by one of build s2 (better than ours: worst wins was broken), XT-22 failed with no build named.
  const wrote = await h.importJson({
    testExecutionKey: key,
    tests: [
      { testKey: 'XT-20', status: 'FAILED', comment: 'Playwright build: s2\n{noformat}older{noformat}' },
      { testKey: 'XT-21', status: 'PASSED', comment: 'Playwright build: s3' },
      { testKey: 'XT-22', status: 'FAILED', comment: 'changed by hand' },
      { testKey: 'XT-23', status: 'PASSED', comment: 'Playwright build: s2' },
    ],
  });
  expect(wrote.status).toBe(200);
  const report = await one.verify(sent);
  expect(report.ok).toBe(false);
  expect(report.details).toEqual([
    `XT-20: Test Execution ${key} holds FAILED (build s2), expected PASSED`,
    `XT-22: Test Execution ${key} holds FAILED (no build named), expected PASSED`,
  ]);
  // XT-21 and XT-23 got our FAIL again, in one import.
  expect(lane.stats.byLabel.import).toBe(2);
  const runs = runsOf(summary);
  expect(runs['XT-21']).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*t21 broke/) });
  expect(runs['XT-23']).toMatchObject({ status: 'FAILED', comment: expect.stringMatching(/^Playwright build: s3\n.*t23 broke/) });
});

it('a result that could not be sent again is a read-back failure that says why', async () => {
  const summary = 'build read-back refused';
  const one = shard(summary, 's3');
  await one.begin({ knownKeys: [] });
  expect((await one.publish([item(40, 'FAILED')])).done).toHaveLength(1);
  const key = h.state().executions.find((x: { summary: string }) => x.summary === summary).key;
  const wrote = await h.importJson({
    testExecutionKey: key,
    tests: [{ testKey: 'XT-40', status: 'PASSED', comment: 'Playwright build: s3' }],
  });
  expect(wrote.status).toBe(200);
  h.module.configure({ operationFaults: [{ operation: 'import', applied: false, status: 400 }] });
  const report = await one.verify([item(40, 'FAILED')]);
  expect(report.ok).toBe(false);
  expect(report.details).toEqual([
    expect.stringMatching(new RegExp(`^XT-40: Test Execution ${key} holds PASSED, expected FAILED \\(sending FAILED again failed: .*400`)),
  ]);
  expect(runsOf(summary)['XT-40'].status).toBe('PASSED');
});

it("a custom status name is ranked by what the status map makes it mean: another shard's failure under it is kept", async () => {
  const summary = 'build read-back custom status';
  // The tenant's FLAKY stands for a failure here (`statusMap.failed`): it must outrank a PASSED, whatever ours is.
  const [one, two] = [1, 2].map(() => shardWithLane(summary, 's3', undefined, { failed: 'FLAKY' }).target);
  for (const t of [one, two]) {
    await t.resolveStatuses('service');
    await t.begin({ knownKeys: [] });
  }
  const failed: PlanItem = { ...item(40, 'FAILED'), status: 'FLAKY' };
  expect((await two.publish([failed])).done).toHaveLength(1);
  expect((await one.publish([item(40, 'PASSED')])).done).toHaveLength(1);
  expect(runsOf(summary)['XT-40']).toMatchObject({ status: 'FLAKY', comment: expect.stringMatching(/^Playwright build: s3\n.*t40 broke/) });
  expect(await one.verify([item(40, 'PASSED')])).toMatchObject({ ok: true });
});
