import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttp, type Http } from '../../src/http/client';
import { RequestLane } from '../../src/kit/lane';
import type { PlanItem } from '../../src/shared/model';
import { XrayClient } from '../../src/targets/xray/client';
import type { XrayConfig } from '../../src/targets/xray/config';
import { xrayPriority } from '../../src/targets/xray/definition';
import { XrayTarget } from '../../src/targets/xray/publisher';
import { READ_BACK } from '../../src/targets/xray/read-back';
import { CREDENTIALS, startXray, type XrayHarness } from './sandbox-xray-helpers';

/**
 * A local run's runs are read back during the run, after each confirmed import (bench figure 13: the end's read of
 * every page was most of the tail after the last test). The end reads only what was not read after its last send:
 * here the last batch and a key sent again after its read. A run that differs when read mid-run is a detail line at
 * the end; a change someone else makes after our read is not ours to catch (read-back.ts states the rule).
 */
let h: XrayHarness;
let http: Http;
beforeAll(async () => {
  h = await startXray({ testCount: 300 });
  http = createHttp();
});
afterAll(async () => {
  await http.close();
  await h.close();
});

const item = (n: number, status = 'PASSED'): PlanItem => ({
  key: `XT-${n}`,
  outcome: status === 'FAILED' ? 'failed' : 'passed',
  status,
  comment: '',
  tests: [`t${n}`],
});
const range = (from: number, to: number, status?: string) => Array.from({ length: to - from + 1 }, (_, i) => item(from + i, status));

/** Waits for an observable count (the read-back runs behind the imports, in the background). */
async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what()).toBe(true);
}

it('after the first reads, only the last batch and a key sent again are read; a run wrong when read mid-run is still a detail line', async () => {
  const lane = new RequestLane({ name: 'Xray', concurrency: 4, rateLimit: null });
  const client = new XrayClient(
    { baseUrl: h.base, clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret },
    lane,
    (service, req) => http.send(service, req),
    [],
  );
  const cfg = { ...CREDENTIALS, baseUrl: h.base, projectKey: 'XT', testExecutionSummary: 'read-back' } as unknown as XrayConfig;
  const target = new XrayTarget(cfg, client, lane);
  const reads = () => (lane.stats.byLabel.readBack ?? 0) + (lane.stats.byLabel.getTestRuns ?? 0);
  await target.begin({ knownKeys: range(1, 250).map((i) => i.key) });

  // XT-7 "BOGUS": the sandbox stores TODO (Xray's silent fallback); its mid-run read must not pass for a match.
  const first = range(1, 100).map((i) => (i.key === 'XT-7' ? { ...i, status: 'BOGUS' } : i));
  const second = range(101, 200);
  const last = range(201, 250);
  expect((await target.publish(first)).done).toHaveLength(100);
  expect((await target.publish(second)).done).toHaveLength(100);
  await until(() => reads() === 2);
  const before = reads();

  // Someone else changes XT-150 after our read: not ours to catch (a local run is a build of its own).
  const execution = h.state().executions.find((e: { summary: string }) => e.summary === 'read-back');
  expect((await h.importJson({ testExecutionKey: execution.key, tests: [{ testKey: 'XT-150', status: 'FAILED' }] })).status).toBe(200);
  // XT-3 sent again (a worst-wins correction) after its read: the end reads it again, never trusting that read.
  expect((await target.publish([item(3, 'FAILED')])).done).toHaveLength(1);
  expect((await target.publish(last)).done).toHaveLength(50);

  const sent = [...first.filter((i) => i.key !== 'XT-3'), item(3, 'FAILED'), ...second, ...last];
  const report = await target.verify(sent);
  // The read-backs of the two last imports only (the end reads nothing more); before: every page at the end (3).
  expect(reads() - before).toBe(2);
  expect(report.ok).toBe(false);
  expect(report.details).toEqual(['XT-7: Test Execution ' + execution.key + ' holds TODO, expected BOGUS']);
});

it('in the lane, a read-back and evidence asked before an import go after it (statuses first, files last)', async () => {
  const lane = new RequestLane({ name: 'Xray', concurrency: 1, rateLimit: null, priorityOf: xrayPriority });
  let free!: () => void;
  const busy = lane.send('import', () => new Promise<void>((r) => (free = r)));
  await until(() => lane.stats.calls === 1);
  const order: string[] = [];
  const evidence = lane.send('addEvidenceToTestRun', async () => void order.push('evidence'));
  const read = lane.send(READ_BACK, async () => void order.push(READ_BACK));
  const status = lane.send('import', async () => void order.push('import'));
  free();
  await Promise.all([busy, evidence, read, status]);
  // Evidence asked first still goes last: files trail statuses and their read-back.
  expect(order).toEqual(['import', READ_BACK, 'evidence']);
});

it('a read-back that fails mid-run leaves its keys to the end, which reads them', async () => {
  let cut = 1;
  const lane = new RequestLane({ name: 'Xray', concurrency: 4, rateLimit: null });
  const client = new XrayClient(
    { baseUrl: h.base, clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret },
    lane,
    async (service, req) => {
      if (typeof req.body === 'string' && req.body.includes('getTestRuns') && cut-- > 0) throw new Error('the read is cut');
      return http.send(service, req);
    },
    [],
  );
  const cfg = { ...CREDENTIALS, baseUrl: h.base, projectKey: 'XT', testExecutionSummary: 'read-back cut' } as unknown as XrayConfig;
  const target = new XrayTarget(cfg, client, lane);
  await target.begin({ knownKeys: range(1, 150).map((i) => i.key) });
  expect((await target.publish(range(1, 100))).done).toHaveLength(100);
  await until(() => cut < 0 || lane.stats.byLabel.readBack === 1);
  expect((await target.publish(range(101, 150, 'FAILED'))).done).toHaveLength(50);
  const report = await target.verify([...range(1, 100), ...range(101, 150, 'FAILED')]);
  expect(report).toMatchObject({ ok: true });
  // The cut read, the last batch's read, and the end's read of the first batch's keys.
  expect(lane.stats.byLabel.readBack).toBe(3);
});
