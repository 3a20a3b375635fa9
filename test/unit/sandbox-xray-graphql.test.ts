import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startXray, type XrayHarness } from './sandbox-xray-helpers';

const GET_TESTS = `query($jql: String, $limit: Int!, $start: Int) {
  getTests(jql: $jql, limit: $limit, start: $start) { total start limit results { issueId testType { name kind } jira(fields: ["key"]) } } }`;
const CREATE = `mutation($testIssueIds: [String], $testEnvironments: [String], $jira: JSON!) {
  createTestExecution(testIssueIds: $testIssueIds, testEnvironments: $testEnvironments, jira: $jira) {
    testExecution { issueId jira(fields: ["key"]) } warnings createdTestEnvironments } }`;
const RUNS = `query($e: [String], $limit: Int!, $start: Int) {
  getTestRuns(testExecIssueIds: $e, limit: $limit, start: $start) { total start limit results { id status { name } comment evidence { filename } test { jira(fields: ["key"]) } } } }`;

describe('Xray sandbox: POST /api/v2/graphql', () => {
  let h: XrayHarness;
  beforeAll(async () => {
    h = await startXray();
  });
  beforeEach(() => h.sandbox.reset());
  afterAll(() => h.close());

  const createExec = async (summary = 'Nightly #8123 chromium', testIssueIds = ['10001', '10002']) => {
    const a = await h.gql(CREATE, { testIssueIds, testEnvironments: ['chromium'], jira: { fields: { summary, project: { key: 'XT' } } } });
    expect(a.status).toBe(200);
    return a.json.data.createTestExecution;
  };

  it('lists the tenant statuses, custom ones included', async () => {
    const a = await h.gql('query { getStatuses { name final } }');
    expect(a.json.data.getStatuses.map((s: any) => s.name)).toEqual(['PASSED', 'FAILED', 'TODO', 'EXECUTING', 'ABORTED', 'FLAKY']);
  });

  it('maps keys to ids with getTests; keys that are not Tests are absent', async () => {
    const a = await h.gql(GET_TESTS, { jql: 'key in (XT-3, XT-7, XT-153, XT-999)', limit: 100 });
    expect(a.json).toEqual({
      data: {
        getTests: {
          total: 2,
          start: 0,
          limit: 100,
          results: [
            { issueId: '10003', testType: { name: 'Manual', kind: 'Steps' }, jira: { key: 'XT-3' } },
            { issueId: '10007', testType: { name: 'Generic', kind: 'Unstructured' }, jira: { key: 'XT-7' } },
          ],
        },
      },
    });
  });

  it('fails a JQL matching more than 100 issues (200 with errors), and pages below that', async () => {
    const over = await h.gql(GET_TESTS, { jql: 'project = XT', limit: 100 });
    expect(over.status).toBe(200);
    expect(over.json.data.getTests).toBeNull();
    expect(over.json.errors[0].message).toMatch(/more than 100 issues/);
    const bad = await h.gql(GET_TESTS, { jql: 'status = Done', limit: 10 });
    expect(bad.json.errors[0].message).toMatch(/Field 'status' does not exist/);
  });

  it('refuses a missing limit, a limit outside 1..100 and more than 10,000 items with 400', async () => {
    const missing = await h.gql('query { getTests(jql: "key = XT-1") { total } }');
    expect(missing.status).toBe(400);
    expect(missing.json.errors[0].message).toMatch(/argument "limit" of type "Int!" is required/);
    for (const limit of [0, 101]) {
      const a = await h.gql(GET_TESTS, { jql: 'key = XT-1', limit });
      expect(a.status).toBe(400);
      expect(a.json.errors[0].message).toMatch(/limit must be between 1 and 100/);
    }
    const nested = await h.gql('query { getTestRuns(limit: 100) { results { iterations(limit: 100) { total } } } }');
    expect(nested.status).toBe(400);
    expect(nested.json.errors[0].message).toMatch(/10100 items/);
    expect((await h.gql('query { getTestRuns(limit: 100) { results { iterations(limit: 99) { total } } } }')).status).toBe(200);
  });

  it('a syntax error answers 400 with the GraphQL error shape', async () => {
    const a = await h.gql('query { getStatuses { name }');
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ errors: [{ message: expect.stringMatching(/^Syntax Error/), locations: [expect.any(Object)] }] });
  });

  it('creates an execution (not idempotent), finds it by a fuzzy summary search, links it to a plan', async () => {
    const first = await createExec();
    expect(first.createdTestEnvironments).toEqual(['chromium']);
    const second = await createExec();
    expect(second.createdTestEnvironments).toEqual([]);
    await createExec('Nightly #8123');
    const found = await h.gql(
      'query($jql: String, $limit: Int!) { getTestExecutions(jql: $jql, limit: $limit) { total results { issueId jira(fields: ["key", "summary"]) testEnvironments } } }',
      { jql: 'project = "XT" AND summary ~ "\\"Nightly #8123\\""', limit: 100 },
    );
    expect(found.json.data.getTestExecutions.results.map((r: any) => r.jira.summary)).toEqual([
      'Nightly #8123 chromium',
      'Nightly #8123 chromium',
      'Nightly #8123',
    ]);
    const plan = await h.gql('query { getTestPlans(jql: "key = XT-151", limit: 1) { results { issueId } } }');
    const planId = plan.json.data.getTestPlans.results[0].issueId;
    const link = `mutation($p: String!, $e: [String]!) { addTestExecutionsToTestPlan(issueId: $p, testExecIssueIds: $e) { addedTestExecutions warning } }`;
    const execId = first.testExecution.issueId;
    expect((await h.gql(link, { p: planId, e: [execId] })).json.data.addTestExecutionsToTestPlan).toEqual({
      addedTestExecutions: [execId],
      warning: null,
    });
    const again = (await h.gql(link, { p: planId, e: [execId] })).json.data.addTestExecutionsToTestPlan;
    expect(again.addedTestExecutions).toEqual([]);
    expect(again.warning).toMatch(/already/);
    expect(h.state().testPlans[0].executions).toEqual([first.testExecution.jira.key]);
  });

  it('a required Jira field missing from createTestExecution is an error of the field', async () => {
    h.module.configure({ requiredFields: [{ id: 'customfield_10115', name: 'Story Points' }] });
    try {
      const a = await h.gql(CREATE, { jira: { fields: { summary: 's', project: { key: 'XT' } } } });
      expect(a.json.errors[0].message).toBe(
        'Error creating Test Execution - Issue create failed! - customfield_10115: Story Points is required.',
      );
      expect(h.state().executions).toHaveLength(0);
    } finally {
      h.module.configure({ requiredFields: [] });
    }
  });

  it('updateTestRunStatus/Comment return a bare String: a selection set on them is a 400', async () => {
    const exec = await createExec();
    const runs = (await h.gql(RUNS, { e: [exec.testExecution.issueId], limit: 1 })).json.data.getTestRuns;
    expect([runs.total, runs.results.length]).toEqual([2, 1]);
    const id = runs.results[0].id;
    const withSelection = await h.gql('mutation($id: String!) { updateTestRunStatus(id: $id, status: "PASSED") { id } }', { id });
    expect(withSelection.status).toBe(400);
    expect(withSelection.json.errors[0].message).toMatch(/must not have a selection since type "String" has no subfields/);
    const plain = await h.gql('mutation($id: String!, $s: String!) { updateTestRunStatus(id: $id, status: $s) }', { id, s: 'FAILED' });
    expect(typeof plain.json.data.updateTestRunStatus).toBe('string');
    await h.gql('mutation($id: String!, $c: String!) { updateTestRunComment(id: $id, comment: $c) }', { id, c: 'why' });
    await h.gql('mutation($id: String!) { updateTestRunStatus(id: $id, status: "PASS") }', { id });
    const run = h.state().executions[0].runs[0];
    expect([run.status, run.comment]).toEqual(['TODO', 'why']);
    expect(h.counters().silentTodo).toBe(1);
  });

  it('evidence takes mimeType here (contentType is a 400), and shows on the run', async () => {
    const exec = await createExec();
    const id = (await h.gql(RUNS, { e: [exec.testExecution.issueId], limit: 1 })).json.data.getTestRuns.results[0].id;
    const add =
      'mutation($id: String!, $ev: [AttachmentDataInput]!) { addEvidenceToTestRun(id: $id, evidence: $ev) { addedEvidence warnings } }';
    const data = Buffer.from('zip').toString('base64');
    expect((await h.gql(add, { id, ev: [{ filename: 'trace.zip', contentType: 'application/zip', data }] })).status).toBe(400);
    const ok = await h.gql(add, { id, ev: [{ filename: 'trace.zip', mimeType: 'application/zip', data }] });
    expect(ok.json.data.addEvidenceToTestRun.addedEvidence).toHaveLength(1);
    const one = await h.gql(
      'query($t: String, $e: String) { getTestRun(testIssueId: $t, testExecIssueId: $e) { id evidence { filename size } } }',
      {
        t: '10001',
        e: exec.testExecution.issueId,
      },
    );
    expect(one.json.data.getTestRun).toEqual({ id, evidence: [{ filename: 'trace.zip', size: 3 }] });
  });

  it('a 500 after applying createTestExecution leaves the execution; before applying leaves none', async () => {
    h.module.configure({ operationFaults: [{ operation: 'createTestExecution', applied: false }] });
    const vars = { jira: { fields: { summary: 'S', project: { key: 'XT' } } } };
    expect((await h.gql(CREATE, vars)).status).toBe(500);
    expect(h.state().executions).toHaveLength(0);
    h.module.configure({ operationFaults: [{ operation: 'createTestExecution', applied: true }] });
    expect((await h.gql(CREATE, vars)).status).toBe(500);
    expect(h.state().executions.map((e: any) => e.summary)).toEqual(['S']);
    expect((await h.gql('query { getStatuses { name } }')).status).toBe(200);
  });
});
