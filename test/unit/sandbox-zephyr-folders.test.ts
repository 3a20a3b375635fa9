import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createZephyrModule, type ZephyrModule, type ZephyrSnapshot } from '../../src/sandbox/zephyr';
import { expectZephyrError, zcall, zcycleWithTests, zwaitForJob, type CallOptions } from './sandbox-zephyr-helpers';

const PV = 'projectId=10000&versionId=-1';

let sandbox: RunningSandbox;
let zephyr: ZephyrModule;
let cycleId = '';

const call = (method: string, path: string, o?: CallOptions) => zcall(sandbox, method, path, o);
const state = () => sandbox.state().zephyr as ZephyrSnapshot;

async function createFolder(name: string, inCycle = cycleId) {
  return call('POST', '/folder', { json: { name, cycleId: inCycle, projectId: 10000, versionId: -1, description: 'browser' } });
}

async function addToFolder(folderId: string, issues: string[], extra: Record<string, unknown> = {}) {
  const r = await call('POST', `/executions/add/folder/${folderId}`, {
    json: { issues, method: 1, projectId: 10000, versionId: -1, cycleId, ...extra },
  });
  expect(r.status, r.text).toBe(200);
  return zwaitForJob(sandbox, r.text);
}

beforeAll(async () => {
  zephyr = createZephyrModule({ jobDelayMs: 0 });
  sandbox = await startSandboxCore([zephyr], {});
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  zephyr.configure({ folderNames: 'case-insensitive' });
  ({ cycleId } = await zcycleWithTests(sandbox, ['PROJ-1', 'PROJ-2']));
});

