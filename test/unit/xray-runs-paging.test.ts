import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHttp, type Http, type HttpSend } from '../../src/http/client';
import { RequestLane } from '../../src/kit/lane';
import { XrayClient } from '../../src/targets/xray/client';
import { runs } from '../../src/targets/xray/queries';
import { CREDENTIALS, startXray, type XrayHarness } from './sandbox-xray-helpers';

/**
 * The end of a run reads every run of its Test Execution back, 100 a page: the first page tells the total and the
 * other pages are asked together (the lane's slots decide how many go at once), not one after another — 20 pages
 * in a row were most of the tail after the last test (bench figure 13). Every run comes back once.
 */
let h: XrayHarness;
let http: Http;
beforeAll(async () => {
  h = await startXray({ testCount: 250 });
  http = createHttp();
});
afterAll(async () => {
  await http.close();
  await h.close();
});

it('250 runs: 3 pages, the last two asked together after the first (all three at once when 250 are known to be there); every run once', async () => {
  const tests = Array.from({ length: 250 }, (_, i) => ({ testKey: `XT-${i + 1}`, status: i % 7 === 0 ? 'FAILED' : 'PASSED' }));
  const made = await h.importJson({ info: { project: 'XT', summary: 'paging' }, tests });
  expect(made.status).toBe(200);
  const execution = h.state().executions.find((e: { summary: string }) => e.summary === 'paging');

  let inFlight = 0;
  let most = 0;
  const send: HttpSend = async (service, req) => {
    most = Math.max(most, ++inFlight);
    try {
      return await http.send(service, req);
    } finally {
      inFlight--;
    }
  };
  const lane = new RequestLane({ name: 'Xray', concurrency: 4, rateLimit: null });
  const client = new XrayClient(
    { baseUrl: h.base, clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret },
    lane,
    send,
    [],
  );
  await client.graphql('warm', 'query { getStatuses { name } }', {}); // the token first: only pages below
  most = 0;

  const all = tests.map((t) => `${t.testKey} ${t.status}`).sort();
  const read = await runs(client, String(execution.issueId));
  expect(read.map((r) => `${r.testKey} ${r.status}`).sort()).toEqual(all);
  expect(lane.stats.byLabel.getTestRuns).toBe(3);
  expect(most).toBe(2);

  // The caller sent 250: the three pages go together, with the first.
  most = 0;
  const again = await runs(client, String(execution.issueId), undefined, 250);
  expect(again.map((r) => `${r.testKey} ${r.status}`).sort()).toEqual(all);
  expect(lane.stats.byLabel.getTestRuns).toBe(6);
  expect(most).toBe(3);
});
