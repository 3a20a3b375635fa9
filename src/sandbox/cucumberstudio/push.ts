/**
 * The bulk push, `POST {site}/import_test_results/{token}/{format}` (spec §5.3): result files matched to the
 * project's tests by the uid in each test's name, stored as results exactly as #84 stores them (same step-status
 * reading, same build bookkeeping), so the state view, `build_history` and `resultsWithoutBuild` see them.
 *
 * Choices where the reference is silent ([unspec] there), each stable and strict so that a client cannot come to
 * depend on leniency:
 * - uid in a name: `uid`, an optional `:`, a uuid with or without dashes (any case); a name may hold several (an
 *   outline's scenario-snapshot uid and the row's test uid): the first one that is a test's uid counts. Names with
 *   no known test uid are skipped silently (absent from the answer), as are tests still being generated.
 * - One test twice in one push: each entry is stored as its own result (both named in the answer).
 * - `build_id` and `build_name` together → 422; `build_id` not a build of the project → 422; a closed build
 *   follows `closedBuilds` (422 by default); with `build_id` only that build's run's tests are imported (others
 *   are skipped) and `execution_environment`, when sent, must name the build's environment (else 422).
 * - Without `build_id`: one new build per run touched, in `execution_environment` (default `Default`), named
 *   `build_name` or `Build N`. An environment the run does not have: `pushUnknownEnvironment` (`refuse` → 422,
 *   default; `create`).
 * - `status-author` is `PUSH_STATUS_AUTHOR`; `description` is "" unless `pushFailureText: 'carry'` (then the
 *   report's failure text for a failed test).
 * - Everything is checked before anything is stored: a refused push stores nothing.
 * - `pushFault` (a switch): a 500 before applying (nothing stored) or after applying (everything stored).
 * Answer: 200 `{"test_import":[{"name": <the report's test name>, "status": <the stored status>}]}`.
 */
import type { SandboxResponse } from '../types';
import { DEFAULT_ENVIRONMENT, MAX_ENVIRONMENT_NAME, type Build, type ExecutionEnvironment } from './builds';
import { testsByUid } from './publication';
import type { ReportedTest } from './push-formats';
import type { CucumberStudioStore, TestRun, TestSnapshot } from './store';

export const PUSH_STATUS_AUTHOR = 'import_test_results';

const UID_IN_NAME = /uid:?([0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12})/gi;

export function text(status: number, body: string, route: string): SandboxResponse {
  return { status, route, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

export interface PushQuery {
  executionEnvironment: string | null;
  buildId: string | null;
  buildName: string | null;
}

/** The test a reported name points at, or undefined. */
function testOf(name: string, byUid: Map<string, TestSnapshot>): TestSnapshot | undefined {
  for (const m of name.matchAll(UID_IN_NAME)) {
    const hex = m[1].replace(/-/g, '').toLowerCase();
    const uid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const test = byUid.get(uid);
    if (test) return test;
  }
  return undefined;
}

/** The build each touched run's results go to, or the 422 that refuses the push (nothing created then). */
function targetBuilds(
  store: CucumberStudioStore,
  q: PushQuery,
  runs: TestRun[],
  route: string,
): Map<number, () => Build> | SandboxResponse {
  const rule = store.settings.environmentNames;
  const environmentName = q.executionEnvironment ?? DEFAULT_ENVIRONMENT;
  if (environmentName.length > MAX_ENVIRONMENT_NAME) {
    return text(422, `execution_environment is too long (maximum is ${MAX_ENVIRONMENT_NAME} characters)`, route);
  }
  if (q.buildId !== null) {
    const build = /^\d{1,15}$/.test(q.buildId) ? store.builds.builds.get(Number(q.buildId)) : undefined;
    if (!build) return text(422, `build_id ${q.buildId} is not a build of this project`, route);
    if (build.closedAt !== null && store.settings.closedBuilds === 'refuse')
      return text(422, `Build ${build.id} is closed: it takes no more results`, route);
    const run = store.runs.get(build.runId) as TestRun;
    const environment = store.builds.environment(run, build.environmentId) as ExecutionEnvironment;
    if (q.executionEnvironment !== null && store.builds.environmentNamed(run, q.executionEnvironment, rule) !== environment) {
      return text(422, `execution_environment "${q.executionEnvironment}" is not the environment of build ${build.id}`, route);
    }
    return new Map([[run.id, () => build]]);
  }
  const targets = new Map<number, () => Build>();
  for (const run of runs) {
    const known = store.builds.environmentNamed(run, environmentName, rule);
    if (!known && store.settings.pushUnknownEnvironment === 'refuse') {
      return text(422, `Test run ${run.id} has no execution environment named "${environmentName}"`, route);
    }
    let build: Build | undefined;
    targets.set(run.id, () => {
      build ??= store.builds.addBuild(known ?? store.builds.addEnvironment(run, environmentName), q.buildName ?? undefined);
      return build;
    });
  }
  return targets;
}

/** Matches, checks, stores (subject to `pushFault`) and answers one push of already-read reports. */
export function applyPush(store: CucumberStudioStore, q: PushQuery, reported: ReportedTest[], route: string): SandboxResponse {
  if (q.buildId !== null && q.buildName !== null) return text(422, 'build_id and build_name cannot be given together', route);
  const byUid = testsByUid(store);
  const matched = reported.flatMap((r) => {
    const test = testOf(r.name, byUid);
    return test ? [{ reported: r, test }] : [];
  });
  const runs = [...new Set(matched.map((m) => m.test.runId))].map((id) => store.runs.get(id) as TestRun);
  const targets = targetBuilds(store, q, runs, route);
  if (!(targets instanceof Map)) return targets;
  const fault = store.takePushFault();
  if (fault === 'before-applying') return text(500, 'Internal Server Error', `${route} (500 before applying)`);
  const imported: Array<{ name: string; status: string }> = [];
  for (const { reported: r, test } of matched) {
    const target = targets.get(test.runId);
    if (!target) continue; // with build_id: a test of another run
    const carry = store.settings.pushFailureText === 'carry' && r.status === 'failed';
    const result = store.addResult(test, {
      status: r.status,
      statusAuthor: PUSH_STATUS_AUTHOR,
      description: carry ? (r.failureText ?? '') : '',
      stepStatuses: r.stepStatuses,
    });
    store.builds.attach(result, target());
    imported.push({ name: r.name, status: result.status });
  }
  if (fault === 'after-applying') return text(500, 'Internal Server Error', `${route} (applied, then 500)`);
  return { status: 200, route, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { test_import: imported } };
}
