/**
 * The GraphQL operations the target uses (§6), values always passed as variables (JQL holds quotes, summaries
 * anything). Connections are paged at 100, the largest `limit` Xray takes.
 */
import type { XrayClient } from './client';

export const PAGE = 100;

export interface IssueRef {
  issueId: string;
  key: string;
}

export interface ExecutionRef extends IssueRef {
  summary: string;
  environments: string[];
}

export interface RunRef {
  testIssueId: string;
  testKey: string;
  status: string;
  comment: string;
  evidence: string[];
}

interface Jira {
  key?: string;
  summary?: string;
}
interface Page<T> {
  total: number;
  start: number;
  results: T[];
}

/** A JQL string literal. */
export const jqlString = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export async function statuses(client: XrayClient): Promise<string[]> {
  const data = await client.graphql<{ getStatuses: Array<{ name: string }> }>('getStatuses', 'query { getStatuses { name } }', {});
  return (data.getStatuses ?? []).map((s) => s.name);
}

/** Test Executions matching a JQL (at most 100: a narrower JQL is the caller's). */
export async function executions(client: XrayClient, jql: string): Promise<ExecutionRef[]> {
  const data = await client.graphql<{ getTestExecutions: Page<{ issueId: string; jira: Jira; testEnvironments?: string[] }> }>(
    'getTestExecutions',
    'query($jql: String, $limit: Int!) { getTestExecutions(jql: $jql, limit: $limit) { total start results { issueId jira(fields: ["key", "summary"]) testEnvironments } } }',
    { jql, limit: PAGE },
  );
  return data.getTestExecutions.results.map((r) => ({
    issueId: String(r.issueId),
    key: String(r.jira?.key ?? ''),
    summary: String(r.jira?.summary ?? ''),
    environments: r.testEnvironments ?? [],
  }));
}

export async function testPlan(client: XrayClient, key: string): Promise<IssueRef | undefined> {
  const data = await client.graphql<{ getTestPlans: Page<{ issueId: string; jira: Jira }> }>(
    'getTestPlans',
    'query($jql: String, $limit: Int!) { getTestPlans(jql: $jql, limit: $limit) { total start results { issueId jira(fields: ["key"]) } } }',
    { jql: `key = ${jqlString(key)}`, limit: 1 },
  );
  const r = data.getTestPlans.results[0];
  return r ? { issueId: String(r.issueId), key: String(r.jira?.key ?? key) } : undefined;
}

/** Tests among `keys` (≤ 100): a key that is not a Test, or no issue at all, is absent. */
export async function tests(client: XrayClient, keys: readonly string[]): Promise<IssueRef[]> {
  const data = await client.graphql<{ getTests: Page<{ issueId: string; jira: Jira }> }>(
    'getTests',
    'query($jql: String, $limit: Int!) { getTests(jql: $jql, limit: $limit) { total start results { issueId jira(fields: ["key"]) } } }',
    { jql: `key in (${keys.map(jqlString).join(', ')})`, limit: PAGE },
  );
  return data.getTests.results.map((r) => ({ issueId: String(r.issueId), key: String(r.jira?.key ?? '') }));
}

/**
 * Runs of one Test Execution, all of them or those of some Tests (≤ 100 ids), every page. The pages are asked
 * together, not one after another (20 pages in a row at the end of a run of 2,000 tests were most of its tail):
 * those `atLeast` runs fill at once (the caller knows how many it sent), then the rest of the total the first
 * page tells; the lane's slots and pacing window decide how many go at a time. A page shorter than asked (runs
 * added or removed meanwhile, a server with a smaller page) is followed one page after another from its end; a
 * Test has one run in an execution, so a run seen twice counts once. `label`: the lane's (the read-back's go behind
 * statuses, definition.ts).
 */
export async function runs(
  client: XrayClient,
  execIssueId: string,
  testIssueIds?: readonly string[],
  atLeast = 0,
  label = 'getTestRuns',
): Promise<RunRef[]> {
  const found = new Map<string, RunRef>();
  const read = async (starts: number[]) => {
    const pages = await Promise.all(starts.map((start) => runsPage(client, execIssueId, testIssueIds, start, label)));
    for (const page of pages) for (const r of page.runs) found.set(`${r.testIssueId} ${r.testKey}`, r);
    return pages.map((page, i) => ({ ...page, start: starts[i] }));
  };
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, Math.ceil((to - from) / PAGE)) }, (_, i) => from + i * PAGE);
  let pages = await read(range(0, Math.max(1, atLeast)));
  const total = pages[0].total;
  const known = pages.length * PAGE;
  if (total > known) pages = [...pages, ...(await read(range(known, total)))];
  const short = pages.find((p) => p.start < total && p.runs.length < Math.min(PAGE, total - p.start));
  if (!short) return [...found.values()];
  for (let start = short.start + short.runs.length; ;) {
    const [page] = await read([start]);
    start += page.runs.length;
    if (page.runs.length === 0 || start >= page.total) return [...found.values()];
  }
}

