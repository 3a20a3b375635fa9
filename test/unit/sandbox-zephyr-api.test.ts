import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createZephyrModule } from '../../src/sandbox/zephyr';
import { expectError, strictCall, type Reply } from './zephyr-strict-client';

const API = '/public/rest/api/1.0';
const SUB = '5b10ac8d82e05b22cc7d4ef5';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const JOB_DELAY_MS = 120;
let sandbox: RunningSandbox;
/** The jobs' clock: tests move it instead of sleeping, so a job is due exactly when the test says. */
const clock = { now: 0 };

/** Strict client: canonical qsh from atlassian-jwt, seconds, `JWT <token>`. */
const call = (method: string, pathAndQuery: string, body?: unknown, rawBody?: string): Promise<Reply> =>
  strictCall(sandbox, method, pathAndQuery, body, rawBody);

/** Moves the clock by `advance` (to the job's due time) and reads its progress once: it must be done then, not later. */
async function waitForJob(token: string, advance = JOB_DELAY_MS): Promise<any> {
  clock.now += advance;
  const r = await call('GET', `/jobprogress/${token}`);
  expect(r.status).toBe(200);
  expect(r.json.progress).toBe(1);
  return r.json;
}

beforeAll(async () => {
  sandbox = await startSandboxCore([createZephyrModule({ jobDelayMs: JOB_DELAY_MS, now: () => clock.now })], {});
});
afterAll(async () => {
  await sandbox.close();
});