describe('zephyr sandbox: folders of a cycle', () => {
  it('creates and lists folders: a bare array of folder objects carrying the cycle', async () => {
    const created = await createFolder('chromium');
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({
      name: 'chromium',
      cycleId,
      cycleName: 'Evidence',
      projectId: 10000,
      versionId: -1,
      description: 'browser',
    });
    // ids as strings, as one client sends them
    const second = await call('POST', '/folder', { json: { name: 'firefox', cycleId, projectId: '10000', versionId: '-1' } });
    expect(second.status, second.text).toBe(200);
    const list = await call('GET', `/folders?${PV}&cycleId=${cycleId}`);
    expect(list.status).toBe(200);
    expect(list.json.map((f: any) => [f.id, f.name, f.cycleId, f.cycleName])).toEqual([
      [created.json.id, 'chromium', cycleId, 'Evidence'],
      [second.json.id, 'firefox', cycleId, 'Evidence'],
    ]);
    expect(state().cycles[0].folders.map((f) => f.name)).toEqual(['chromium', 'firefox']);
  });

  it('answers a name already used in the cycle with 400 / errorCode 152, compared trimmed and case-insensitively', async () => {
    expect((await createFolder('Chromium')).status).toBe(200);
    expectZephyrError(await createFolder('Chromium'), 400, /already exists/, 152);
    expectZephyrError(await createFolder(' chromium '), 400, /already exists/, 152);
    // the same name in another cycle is fine
    const other = await call('POST', '/cycle', { json: { name: 'Other', projectId: 10000, versionId: -1 } });
    expect((await createFolder('Chromium', other.json.id)).status).toBe(200);
    // with exact comparison only the very same name clashes
    zephyr.configure({ folderNames: 'exact' });
    expect((await createFolder('chromium')).status).toBe(200);
    expectZephyrError(await createFolder('Chromium'), 400, /already exists/, 152);
    expect(state().cycles[0].folders.map((f) => f.name)).toEqual(['Chromium', 'chromium']);
  });

  it('files executions in a folder: the folder search lists them, the cycle search does not, the counts include them', async () => {
    const folder = (await createFolder('chromium')).json;
    const job = await addToFolder(folder.id, ['PROJ-1', 'PROJ-3', 'PROJ-999999']);
    expect(JSON.parse(job.message)).toEqual({ added: 2, existing: 0, invalid: ['PROJ-999999'] });
    // the same issue again in the folder is "existing"; PROJ-1 also stays in the root, as its own execution
    expect(JSON.parse((await addToFolder(folder.id, ['PROJ-1'])).message)).toEqual({ added: 0, existing: 1, invalid: [] });

    const inFolder = await call('GET', `/executions/search/folder/${folder.id}?${PV}&cycleId=${cycleId}&offset=0&size=50`);
    expect(inFolder.status, inFolder.text).toBe(200);
    expect(inFolder.json.totalCount).toBe(2);
    expect(inFolder.json.searchObjectList.map((w: any) => [w.issueKey, w.execution.folderId, w.execution.cycleId])).toEqual([
      ['PROJ-1', folder.id, cycleId],
      ['PROJ-3', folder.id, cycleId],
    ]);
    const v2 = await call('GET', `/executions/search/folder/${folder.id}?${PV}&cycleId=${cycleId}&offset=1`, { api2: true });
    expect(v2.json.searchResult).toMatchObject({ totalCount: 2, currentOffset: 1 });
    expect(v2.json.searchResult.searchObjectList.map((w: any) => w.issueKey)).toEqual(['PROJ-3']);

    const root = await call('GET', `/executions/search/cycle/${cycleId}?${PV}`);
    expect(root.json.totalCount).toBe(2);
    expect(root.json.searchObjectList.map((w: any) => [w.issueKey, w.execution.folderId])).toEqual([
      ['PROJ-1', null],
      ['PROJ-2', null],
    ]);
    const cycle = await call('GET', `/cycle/${cycleId}?${PV}&expand=executionSummaries`);
    expect(cycle.json.totalExecutions).toBe(4);

    const zql = await call('POST', '/zql/search', { json: { zqlQuery: 'folderName in ("chromium")', maxRecords: 50 } });
    expect(zql.json.searchObjectList.map((w: any) => w.issueKey)).toEqual(['PROJ-1', 'PROJ-3']);

    const s = state().cycles[0];
    expect(s.executions.map((e) => e.issueKey)).toEqual(['PROJ-1', 'PROJ-2']);
    expect(s.folders[0].executions.map((e) => e.issueKey)).toEqual(['PROJ-1', 'PROJ-3']);
  });

  it('bulk status and PUT take folder executions unchanged; POST execution with folderId files one there', async () => {
    const folder = (await createFolder('webkit')).json;
    const posted = await call('POST', '/execution', {
      json: { issueId: 100002, projectId: 10000, versionId: -1, cycleId, folderId: folder.id },
    });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.json.execution.folderId).toBe(folder.id);
    const again = await call('POST', '/execution', {
      json: { issueId: 100002, projectId: 10000, versionId: -1, cycleId, folderId: folder.id },
    });
    expectZephyrError(again, 400, /already exist/);
    const id = posted.json.execution.id;
    const bulk = await call('POST', '/executions', { json: { executions: [id], status: 2 } });
    await zwaitForJob(sandbox, bulk.text);
    const put = await call('PUT', `/execution/${id}`, {
      json: { issueId: 100002, projectId: 10000, cycleId, folderId: folder.id, comment: 'failed in webkit', status: { id: 2 } },
    });
    expect(put.status, put.text).toBe(200);
    const other = (await createFolder('firefox')).json;
    const wrong = await call('PUT', `/execution/${id}`, {
      json: { issueId: 100002, projectId: 10000, folderId: other.id, status: { id: 1 } },
    });
    expectZephyrError(wrong, 400, /not in folder/, 160);
    expect(state().cycles[0].folders[0].executions[0]).toMatchObject({
      issueKey: 'PROJ-2',
      statusId: 2,
      comment: 'failed in webkit',
      statusChanges: 2,
    });
  });

  it('refuses a folder of another cycle, an unknown folder, and add-to-folder without cycleId', async () => {
    const folder = (await createFolder('chromium')).json;
    const other = (await call('POST', '/cycle', { json: { name: 'Other', projectId: 10000, versionId: -1 } })).json;
    expectZephyrError(
      await call('GET', `/executions/search/folder/${folder.id}?${PV}&cycleId=${other.id}`),
      400,
      /does not exist in cycle/,
      160,
    );
    expectZephyrError(await call('GET', `/executions/search/folder/nope?${PV}&cycleId=${cycleId}`), 400, /does not exist/, 160);
    const noCycle = await call('POST', `/executions/add/folder/${folder.id}`, {
      json: { issues: ['PROJ-1'], method: 1, projectId: 10000, versionId: -1 },
    });
    expectZephyrError(noCycle, 400, 'Missing parameter: cycleId', 151);
    const post = await call('POST', '/execution', {
      json: { issueId: 100001, projectId: 10000, versionId: -1, cycleId: other.id, folderId: folder.id },
    });
    expectZephyrError(post, 400, /does not exist in cycle/, 160);
  });

  it('deleting the cycle takes its folders and their executions', async () => {
    const folder = (await createFolder('chromium')).json;
    await addToFolder(folder.id, ['PROJ-5']);
    const del = await call('DELETE', `/cycle/${cycleId}?${PV}`);
    expect(del.status).toBe(200);
    expect(state().cycles).toEqual([]);
    const byIssue = await call('GET', '/executions?issueId=100005&projectId=10000');
    expect(byIssue.json.totalCount).toBe(0);
  });
});
