import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttp } from '../../src/http/client';
import { RequestLane } from '../../src/kit/lane';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { ZephyrClient, type ZephyrExecution } from '../../src/targets/zephyr/client';
import { ExecutionEvidence } from '../../src/targets/zephyr/evidence';
import { waitForJob } from '../../src/targets/zephyr/jobs';

/** The Zephyr upload against the sandbox, through the real client: the look before a repeated upload. */
let sandbox: RunningSandbox;
let http: ReturnType<typeof createHttp>;
let client: ZephyrClient;
let lane: RequestLane;
let execution: ZephyrExecution;
let cycleId: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, zephyr: { jobDelayMs: 10 } });
  const env = sandbox.env();
  http = createHttp();
  lane = new RequestLane({ name: 'Zephyr', concurrency: 1, rateLimit: null, clock: { now: () => Date.now(), sleep: async () => {} } });
  const creds = {
    baseUrl: env.ZEPHYR_BASE_URL,
    accessKey: env.ZEPHYR_ACCESS_KEY,
    secretKey: env.ZEPHYR_SECRET_KEY,
    accountId: env.ZEPHYR_ACCOUNT_ID,
  };
  client = new ZephyrClient(creds, lane, http.send, [creds.secretKey, creds.accessKey]);
  const cycle = await client.createCycleOnce('evidence unit', 10000, -1, { description: 'd' });
  cycleId = String(cycle.id);
  await waitForJob(client, await client.addTests(cycleId, ['PROJ-7'], 10000, -1), { firstPollMs: 20 });
  execution = (await client.executionsPage(cycleId, 10000, -1, 0)).items[0];
});
afterAll(async () => {
  await http?.close();
  await sandbox?.close();
});

const files = () =>
  (sandbox.state().zephyr as { cycles: Array<{ id: string; executions: Array<{ attachments: Array<{ fileName: string }> }> }> }).cycles
    .find((c) => c.id === cycleId)!
    .executions[0].attachments.map((a) => a.fileName);

describe('Zephyr execution files', () => {
  const where = () => ({ cycleId, projectId: 10000, versionId: -1 });
  const file = (fileName: string) => ({ fileName, contentType: 'text/plain', bytes: Buffer.from(`content of ${fileName}`) });

  it('an upload applied but answered 500 is not repeated: the retry looks first and finds it', async () => {
    const evidence = new ExecutionEvidence(client, lane);
    sandbox.setFaults('zephyr', { appliedFaultRate: 1 });
    try {
      expect(await evidence.attach(execution, where(), file('a.txt'), 'shot of a test', false)).toBe('present');
    } finally {
      sandbox.setFaults('zephyr', { appliedFaultRate: 0 });
    }
    expect(files()).toEqual(['a.txt']);
  });

  it('replay looks before the first upload: a file already there is not sent again', async () => {
    const evidence = new ExecutionEvidence(client, lane);
    expect(await evidence.attach(execution, where(), file('b.txt'), 'c', true)).toBe('uploaded');
    expect(await evidence.attach(execution, where(), file('b.txt'), 'c', true)).toBe('present');
    expect(files()).toEqual(['a.txt', 'b.txt']);
  });

  it('detailed step results: passed steps PASS, the failing one FAIL, steps never reached untouched', async () => {
    const evidence = new ExecutionEvidence(client, lane);
    await evidence.setSteps(execution, ['passed', 'failed']);
    const state = sandbox.state().zephyr as {
      cycles: Array<{ id: string; executions: Array<{ stepResults: Array<{ statusId: number }> }> }>;
    };
    expect(state.cycles.find((c) => c.id === cycleId)!.executions[0].stepResults.map((r) => r.statusId)).toEqual([1, 2, -1]);
  });

  it("a failure past the Zephyr test's last step FAILs that step, and the differing counts are noted (issue 31, item 2)", async () => {
    const evidence = new ExecutionEvidence(client, lane);
    await evidence.setSteps(execution, ['passed', 'passed', 'passed', 'failed']);
    const state = sandbox.state().zephyr as {
      cycles: Array<{ id: string; executions: Array<{ stepResults: Array<{ statusId: number }> }> }>;
    };
    expect(state.cycles.find((c) => c.id === cycleId)!.executions[0].stepResults.map((r) => r.statusId)).toEqual([1, 1, 2]);
    expect(evidence.stepCounts.lines()).toEqual([expect.stringContaining('(PROJ-7: 3 here, 4 in Playwright)')]);
  });
});
