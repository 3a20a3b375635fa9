/**
 * The GraphQL subset of the Xray stand-in (§6): the schema in SDL (names and argument types as the vendor's schema
 * docs give them) and the object views resolvers hand to graphql-js. Only the operations the reporter needs, plus
 * `getTestPlans` (the documented way to a plan's issue id, §6.7). `limit` is `Int!` on every connection, so a
 * missing one fails validation (400); its range and the 10,000-item cap are checked in `limits.ts`.
 */
import { buildSchema } from 'graphql';
import type { Issue, Run, XrayStore } from './store';

export const SDL = /* GraphQL */ `
  scalar JSON

  type Status {
    name: String
    description: String
    final: Boolean
    color: String
  }
  type TestType {
    name: String
    kind: String
  }
  type Evidence {
    id: String
    filename: String
    storedInJira: Boolean
    downloadLink: String
    size: Int
    createdOn: String
  }
  type TestRunStep {
    id: String
    status: Status
  }

  type Test {
    issueId: String
    testType: TestType
    jira(fields: [String]!): JSON
    projectId: String
  }
  type TestResults {
    total: Int
    start: Int
    limit: Int
    results: [Test]
  }

  type TestPlan {
    issueId: String
    jira(fields: [String]!): JSON
    projectId: String
  }
  type TestPlanResults {
    total: Int
    start: Int
    limit: Int
    results: [TestPlan]
  }

  type TestExecution {
    issueId: String
    jira(fields: [String]!): JSON
    projectId: String
    testEnvironments: [String]
    tests(limit: Int!, start: Int): TestResults
    testRuns(limit: Int!, start: Int): TestRunResults
  }
  type TestExecutionResults {
    total: Int
    start: Int
    limit: Int
    results: [TestExecution]
  }

  type Iteration {
    rank: String
    status: Status
  }
  type IterationResults {
    total: Int
    start: Int
    limit: Int
    results: [Iteration]
  }

  type TestRun {
    id: String
    status: Status
    comment: String
    startedOn: String
    finishedOn: String
    defects: [String]
    evidence: [Evidence]
    steps: [TestRunStep]
    iterations(limit: Int!, start: Int): IterationResults
    test: Test
    testExecution: TestExecution
    testType: TestType
    lastModified: String
    executedById: String
    assigneeId: String
  }
  type TestRunResults {
    total: Int
    start: Int
    limit: Int
    results: [TestRun]
  }

  type CreateTestExecutionResult {
    testExecution: TestExecution
    warnings: [String]
    createdTestEnvironments: [String]
  }
  type AddTestExecutionsResult {
    addedTestExecutions: [String]
    warning: String
  }
  type AddEvidenceResult {
    addedEvidence: [String]
    warnings: [String]
  }
  input AttachmentDataInput {
    filename: String!
    mimeType: String!
    data: String!
  }

  type Query {
    getStatuses: [Status]
    getTests(jql: String, issueIds: [String], limit: Int!, start: Int): TestResults
    getTestPlans(jql: String, issueIds: [String], limit: Int!, start: Int): TestPlanResults
    getTestExecutions(jql: String, issueIds: [String], limit: Int!, start: Int): TestExecutionResults
    getTestRuns(testIssueIds: [String], testExecIssueIds: [String], limit: Int!, start: Int): TestRunResults
    getTestRun(testIssueId: String, testExecIssueId: String): TestRun
  }

  type Mutation {
    createTestExecution(testIssueIds: [String], testEnvironments: [String], jira: JSON!): CreateTestExecutionResult
    addTestExecutionsToTestPlan(issueId: String!, testExecIssueIds: [String]!): AddTestExecutionsResult
    updateTestRunStatus(id: String!, status: String!): String
    updateTestRunComment(id: String!, comment: String!): String
    addEvidenceToTestRun(id: String!, evidence: [AttachmentDataInput]!): AddEvidenceResult
  }
`;

export const schema = buildSchema(SDL);

/** Connection arguments. */
export interface Page {
  limit: number;
  start?: number | null;
}

/** `{total, start, limit, results}` of one page (the next page starts at `start + results.length`, §6.0). */
export function page<T, V>(all: T[], args: Page, view: (t: T) => V): { total: number; start: number; limit: number; results: V[] } {
  const start = Math.max(0, args.start ?? 0);
  return { total: all.length, start, limit: args.limit, results: all.slice(start, start + args.limit).map(view) };
}

/** `jira(fields: [...])`: the asked Jira fields of the issue as one JSON object (§6.0). */
function jiraFields(store: XrayStore, issue: Issue, fields: string[]): Record<string, unknown> {
  const all: Record<string, unknown> = {
    key: issue.key,
    summary: issue.summary,
    description: issue.description,
    labels: issue.labels,
    issuetype: { name: issue.type },
    project: { key: store.fixtures.projectKey, id: store.fixtures.projectId },
    ...issue.fields,
  };
  return Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]]));
}

function issueView(store: XrayStore, issue: Issue) {
  return {
    issueId: issue.id,
    projectId: store.fixtures.projectId,
    jira: (args: { fields: string[] }) => jiraFields(store, issue, args.fields),
  };
}

export function testView(store: XrayStore, test: Issue) {
  return { ...issueView(store, test), testType: test.testType };
}

export function planView(store: XrayStore, plan: Issue) {
  return issueView(store, plan);
}

export function executionView(store: XrayStore, exec: Issue) {
  return {
    ...issueView(store, exec),
    testEnvironments: exec.environments ?? [],
    tests: (args: Page) =>
      page(
        [...exec.runs!.keys()].map((id) => store.issues.get(id)!),
        args,
        (t) => testView(store, t),
      ),
    testRuns: (args: Page) => page([...exec.runs!.values()], args, (r) => runView(store, r)),
  };
}

export function statusView(store: XrayStore, name: string) {
  return store.statuses().find((s) => s.name === name) ?? { name, description: '', final: false, color: '' };
}

export function runView(store: XrayStore, run: Run) {
  const test = store.issues.get(run.testId)!;
  return {
    id: run.id,
    status: statusView(store, run.status),
    comment: run.comment,
    startedOn: run.startedOn,
    finishedOn: run.finishedOn,
    defects: run.defects,
    evidence: run.evidence.map((e) => ({ ...e, storedInJira: false, downloadLink: `${store.fixtures.jiraSite}/evidence/${e.id}` })),
    steps: run.steps.map((s, i) => ({ id: `${run.id}-s${i + 1}`, status: statusView(store, s) })),
    iterations: (args: Page) => page([], args, (x) => x),
    test: testView(store, test),
    testExecution: executionView(store, store.issues.get(run.execId)!),
    testType: test.testType,
    lastModified: run.lastModified,
    executedById: null,
    assigneeId: null,
  };
}
