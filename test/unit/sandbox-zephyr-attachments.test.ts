import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createZephyrModule, type ZephyrModule, type ZephyrSnapshot } from '../../src/sandbox/zephyr';
import { expectZephyrError, zcall, zcycleWithTests, type CallOptions } from './sandbox-zephyr-helpers';

const SUB = '5b10ac8d82e05b22cc7d4ef5';

let sandbox: RunningSandbox;
let zephyr: ZephyrModule;
let cycleId = '';
let exec: Record<string, string> = {};

const call = (method: string, path: string, o?: CallOptions) => zcall(sandbox, method, path, o);
const executions = () => (sandbox.state().zephyr as ZephyrSnapshot).cycles.flatMap((c) => c.executions);
const attachmentsOf = (executionId: string) => executions().find((e) => e.id === executionId)!.attachments;
const allAttachments = () => executions().flatMap((e) => e.attachments);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The upload query as production wants it: all metadata, each value percent-encoded (space → %20). */
function query(entityId: string, over: Record<string, string | undefined> = {}): string {
  const q: Record<string, string | undefined> = {
    comment: 'from CI run 7',
    cycleId,
    entityId,
    entityName: 'execution',
    issueId: '100001',
    projectId: '10000',
    versionId: '-1',
    ...over,
  };
  return Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`)
    .join('&');
}

function fileForm(content: Uint8Array | string, name: string, type: string, field = 'file'): FormData {
  const form = new FormData();
  form.append(field, new Blob([content], { type }), name);
  return form;
}

const upload = (q: string, form: FormData, signAs?: string) =>
  call('POST', `/attachment?${q}`, { form, signAs: signAs === undefined ? undefined : `/attachment?${signAs}` });

beforeAll(async () => {
  zephyr = createZephyrModule({ jobDelayMs: 0 });
  sandbox = await startSandboxCore([zephyr], {});
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  ({ cycleId, exec } = await zcycleWithTests(sandbox, ['PROJ-1', 'PROJ-2']));
});

describe('Zephyr sandbox: attachments', () => {
  it('stores a binary file intact and answers 200 with its description; the execution search lists it', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const r = await upload(query(exec['PROJ-1']), fileForm(bytes, 'trace.zip', 'application/zip'));
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      id: expect.any(String),
      fileName: 'trace.zip',
      name: 'trace.zip',
      fileExtension: 'zip',
      size: 256,
      contentType: 'application/zip',
      comment: 'from CI run 7',
      entityName: 'execution',
      entityId: exec['PROJ-1'],
      executionId: exec['PROJ-1'],
      issueId: 100001,
      projectId: 10000,
      versionId: -1,
      cycleId,
      createdBy: SUB,
      createdByAccountId: SUB,
      dateCreated: expect.any(Number),
    });
    expect(attachmentsOf(exec['PROJ-1'])).toEqual([
      {
        id: r.json.id,
        fileName: 'trace.zip',
        size: 256,
        sha256: sha256(bytes),
        contentType: 'application/zip',
        comment: 'from CI run 7',
        entityName: 'execution',
        entityId: exec['PROJ-1'],
      },
    ]);
    expect(zephyr.attachmentBytes(r.json.id)?.equals(Buffer.from(bytes))).toBe(true);
    expect(sandbox.stats().zephyr.byRoute['POST /attachment']).toBe(1);

    const search = await call('GET', `/attachment/search/execution?entityId=${exec['PROJ-1']}`);
    expect(search.status).toBe(200);
    expect(search.json).toEqual({ [exec['PROJ-1']]: [r.json] });
    expect((await call('GET', `/attachment/search/execution?entityId=${exec['PROJ-2']}&issueId=100002&projectId=10000`)).json).toEqual({
      [exec['PROJ-2']]: [],
    });
    expectZephyrError(await call('GET', '/attachment/search/execution'), 400, 'Missing parameter: entityId', 151);
    expectZephyrError(await call('GET', `/attachment/search/execution?entityId=${exec['PROJ-1']}&issueId=100002`), 400, /100002/, 160);
  });

  it('attaches to a step result; the execution search leaves it out, the state view shows it', async () => {
    const results = await call('GET', `/stepresult/search?executionId=${exec['PROJ-1']}&issueId=100001`);
    const stepResult = results.json.stepResults[1].id;
    const q = query(stepResult, { entityName: 'stepResult', executionId: exec['PROJ-1'], comment: '' });
    const r = await upload(q, fileForm('step 2 log', 'step-2.txt', 'text/plain'));
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ entityName: 'stepResult', entityId: stepResult, executionId: exec['PROJ-1'], comment: '' });
    expect(attachmentsOf(exec['PROJ-1'])).toMatchObject([{ entityName: 'stepResult', entityId: stepResult, size: 10 }]);
    expect((await call('GET', `/attachment/search/execution?entityId=${exec['PROJ-1']}`)).json).toEqual({ [exec['PROJ-1']]: [] });
    const wrongExecution = query(stepResult, { entityName: 'stepResult', executionId: exec['PROJ-2'] });
    expectZephyrError(await upload(wrongExecution, fileForm('x', 'x.txt', 'text/plain')), 400, /does not belong to execution/, 160);
  });

  it('checks the qsh over the whole attachment query (a token signed without one parameter is refused)', async () => {
    const full = query(exec['PROJ-1']);
    const withoutComment = query(exec['PROJ-1'], { comment: undefined });
    const r = await upload(full, fileForm('log', 'a.txt', 'text/plain'), withoutComment);
    expect(r.status).toBe(401);
    expect(r.json.clientMessage).toMatch(
      /^Expecting claim 'qsh' to have value '[0-9a-f]{64}' but instead it has the value '[0-9a-f]{64}'$/,
    );
    // Values count as well as names: a token for another comment does not carry this one.
    const otherComment = query(exec['PROJ-1'], { comment: 'from CI run 8' });
    expect((await upload(full, fileForm('log', 'a.txt', 'text/plain'), otherComment)).status).toBe(401);
    expect(allAttachments()).toEqual([]);
    expect((await upload(full, fileForm('log', 'a.txt', 'text/plain'))).status).toBe(200);
  });

  it('refuses an upload without a file part named "file", or that is not multipart', async () => {
    const q = query(exec['PROJ-1']);
    expectZephyrError(
      await upload(q, fileForm('log', 'a.txt', 'text/plain', 'files')),
      400,
      /^Missing parameter: file .*parts received: files\)/,
      151,
    );
    const text = new FormData();
    text.append('file', 'just text');
    expectZephyrError(await upload(q, text), 400, /parts received: file \(text\)/, 151);
    expectZephyrError(await upload(q, new FormData()), 400, /parts received: none/, 151);
    const two = fileForm('a', 'a.txt', 'text/plain');
    two.append('file', new Blob(['b']), 'b.txt');
    expectZephyrError(await upload(q, two), 400, /One file per upload/, 152);
    expectZephyrError(await call('POST', `/attachment?${q}`, { json: { file: 'x' } }), 400, /multipart\/form-data/);
    expect(allAttachments()).toEqual([]);
  });

  it('refuses metadata that does not name an existing entity with its own cycle, issue, project and version', async () => {
    const form = () => fileForm('log', 'a.txt', 'text/plain');
    const e = exec['PROJ-1'];
    expectZephyrError(await upload(query(e, { entityName: 'test' }), form()), 400, /entityName: "test"/, 152);
    expectZephyrError(await upload(query(e, { entityName: undefined }), form()), 400, 'Missing parameter: entityName', 151);
    expectZephyrError(await upload(query(e, { cycleId: undefined }), form()), 400, 'Missing parameter: cycleId', 151);
    expectZephyrError(await upload(query('nope'), form()), 400, 'Execution nope does not exist.', 160);
    expectZephyrError(await upload(query('nope', { entityName: 'stepResult' }), form()), 400, 'Step result nope does not exist.', 160);
    expectZephyrError(await upload(query(e, { cycleId: '-1' }), form()), 400, /is not in cycle -1/, 160);
    expectZephyrError(await upload(query(e, { versionId: '10100' }), form()), 400, /is not in version 10100/, 160);
    expectZephyrError(await upload(query(e, { issueId: '100002' }), form()), 400, /issue 100002/, 160);
    expectZephyrError(await upload(query(e, { projectId: '10001' }), form()), 400, /project 10001/, 160);
    expect(allAttachments()).toEqual([]);
  });

  it('deletes an attachment; deleting the execution takes its attachments along', async () => {
    const a = (await upload(query(exec['PROJ-1']), fileForm('one', 'one.txt', 'text/plain'))).json.id;
    const b = (await upload(query(exec['PROJ-1']), fileForm('two', 'two.txt', 'text/plain'))).json.id;
    expectZephyrError(await call('GET', `/attachment/${a}`), 405, /downloads are not served by the sandbox/);
    const del = await call('DELETE', `/attachment/${a}`);
    expect(del.status).toBe(200);
    expect(attachmentsOf(exec['PROJ-1']).map((x) => x.id)).toEqual([b]);
    expect(zephyr.attachmentBytes(a)).toBeUndefined();
    expectZephyrError(await call('DELETE', `/attachment/${a}`), 400, /does not exist/, 160);
    await call('DELETE', `/execution/${exec['PROJ-1']}?issueId=100001&projectId=10000`);
    expect(zephyr.attachmentBytes(b)).toBeUndefined();
  });
});