async function runsPage(
  client: XrayClient,
  execIssueId: string,
  testIssueIds: readonly string[] | undefined,
  start: number,
  label: string,
): Promise<{ total: number; runs: RunRef[] }> {
  const data = await client.graphql<{
    getTestRuns: Page<{
      status?: { name?: string };
      comment?: string;
      test?: { issueId: string; jira?: Jira };
      evidence?: Array<{ filename: string }>;
    }>;
  }>(
    label,
    'query($e: [String], $t: [String], $limit: Int!, $start: Int) { getTestRuns(testExecIssueIds: $e, testIssueIds: $t, limit: $limit, start: $start) { total start results { status { name } comment test { issueId jira(fields: ["key"]) } evidence { filename } } } }',
    { e: [execIssueId], t: testIssueIds ? [...testIssueIds] : null, limit: PAGE, start },
  );
  const page = data.getTestRuns;
  return {
    total: page.total,
    runs: page.results.map((r) => ({
      testIssueId: String(r.test?.issueId ?? ''),
      testKey: String(r.test?.jira?.key ?? ''),
      status: r.status?.name ?? '',
      comment: r.comment ?? '',
      evidence: (r.evidence ?? []).map((e) => e.filename),
    })),
  };
}

/** One attempt (no retry): a create is not idempotent, find-or-create looks before repeating it (§8.1 rule 4). */
export async function createExecutionOnce(
  client: XrayClient,
  fields: { summary: string; project: string; description?: string },
  environments: readonly string[],
): Promise<ExecutionRef> {
  const data = await client.graphqlOnce<{ createTestExecution: { testExecution: { issueId: string; jira: Jira } } }>(
    'createTestExecution',
    'mutation($env: [String], $jira: JSON!) { createTestExecution(testIssueIds: [], testEnvironments: $env, jira: $jira) { testExecution { issueId jira(fields: ["key"]) } warnings } }',
    {
      env: [...environments],
      jira: {
        fields: {
          summary: fields.summary,
          project: { key: fields.project },
          ...(fields.description ? { description: fields.description } : {}),
        },
      },
    },
  );
  const e = data.createTestExecution.testExecution;
  return { issueId: String(e.issueId), key: String(e.jira?.key ?? ''), summary: fields.summary, environments: [...environments] };
}

/** Links an execution to a plan; one already linked is not an error (§6.7). */
export async function linkToPlan(client: XrayClient, planIssueId: string, execIssueId: string): Promise<void> {
  await client.graphql(
    'addTestExecutionsToTestPlan',
    'mutation($plan: String!, $e: [String]!) { addTestExecutionsToTestPlan(issueId: $plan, testExecIssueIds: $e) { addedTestExecutions warning } }',
    { plan: planIssueId, e: [execIssueId] },
  );
}

/** The one run of a Test in an execution (§6.5), with its files' names; undefined when it has none (yet). */
export async function testRunOnce(
  client: XrayClient,
  testIssueId: string,
  execIssueId: string,
): Promise<{ id: string; evidence: string[] } | undefined> {
  const data = await client.graphqlOnce<{ getTestRun: { id: string; evidence?: Array<{ filename: string }> } | null }>(
    'getTestRun',
    'query($t: String, $e: String) { getTestRun(testIssueId: $t, testExecIssueId: $e) { id evidence { filename } } }',
    { t: testIssueId, e: execIssueId },
  );
  const run = data.getTestRun;
  return run ? { id: String(run.id), evidence: (run.evidence ?? []).map((e) => e.filename) } : undefined;
}

/** One file added to a run (§6.10: `mimeType` here, `contentType` in the import). One attempt: the caller looks first. */
export async function addEvidenceOnce(
  client: XrayClient,
  runId: string,
  file: { fileName: string; contentType: string; bytes: Buffer },
): Promise<void> {
  await client.graphqlOnce(
    'addEvidenceToTestRun',
    'mutation($id: String!, $evidence: [AttachmentDataInput]!) { addEvidenceToTestRun(id: $id, evidence: $evidence) { addedEvidence warnings } }',
    { id: runId, evidence: [{ filename: file.fileName, mimeType: file.contentType, data: file.bytes.toString('base64') }] },
  );
}
