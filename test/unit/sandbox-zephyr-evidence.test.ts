import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createZephyrModule, type ZephyrModule, type ZephyrSnapshot } from '../../src/sandbox/zephyr';
import { expectZephyrError, zcall, zcycleWithTests, zwaitForJob, type CallOptions } from './sandbox-zephyr-helpers';

const SUB = '5b10ac8d82e05b22cc7d4ef5';
const P = 'projectId=10000';

let sandbox: RunningSandbox;
let zephyr: ZephyrModule;
let cycleId = '';
/** issueKey -> execution id in the cycle. */
let exec: Record<string, string> = {};

const call = (method: string, path: string, o?: CallOptions) => zcall(sandbox, method, path, o);
const state = () => sandbox.state().zephyr as ZephyrSnapshot;
const executionIn = (id: string) =>
  state()
    .cycles.flatMap((c) => c.executions)
    .find((e) => e.id === id)!;

async function stepResults(executionId: string, issueId: number): Promise<any[]> {
  const r = await call('GET', `/stepresult/search?executionId=${executionId}&issueId=${issueId}`);
  expect(r.status, r.text).toBe(200);
  return r.json.stepResults;
}

async function bulk(body: Record<string, unknown>) {
  const r = await call('POST', '/executions', { json: body });
  expect(r.status, r.text).toBe(200);
  return zwaitForJob(sandbox, r.text);
}

beforeAll(async () => {
  zephyr = createZephyrModule({ jobDelayMs: 0, testSteps: { byKey: { 'PROJ-2': 5, 'PROJ-3': 0 } } });
  sandbox = await startSandboxCore([zephyr], {});
});
afterAll(() => sandbox.close());

beforeEach(async () => {
  ({ cycleId, exec } = await zcycleWithTests(sandbox, ['PROJ-1', 'PROJ-2', 'PROJ-3']));
});