describe('zephyr sandbox API', () => {
  let cycleId = '';
  const executionIds: string[] = [];

  it('lists the built-in and custom statuses', async () => {
    const r = await call('GET', '/execution/statuses');
    expect(r.status).toBe(200);
    expect(r.json.map((s: any) => s.id)).toEqual([-1, 1, 2, 3, 4, 5]);
    expect(r.json[1]).toEqual({
      id: 1,
      name: 'PASS',
      description: 'Test was executed and passed successfully.',
      color: '#75B000',
      type: 0,
    });
    expect(r.json[5]).toMatchObject({ id: 5, name: 'PARTIALLY PASSED', type: 1 });
  });

  it('creates, searches and reads cycles', async () => {
    const created = await call('POST', '/cycle?expand=&clonedCycleId=', {
      name: 'Run 1',
      projectId: '10000',
      versionId: -1,
      description: 'nightly',
      build: 'b1',
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      name: 'Run 1',
      projectId: 10000,
      versionId: -1,
      description: 'nightly',
      createdByAccountId: SUB,
      status: 'not executed',
    });
    expect(created.json.id).toMatch(UUID);
    cycleId = created.json.id;

    const dup = await call('POST', '/cycle', { name: 'Run 1', projectId: 10000, versionId: '-1' });
    expect(dup.status).toBe(200); // production allows duplicate names
    expect(dup.json.id).not.toBe(cycleId);

    const search = await call('GET', '/cycles/search?projectId=10000&versionId=-1');
    expect(search.status).toBe(200);
    expect(search.json.map((c: any) => [c.id, c.name])).toEqual([
      ['-1', 'Ad hoc'],
      [cycleId, 'Run 1'],
      [dup.json.id, 'Run 1'],
    ]);
    expect((await call('GET', '/cycles/search?projectId=10000&versionId=10100')).json.map((c: any) => c.name)).toEqual(['Ad hoc']);

    const got = await call('GET', `/cycle/${cycleId}?projectId=10000&versionId=-1&expand=executionSummaries`);
    expect(got.json).toMatchObject({ id: cycleId, status: 'not executed', totalExecutions: 0, totalExecuted: 0, executionSummaries: [] });
    await call('DELETE', `/cycle/${dup.json.id}?projectId=10000&versionId=-1`);
  });

  it('validates cycle input', async () => {
    expectError(await call('POST', '/cycle', { projectId: 10000, versionId: -1 }), 400, 'Missing parameter: name', 151);
    expectError(await call('POST', '/cycle', { name: 'x', versionId: -1 }), 400, 'Missing parameter: projectId', 151);
    expectError(await call('POST', '/cycle', { name: 'x', projectId: 10000 }), 400, 'Missing parameter: versionId', 151);
    expectError(await call('POST', '/cycle', { name: 'x', projectId: 99999, versionId: -1 }), 400, /99999/, 160);
    expectError(await call('POST', '/cycle', { name: 'x', projectId: 10000, versionId: 4242 }), 400, /4242/, 160);
    expectError(await call('GET', '/cycles/search?projectId=99999&versionId=-1'), 400, /99999/, 160);
    expectError(await call('GET', '/cycles/search?projectId=10000&versionId=777'), 400, /777/, 160);
    expectError(await call('GET', `/cycle/nope?projectId=10000&versionId=-1`), 400, /nope/, 160);
    expectError(await call('POST', '/cycle', undefined, '{"name": "x",'), 400, 'Invalid Json');
  });

  it('add tests: method is required; only method 1; at most 100 issues', async () => {
    const body = { projectId: 10000, versionId: -1, issues: ['PROJ-1'] };
    expectError(await call('POST', `/executions/add/cycle/${cycleId}`, body), 400, 'method field is required.');
    expectError(
      await call('POST', `/executions/add/cycle/${cycleId}`, { ...body, method: 2, jql: 'x' }),
      400,
      /not supported by the sandbox/,
    );
    const many = Array.from({ length: 101 }, (_, i) => `PROJ-${i + 1}`);
    expectError(await call('POST', `/executions/add/cycle/${cycleId}`, { ...body, method: 1, issues: many }), 400, /100/);
  });

  it('add tests is asynchronous: invisible until the job reports progress 1, idempotent on re-add', async () => {
    const add = await call('POST', `/executions/add/cycle/${cycleId}`, {
      method: '1',
      projectId: 10000,
      versionId: -1,
      issues: ['PROJ-1', 'PROJ-2', 'PROJ-999999', 'PROJ-3'],
    });
    expect(add.status).toBe(200);
    expect(add.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(add.text).toMatch(UUID); // bare token, not JSON
    const before = await call('GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1&offset=0&size=50`);
    expect(before.json).toEqual({ searchObjectList: [], totalCount: 0 });
    clock.now += JOB_DELAY_MS - 1; // one ms before it is due: still running, still invisible
    const progress = await call('GET', `/jobprogress/${add.text}`);
    expect(progress.json.progress).toBeLessThan(1);
    expect(progress.json.progress).toBeGreaterThan(0.9);
    expect(progress.json.errorMessage).toBeNull();
    const stillBefore = await call('GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1`);
    expect(stillBefore.json.totalCount).toBe(0);

    const done = await waitForJob(add.text, 1);
    expect(done.progress).toBe(1);
    expect(JSON.parse(done.message)).toEqual({ added: 3, existing: 0, invalid: ['PROJ-999999'] });
    const after = await call('GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1`);
    expect(after.json.totalCount).toBe(3);
    expect(
      after.json.searchObjectList.map((w: any) => [w.issueKey, w.execution.issueId, w.execution.orderId, w.execution.status.name]),
    ).toEqual([
      ['PROJ-1', 100001, 1, 'UNEXECUTED'],
      ['PROJ-2', 100002, 2, 'UNEXECUTED'],
      ['PROJ-3', 100003, 3, 'UNEXECUTED'],
    ]);

    const again = await call('POST', `/executions/add/cycle/${cycleId}`, {
      method: 1,
      projectId: '10000',
      versionId: '-1',
      issues: ['PROJ-2', 'PROJ-4'],
    });
    expect(JSON.parse((await waitForJob(again.text)).message)).toEqual({ added: 1, existing: 1, invalid: [] });
    const all = await call('GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1`);
    expect(all.json.totalCount).toBe(4);
    for (const w of all.json.searchObjectList) executionIds.push(w.execution.id);
    expectError(await call('GET', '/jobprogress/no-such-job'), 400, /no-such-job/);
  });

  it('pages executions: size ≤ 50, 0-based offset', async () => {
    expectError(
      await call('GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1&offset=0&size=51`),
      400,
      'size of query chunk should not exceed 50',
    );
    const page = await call('GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1&offset=1&size=2`);
    expect(page.json.totalCount).toBe(4);
    expect(page.json.searchObjectList.map((w: any) => w.issueKey)).toEqual(['PROJ-2', 'PROJ-3']);
  });

  it('POST /execution: duplicates are refused, Ad hoc by default, unknown issues 400; GET /execution is 405', async () => {
    expectError(await call('POST', '/execution', { issueId: 100002, projectId: 10000, versionId: -1, cycleId }), 400, /already exist/);
    const created = await call('POST', '/execution', { issueId: '100010', projectId: '10000', versionId: '-1', cycleId });
    expect(created.status).toBe(200);
    expect(created.json.execution).toMatchObject({ issueId: 100010, cycleId, orderId: 5, status: { id: -1 } });
    expect(created.json.issueKey).toBe('PROJ-10');
    executionIds.push(created.json.execution.id);
    const adHoc = await call('POST', '/execution', { issueId: 100011, projectId: 10000, versionId: -1, status: { id: 2 } });
    expect(adHoc.json.execution).toMatchObject({
      cycleId: '-1',
      cycleName: 'Ad hoc',
      status: { id: 2, name: 'FAIL' },
      executedByAccountId: SUB,
    });
    expectError(await call('POST', '/execution', { issueId: 999, projectId: 10000, versionId: -1, cycleId }), 400, /999/, 160);
    expectError(await call('POST', '/execution', { projectId: 10000, versionId: -1, cycleId }), 400, 'Missing parameter: issueId', 151);
    const wrongVerb = await call('GET', '/execution');
    expectError(wrongVerb, 405, /POST/);
  });

  it('PUT /execution: issueId and projectId are required; status sets executedOn/executedBy', async () => {
    const id = executionIds[0];
    expectError(await call('PUT', `/execution/${id}`, { projectId: 10000, status: { id: 1 } }), 400, 'Missing parameter: issueId', 151);
    expectError(await call('PUT', `/execution/${id}`, { issueId: 100001, status: { id: 1 } }), 400, 'Missing parameter: projectId', 151);
    expectError(await call('PUT', `/execution/${id}`, { issueId: 100001, projectId: 10000, status: { id: 99 } }), 400, /99/);
    expectError(await call('PUT', `/execution/${id}`, { issueId: 100001, projectId: 10000, status: 1 }), 400, /\{"id": 1\}/);
    const put = await call('PUT', `/execution/${id}`, {
      issueId: 100001,
      projectId: 10000,
      cycleId,
      versionId: -1,
      status: { id: 1 },
      comment: 'ok',
    });
    expect(put.status).toBe(200);
    expect(put.json.execution).toMatchObject({ id, status: { id: 1, name: 'PASS' }, comment: 'ok', executedByAccountId: SUB });
    expect(put.json.execution.executedOn).toBeGreaterThan(0);
    const read = await call('GET', `/execution/${id}?issueId=100001&projectId=10000`);
    expect(read.json.execution.status.id).toBe(1);
    const cycle = await call('GET', `/cycle/${cycleId}?projectId=10000&versionId=-1`);
    expect(cycle.json.status).toBe('in progress');
    const back = await call('PUT', `/execution/${id}`, { issueId: 100001, projectId: 10000, status: { id: -1 } });
    expect(back.json.execution.executedOn).toBeUndefined();
    await call('PUT', `/execution/${id}`, { issueId: 100001, projectId: 10000, status: { id: '1' } });
  });

  it('bulk status runs as a job; unknown ids are reported and skipped', async () => {
    const r = await call('POST', '/executions', {
      executions: [...executionIds, 'no-such-execution'],
      status: '2',
      clearDefectMappingFlag: false,
    });
    expect(r.status).toBe(200);
    const done = await waitForJob(r.text);
    expect(JSON.parse(done.message)).toEqual({ updated: executionIds.length, notFound: ['no-such-execution'] });
    const cycle = await call('GET', `/cycle/${cycleId}?projectId=10000&versionId=-1&expand=executionSummaries`);
    expect(cycle.json).toMatchObject({ status: 'done', totalExecutions: 5, totalExecuted: 5 });
    expect(cycle.json.executionSummaries).toEqual([{ executionStatusName: 'FAIL', executionStatusColor: '#CC3300', count: 5 }]);
    expectError(await call('POST', '/executions', { executions: executionIds, status: 42 }), 400, /42/);
    const tooMany = Array.from({ length: 1001 }, (_, i) => `e-${i}`);
    expectError(await call('POST', '/executions', { executions: tooMany, status: 1 }), 400, /1000/);
  });

  it('DELETE /execution needs issueId and projectId', async () => {
    const id = executionIds[4];
    expectError(await call('DELETE', `/execution/${id}?projectId=10000`), 400, 'Missing parameter: issueId', 151);
    expectError(await call('DELETE', `/execution/${id}?issueId=100010`), 400, 'Missing parameter: projectId', 151);
    expect((await call('DELETE', `/execution/${id}?projectId=10000&issueId=100010`)).status).toBe(200);
    executionIds.pop();
  });

  it('snapshot has the documented plain-JSON shape; routes are templated in stats', async () => {
    const snap = sandbox.state().zephyr as any;
    expect(snap.jobs).toEqual({ total: 3, pending: 0 });
    expect(snap.statuses).toHaveLength(6);
    expect(snap.cycles.map((c: any) => c.name)).toEqual(['Run 1', 'Ad hoc']);
    const [run] = snap.cycles;
    expect(run).toEqual({
      id: cycleId,
      name: 'Run 1',
      projectId: 10000,
      versionId: -1,
      description: 'nightly',
      build: 'b1',
      environment: '',
      createdByAccountId: SUB,
      executions: expect.any(Array),
      folders: [],
    });
    expect(run.executions[0]).toEqual({
      id: executionIds[0],
      issueId: 100001,
      issueKey: 'PROJ-1',
      statusId: 2,
      comment: 'ok',
      executedOn: expect.any(Number),
      orderId: 1,
      statusChanges: 4,
      statusHistory: [1, -1, 1, 2],
      createdVia: 'add-tests',
      stepResults: expect.any(Array),
      attachments: [],
    });
    expect(run.executions.map((e: any) => e.statusChanges)).toEqual([4, 1, 1, 1]);
    expect(run.executions.map((e: any) => e.statusHistory.length)).toEqual([4, 1, 1, 1]);
    const routes = sandbox.stats().zephyr.byRoute;
    expect(routes['POST /cycle']).toBeGreaterThan(0);
    expect(routes['GET /executions/search/cycle/:id']).toBeGreaterThan(0);
    expect(routes['GET /jobprogress/:token']).toBeGreaterThan(0);
    expect(routes['GET /execution']).toBe(1);
  });

  it('updates and deletes a cycle with its executions; reset clears everything', async () => {
    const put = await call('PUT', `/cycle/${cycleId}`, { name: 'Run 1 (renamed)', projectId: 10000, versionId: -1 });
    expect(put.json).toMatchObject({ id: cycleId, name: 'Run 1 (renamed)', description: 'nightly' });
    const del = await call('DELETE', `/cycle/${cycleId}?projectId=10000&versionId=-1`);
    expect(del.json).toEqual({ message: 'Cycle Run 1 (renamed) deleted successfully.' });
    expectError(await call('GET', `/execution/${executionIds[0]}?issueId=100001&projectId=10000`), 400, /does not exist/, 160);
    expect((sandbox.state().zephyr as any).cycles.map((c: any) => c.name)).toEqual(['Ad hoc']);
    sandbox.reset();
    expect(sandbox.state().zephyr).toMatchObject({ cycles: [], jobs: { total: 0, pending: 0 } });
  });
});
