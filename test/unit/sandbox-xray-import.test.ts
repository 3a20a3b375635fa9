import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { file, startXray, type XrayHarness } from './sandbox-xray-helpers';

describe('Xray sandbox: POST /api/v2/import/execution', () => {
  let h: XrayHarness;
  beforeAll(async () => {
    h = await startXray();
  });
  beforeEach(() => h.sandbox.reset());
  afterAll(() => h.close());

  const create = (extra: Record<string, unknown> = {}) =>
    h.importJson({ info: { project: 'XT', summary: 'Nightly #1', ...extra }, tests: [{ testKey: 'XT-1', status: 'PASSED' }] });

  it('without testExecutionKey creates a NEW Test Execution each time, answering {id, key, self} only', async () => {
    const a = await create();
    const b = await create();
    expect(a.status).toBe(200);
    expect(Object.keys(a.json).sort()).toEqual(['id', 'key', 'self']);
    expect(a.json.self).toBe(`https://sandbox.atlassian.net/rest/api/2/issue/${a.json.id}`);
    expect(b.json.key).not.toBe(a.json.key);
    expect(h.state().executions.map((e: any) => e.summary)).toEqual(['Nightly #1', 'Nightly #1']);
  });

  it('with testExecutionKey upserts one run per Test: a re-import overwrites that run and leaves the others', async () => {
    const { key } = (await create()).json;
    const into = (tests: unknown[]) => h.importJson({ testExecutionKey: key, tests });
    expect((await into([{ testKey: 'XT-2', status: 'FAILED', comment: 'boom', defects: ['XT-151'] }])).status).toBe(200);
    expect((await into([{ testKey: 'XT-2', status: 'PASSED', comment: 'fixed' }])).json.key).toBe(key);
    const exec = h.state().executions[0];
    expect(exec.runs.map((r: any) => [r.testKey, r.status, r.comment, r.defects])).toEqual([
      ['XT-1', 'PASSED', '', []],
      ['XT-2', 'PASSED', 'fixed', []],
    ]);
    expect(h.state().executions).toHaveLength(1);
  });

  it('stores start and finish as the run’s startedOn / finishedOn (§4.3); a re-import without them clears them', async () => {
    const { key } = (await create()).json;
    const into = (tests: unknown[]) => h.importJson({ testExecutionKey: key, tests });
    const times = { start: '2026-11-27T10:15:30.000Z', finish: '2026-11-27T10:15:42.500Z' };
    expect((await into([{ testKey: 'XT-2', status: 'PASSED', ...times }])).status).toBe(200);
    const run = () => h.state().executions[0].runs.find((r: any) => r.testKey === 'XT-2');
    expect([run().startedOn, run().finishedOn]).toEqual([times.start, times.finish]);
    await into([{ testKey: 'XT-2', status: 'PASSED' }]);
    expect([run().startedOn, run().finishedOn]).toEqual([null, null]);
    // Not a string: refused, as every other text field is.
    expect((await into([{ testKey: 'XT-2', status: 'PASSED', start: 1 }])).status).toBe(400);
  });

  it('environments sent with a key replace the execution’s; an empty list leaves them', async () => {
    const { key } = (await create({ testEnvironments: ['chromium', 'firefox'] })).json;
    await h.importJson({ testExecutionKey: key, info: { testEnvironments: ['webkit'] }, tests: [] });
    expect(h.state().executions[0].environments).toEqual(['webkit']);
    await h.importJson({ testExecutionKey: key, info: { testEnvironments: [] }, tests: [] });
    expect(h.state().executions[0].environments).toEqual(['webkit']);
  });

  it('stores an unknown status name as TODO with HTTP 200 and counts it', async () => {
    const { key } = (await create()).json;
    const a = await h.importJson({
      testExecutionKey: key,
      tests: [
        { testKey: 'XT-1', status: 'PASS' },
        { testKey: 'XT-2', status: 'FLAKY' },
      ],
    });
    expect(a.status).toBe(200);
    expect(h.state().executions[0].runs.map((r: any) => r.status)).toEqual(['TODO', 'FLAKY']);
    expect(h.counters().silentTodo).toBe(1);
    expect(h.state().events).toContainEqual({ kind: 'silentTodo', testKey: 'XT-1', execKey: key, sent: 'PASS' });
  });

  it('refuses what §4.7/§8.3 refuse with 400 {"error"} and applies nothing', async () => {
    const { key } = (await create()).json;
    const cases: Array<[unknown, RegExp]> = [
      [{ info: { summary: 'x' }, tests: [] }, /^Must provide a project key$/],
      [{ info: { project: 'XPRJ', summary: 'x' }, tests: [] }, /Error retrieving Project from Jira with key "XPRJ"/],
      [{ info: { project: 'XT' }, tests: [] }, /summary/],
      [{ testExecutionKey: 'XT-999', tests: [] }, /XT-999/],
      [{ testExecutionKey: 'XT-1', tests: [] }, /Test Execution/],
      [{ testExecutionKey: key, tests: [{ testKey: 'XT-153', status: 'PASSED' }] }, /XT-153/], // the Story
      [{ testExecutionKey: key, tests: [{ testKey: 'XT-2', iterations: [] }] }, /iterations must not be empty/],
      [{ testExecutionKey: key, tests: [{ testKey: 'XT-2', examples: [] }] }, /examples must not be empty/],
      [
        { testExecutionKey: key, tests: [{ testKey: 'XT-2', steps: [{}], iterations: [{ parameters: [{ name: 'a', value: '1' }] }] }] },
        /steps/,
      ],
      [
        {
          testExecutionKey: key,
          tests: [{ testKey: 'XT-2', iterations: [{ parameters: Array.from({ length: 21 }, (_, i) => ({ name: `p${i}`, value: '1' })) }] }],
        },
        /more than 20 parameters/,
      ],
      [{ testExecutionKey: key, tests: [{ testKey: 'XT-2' }, { testKey: 'XT-2' }] }, /more than once/],
      [{ testExecutionKey: key, tests: [{ testKey: 'XT-2', evidences: [file('a.txt')] }] }, /evidences/],
      [{ testExecutionKey: key, tests: [{ testKey: 'XT-2', evidence: [{ filename: 'a.txt', data: 'aGk=' }] }] }, /contentType/],
    ];
    for (const [doc, message] of cases) {
      const a = await h.importJson(doc);
      expect(a.status, JSON.stringify(doc).slice(0, 120)).toBe(400);
      expect(a.json.error).toMatch(message);
    }
    expect(h.state().executions).toHaveLength(1);
    expect(h.state().executions[0].runs).toHaveLength(1);
  });

  it('a project that requires a field refuses the plain import with the error the reference shows', async () => {
    h.module.configure({ requiredFields: [{ id: 'customfield_10115', name: 'Story Points' }] });
    try {
      const a = await create();
      expect(a.status).toBe(400);
      expect(a.json).toEqual({
        error: 'Error creating Test Execution - Issue create failed! - customfield_10115: Story Points is required.',
      });
      expect(h.state().executions).toHaveLength(0);
    } finally {
      h.module.configure({ requiredFields: [] });
    }
  });

  it('unknownTestKey "partial" lands the other tests and counts the skipped key', async () => {
    const { key } = (await create()).json;
    h.module.configure({ unknownTestKey: 'partial' });
    try {
      const a = await h.importJson({
        testExecutionKey: key,
        tests: [
          { testKey: 'XT-2', status: 'FAILED' },
          { testKey: 'XT-999', status: 'PASSED' },
        ],
      });
      expect(a.status).toBe(200);
      expect(h.state().executions[0].runs.map((r: any) => r.testKey)).toEqual(['XT-1', 'XT-2']);
      expect(h.counters().partialSkipped).toBe(1);
    } finally {
      h.module.configure({ unknownTestKey: 'reject' });
    }
  });

  it('records testInfo (accepted as production does), evidence and plan links', async () => {
    const a = await create({ testPlanKey: 'XT-151' });
    await h.importJson({
      testExecutionKey: a.json.key,
      tests: [{ testKey: 'XT-1', status: 'FAILED', testInfo: { summary: 'rewritten' }, evidence: [file('trace.txt', 'trace')] }],
    });
    const exec = h.state().executions[0];
    expect(exec.testPlans).toEqual(['XT-151']);
    expect(exec.runs[0].evidence.map((e: any) => [e.filename, e.mimeType, e.size])).toEqual([['trace.txt', 'text/plain', 5]]);
    expect(h.counters().testInfo).toBe(1);
  });

  it('multipart: results + info create an execution with Jira fields; other xrayFields are refused', async () => {
    h.module.configure({ requiredFields: [{ id: 'customfield_10115', name: 'Story Points' }] });
    try {
      const form = (xrayFields: Record<string, unknown>) => {
        const f = new FormData();
        f.append(
          'results',
          new Blob([JSON.stringify({ tests: [{ testKey: 'XT-4', status: 'PASSED' }] })], { type: 'application/json' }),
          'results.json',
        );
        const info = {
          fields: { project: { key: 'XT' }, summary: 'Multipart', issuetype: { name: 'Test Execution' }, customfield_10115: 3 },
          xrayFields,
        };
        f.append('info', new Blob([JSON.stringify(info)], { type: 'application/json' }), 'info.json');
        return f;
      };
      const bad = await h.api('/api/v2/import/execution/multipart', form({ testEnvironments: ['chromium'] }));
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe(
        'Error importing results: xrayFields in info file contains the following invalid fields: testEnvironments!',
      );
      const good = await h.api('/api/v2/import/execution/multipart', form({ environments: ['chromium'], testPlanKey: 'XT-152' }));
      expect(good.status).toBe(200);
      const exec = h.state().executions[0];
      expect([exec.key, exec.summary, exec.environments, exec.testPlans, exec.fields.customfield_10115]).toEqual([
        good.json.key,
        'Multipart',
        ['chromium'],
        ['XT-152'],
        3,
      ]);
      expect(exec.runs.map((r: any) => [r.testKey, r.status])).toEqual([['XT-4', 'PASSED']]);
    } finally {
      h.module.configure({ requiredFields: [] });
    }
  });

  it('a 500 before applying leaves nothing; a 500 after applying leaves the new execution', async () => {
    h.module.configure({ operationFaults: [{ operation: 'import', applied: false }] });
    expect((await create()).status).toBe(500);
    expect(h.state().executions).toHaveLength(0);
    h.module.configure({ operationFaults: [{ operation: 'import', applied: true }] });
    const after = await create();
    expect(after.status).toBe(500);
    expect(after.json).toEqual({ error: expect.any(String) });
    expect(h.state().executions).toHaveLength(1);
    expect(h.state().executions[0].runs.map((r: any) => r.status)).toEqual(['PASSED']);
    expect(h.module.settings().operationFaults).toEqual([]);
    expect((await create()).status).toBe(200);
    expect(h.counters().operationFaults).toBe(2);
  });
});