describe('Zephyr sandbox: test steps and step results', () => {
  it('gives each issue its steps (1.0 array, 2.0 envelope) and the step statuses', async () => {
    const steps = await call('GET', `/teststep/100001?${P}`);
    expect(steps.status).toBe(200);
    expect(steps.json.map((s: any) => [s.id, s.orderId, s.issueId])).toEqual([
      ['step-100001-1', 1, 100001],
      ['step-100001-2', 2, 100001],
      ['step-100001-3', 3, 100001],
    ]);
    expect(steps.json[0]).toMatchObject({ step: 'Step 1 of PROJ-1', data: '', result: expect.any(String), customFieldValues: [] });
    const v2 = await call('GET', `/teststep/100002?${P}`, { api2: true });
    expect(v2.json.totalCount).toBe(5);
    expect(v2.json.testSteps.map((s: any) => s.orderId)).toEqual([1, 2, 3, 4, 5]);
    expect((await call('GET', `/teststep/100003?${P}`)).json).toEqual([]);
    expectZephyrError(await call('GET', '/teststep/100001'), 400, 'Missing parameter: projectId', 151);
    expectZephyrError(await call('GET', `/teststep/999?${P}`), 400, /Issue 999 does not exist/, 160);
    const statuses = await call('GET', '/teststep/statuses');
    expect(statuses.json.map((s: any) => [s.id, s.name])).toEqual([
      [-1, 'UNEXECUTED'],
      [1, 'PASS'],
      [2, 'FAIL'],
      [3, 'WIP'],
      [4, 'BLOCKED'],
    ]);
  });

  it('creates UNEXECUTED step results with every execution (add-tests, POST, clone), one per step', async () => {
    const results = await stepResults(exec['PROJ-1'], 100001);
    expect(results.map((r) => [r.stepId, r.orderId, r.executionId, r.issueId, r.status.id, r.status.name])).toEqual([
      ['step-100001-1', 1, exec['PROJ-1'], 100001, -1, 'UNEXECUTED'],
      ['step-100001-2', 2, exec['PROJ-1'], 100001, -1, 'UNEXECUTED'],
      ['step-100001-3', 3, exec['PROJ-1'], 100001, -1, 'UNEXECUTED'],
    ]);
    expect(new Set(results.map((r) => r.id)).size).toBe(3);
    expect((await stepResults(exec['PROJ-2'], 100002)).length).toBe(5);
    expect(await stepResults(exec['PROJ-3'], 100003)).toEqual([]);
    expect(executionIn(exec['PROJ-1']).stepResults).toEqual(
      results.map((r) => ({ id: r.id, stepId: r.stepId, orderId: r.orderId, statusId: -1, statusName: 'UNEXECUTED', changes: 0 })),
    );

    const posted = await call('POST', '/execution', { json: { issueId: 100004, projectId: 10000, versionId: -1 } });
    expect((await stepResults(posted.json.execution.id, 100004)).length).toBe(3);
    const clone = await call('POST', `/cycle?clonedCycleId=${cycleId}`, { json: { name: 'Copy', projectId: 10000, versionId: -1 } });
    const cloned = state().cycles.find((c) => c.id === clone.json.id)!.executions;
    expect(cloned.map((e) => e.stepResults.length)).toEqual([3, 5, 0]);

    expectZephyrError(await call('GET', `/stepresult/search?executionId=${exec['PROJ-1']}`), 400, 'Missing parameter: issueId', 151);
    expectZephyrError(await call('GET', `/stepresult/search?executionId=${exec['PROJ-1']}&issueId=100002`), 400, /issue 100002/, 160);
  });

  it('PUT stepresult changes that one result, counted; refuses what does not match', async () => {
    const [first, second] = await stepResults(exec['PROJ-1'], 100001);
    const body = { status: { id: 2 }, issueId: 100001, executionId: exec['PROJ-1'], comment: 'boom' };
    const put = await call('PUT', `/stepresult/${first.id}`, { json: body });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({
      id: first.id,
      stepId: first.stepId,
      status: { id: 2, name: 'FAIL' },
      comment: 'boom',
      executedBy: SUB,
    });
    await call('PUT', `/stepresult/${first.id}`, { json: { ...body, issueId: '100001' } }); // a retry; ids as strings too

    const after = await stepResults(exec['PROJ-1'], 100001);
    expect(after.map((r) => r.status.name)).toEqual(['FAIL', 'UNEXECUTED', 'UNEXECUTED']);
    expect(executionIn(exec['PROJ-1']).stepResults.map((r) => [r.statusName, r.changes])).toEqual([
      ['FAIL', 2],
      ['UNEXECUTED', 0],
      ['UNEXECUTED', 0],
    ]);

    const refused = async (b: Record<string, unknown>, id = second.id) => call('PUT', `/stepresult/${id}`, { json: b });
    expectZephyrError(await refused({ ...body, status: { id: 99 } }), 400, 'Step status 99 does not exist.', 152);
    expectZephyrError(await refused({ ...body, status: 1 }), 400, /status must be an object/, 152);
    expectZephyrError(await refused({ ...body, status: undefined }), 400, 'Missing parameter: status', 151);
    expectZephyrError(await refused({ ...body, executionId: undefined }), 400, 'Missing parameter: executionId', 151);
    expectZephyrError(await refused({ ...body, executionId: exec['PROJ-2'] }), 400, /does not belong to execution/, 160);
    expectZephyrError(await refused({ ...body, issueId: 100002 }), 400, /does not belong to issue 100002/, 160);
    expectZephyrError(await refused(body, 'no-such-result'), 400, 'Step result no-such-result does not exist.', 160);
    expect(executionIn(exec['PROJ-1']).stepResults[1]).toMatchObject({ statusId: -1, changes: 0 });
  });

  it('the bulk status job sets every step result with testStepStatusChangeFlag, and none without it', async () => {
    await bulk({ executions: [exec['PROJ-1'], exec['PROJ-2']], status: 2, testStepStatusChangeFlag: true, stepStatus: '2' });
    for (const key of ['PROJ-1', 'PROJ-2']) {
      expect(executionIn(exec[key]).stepResults.every((r) => r.statusName === 'FAIL' && r.changes === 1)).toBe(true);
    }
    expect((await stepResults(exec['PROJ-2'], 100002)).map((r) => r.status.id)).toEqual([2, 2, 2, 2, 2]);

    await bulk({ executions: [exec['PROJ-1']], status: 1, stepStatus: 1 }); // no flag: stepStatus is ignored
    expect(executionIn(exec['PROJ-1'])).toMatchObject({ statusId: 1, statusChanges: 2 });
    expect(executionIn(exec['PROJ-1']).stepResults.map((r) => [r.statusName, r.changes])).toEqual([
      ['FAIL', 1],
      ['FAIL', 1],
      ['FAIL', 1],
    ]);
    await bulk({ executions: [exec['PROJ-1']], status: 1, testStepStatusChangeFlag: false, stepStatus: 1 });
    expect(executionIn(exec['PROJ-1']).stepResults.map((r) => r.statusName)).toEqual(['FAIL', 'FAIL', 'FAIL']);

    const bad = (b: Record<string, unknown>) => call('POST', '/executions', { json: { executions: [exec['PROJ-1']], status: 1, ...b } });
    expectZephyrError(await bad({ testStepStatusChangeFlag: true }), 400, 'Missing parameter: stepStatus', 151);
    expectZephyrError(await bad({ testStepStatusChangeFlag: true, stepStatus: 42 }), 400, 'Step status 42 does not exist.', 152);
    expectZephyrError(await bad({ testStepStatusChangeFlag: 'yes', stepStatus: 1 }), 400, /testStepStatusChangeFlag/, 152);
  });
});
