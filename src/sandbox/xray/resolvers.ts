/**
 * Root resolvers of the GraphQL subset (§6). Errors raised here come back the GraphQL way: HTTP 200 with
 * `errors` and a null field (§0.5, inferred). Local choices where the reference is silent (§10): a JQL matching
 * more than 100 issues fails the field; `getTestRun` for a Test outside the execution is null; linking an
 * already-linked execution is not an error (absent from `addedTestExecutions`, a `warning`); a repeated evidence
 * file name is stored again (a client checks names first); `updateTestRun*` return a sentence.
 */
import { GraphQLError } from 'graphql';
import { create, creationErrors, projectOf, stringList } from './create';
import { isBase64 } from './import';
import { JqlError, searchIssues } from './jql';
import { executionView, page, planView, runView, statusView, testView, type Page } from './schema';
import type { Issue, XrayStore } from './store';

const MAX_JQL_MATCHES = 100;

type Search = Page & { jql?: string | null; issueIds?: string[] | null };

function search(store: XrayStore, args: Search, type: Issue['type']): Issue[] {
  let found: Issue[];
  try {
    found = searchIssues(store, args.jql, type);
  } catch (e) {
    if (e instanceof JqlError) throw new GraphQLError(e.message);
    throw e;
  }
  if (args.issueIds) found = found.filter((i) => args.issueIds!.includes(i.id));
  // Documented: a JQL that matches more than 100 issues fails and asks for a narrower query.
  if (args.jql && found.length > MAX_JQL_MATCHES) {
    throw new GraphQLError(
      `The JQL query matches more than ${MAX_JQL_MATCHES} issues (${found.length}). Please use a more restrictive query.`,
    );
  }
  return found;
}

export function rootValue(store: XrayStore) {
  const runOf = (id: string) => {
    const run = store.findRun(id);
    if (!run) throw new GraphQLError(`Test Run with id ${id} not found`);
    return run;
  };
  return {
    getStatuses: () => store.statuses(),
    getTests: (args: Search) => page(search(store, args, 'Test'), args, (t) => testView(store, t)),
    getTestPlans: (args: Search) => page(search(store, args, 'Test Plan'), args, (t) => planView(store, t)),
    getTestExecutions: (args: Search) => page(search(store, args, 'Test Execution'), args, (t) => executionView(store, t)),
    getTestRuns: (args: Page & { testIssueIds?: string[] | null; testExecIssueIds?: string[] | null }) => {
      const runs = [...store.issues.values()]
        .filter((i) => i.type === 'Test Execution' && (!args.testExecIssueIds || args.testExecIssueIds.includes(i.id)))
        .flatMap((e) => [...e.runs!.values()])
        .filter((r) => !args.testIssueIds || args.testIssueIds.includes(r.testId));
      return page(runs, args, (r) => runView(store, r));
    },
    getTestRun: (args: { testIssueId?: string | null; testExecIssueId?: string | null }) => {
      const exec = store.issues.get(args.testExecIssueId ?? '');
      const run = exec?.type === 'Test Execution' ? exec.runs!.get(args.testIssueId ?? '') : undefined;
      return run ? runView(store, run) : null;
    },

    createTestExecution: (args: { testIssueIds?: string[] | null; testEnvironments?: string[] | null; jira: unknown }) => {
      const jira = (typeof args.jira === 'object' && args.jira !== null ? args.jira : {}) as { fields?: unknown };
      const fields = (typeof jira.fields === 'object' && jira.fields !== null ? jira.fields : {}) as Record<string, unknown>;
      const environments = stringList(args.testEnvironments) ?? [];
      const spec = { project: projectOf(fields), summary: fields.summary, description: fields.description, fields, environments };
      const errors = creationErrors(store, spec);
      if (errors.length > 0) throw new GraphQLError(errors.join('; '));
      const fresh = environments.filter((e) => !store.knownEnvironments.has(e));
      const exec = create(store, spec);
      const warnings: string[] = [];
      for (const id of args.testIssueIds ?? []) {
        const test = store.ofType(id, 'Test');
        if (test && store.issues.get(id) === test) store.run(exec, test);
        else warnings.push(`Test with id ${id} was not found and was not added to the Test Execution.`);
      }
      return { testExecution: executionView(store, exec), warnings, createdTestEnvironments: fresh };
    },

    addTestExecutionsToTestPlan: (args: { issueId: string; testExecIssueIds: string[] }) => {
      const plan = store.issues.get(args.issueId);
      if (plan?.type !== 'Test Plan') throw new GraphQLError(`Test Plan with id ${args.issueId} not found`);
      const added: string[] = [];
      const notes: string[] = [];
      for (const id of args.testExecIssueIds) {
        const exec = store.issues.get(id ?? '');
        if (exec?.type !== 'Test Execution') notes.push(`Test Execution with id ${id} not found`);
        else if (store.linkToPlan(plan, exec)) added.push(id);
        else notes.push(`Test Execution with id ${id} is already associated with the Test Plan`);
      }
      return { addedTestExecutions: added, warning: notes.length > 0 ? notes.join('; ') : null };
    },

    updateTestRunStatus: (args: { id: string; status: string }) => {
      const run = runOf(args.id);
      const test = store.issues.get(run.testId)!;
      run.status = store.statusFor(args.status, test.key, store.issues.get(run.execId)?.key);
      run.lastModified = store.isoNow();
      return `Status of the Test Run ${run.id} was updated to ${statusView(store, run.status).name}.`;
    },

    updateTestRunComment: (args: { id: string; comment: string }) => {
      const run = runOf(args.id);
      run.comment = args.comment;
      run.lastModified = store.isoNow();
      return `Comment of the Test Run ${run.id} was updated.`;
    },

    addEvidenceToTestRun: (args: { id: string; evidence: Array<{ filename: string; mimeType: string; data: string }> }) => {
      const run = runOf(args.id);
      if (store.settings.evidenceStorageFull) throw new GraphQLError('The evidence storage limit of this Xray instance has been reached.');
      const bad = args.evidence.find((f) => !isBase64(f.data));
      if (bad) throw new GraphQLError(`Evidence ${bad.filename}: data must be base64`);
      const added = args.evidence.map((f) => store.evidence(f.filename, f.mimeType, Buffer.from(f.data, 'base64')));
      run.evidence.push(...added);
      store.counters.evidenceAdded++;
      return { addedEvidence: added.map((e) => e.id), warnings: [] };
    },
  };
}
