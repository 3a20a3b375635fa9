import type { PlanItem, VerifyReport } from '../../shared/model';
import { asArray, type JsonApiDocument } from './client';
import { olderThan, type ResultInput } from './results';
import { toSnapshot, type Snapshot } from './snapshots';
import { csRank } from './statuses';

/** One test of the run as a fresh listing shows it, with its latest result (none: `last` absent). */
export interface ListedTest extends Snapshot {
  last?: { status: string; createdAt?: unknown };
}

/**
 * The tests of a listing asked with `show_step_statuses=true`: each one's latest result comes from the
 * `last-result` linkage and `included` (null linkage = no result); a service that gives neither is read
 * by the test's own (deprecated) `status`, `undefined` meaning no result.
 */
export function listedTests(doc: JsonApiDocument): ListedTest[] {
  const results = new Map((doc.included ?? []).filter((r) => r.type === 'test-results').map((r) => [String(r.id), r]));
  return asArray(doc.data).map((r) => {
    const test: ListedTest = toSnapshot(r);
    const link = r.relationships?.['last-result'];
    if (link && link.data === null) return test;
    const linked = link?.data && !Array.isArray(link.data) ? results.get(String(link.data.id)) : undefined;
    const status = linked?.attributes?.status ?? r.attributes?.status;
    if (typeof status === 'string' && status !== 'undefined') test.last = { status, createdAt: linked?.attributes?.['created-at'] };
    return test;
  });
}

/** A test holds a result of this publication: one, and not older than it began (a reused run keeps earlier ones). */
export function hasResultOfThisRun(test: ListedTest | undefined, since: number | undefined): boolean {
  return !!test?.last && !olderThan(test.last.createdAt, since);
}

/**
 * Posts each sent result to the tests of its scenario that hold no result of this run and that this process
 * never posted to: rows generated after the result went out (the listing it went by was taken while they
 * were still being made). `posted` (key -> tests posted to) gains the rows that took it. `tried`: some row
 * needed it (the run must be listed again before the check); `problems`: one line per scenario that failed.
 */
export async function fillNewRows(o: {
  runId: number;
  sent: readonly PlanItem[];
  tests: readonly ListedTest[];
  testsOf: (scenarioId: number) => string[];
  since?: number;
  posted: Map<string, string[]>;
  post: (testId: string, input: ResultInput) => Promise<void>;
}): Promise<{ tried: boolean; problems: string[] }> {
  const byId = new Map(o.tests.map((t) => [t.id, t]));
  const problems: string[] = [];
  let tried = false;
  await Promise.all(
    o.sent.map(async (item) => {
      const key = String(item.key);
      const posted = new Set(o.posted.get(key) ?? []);
      const rows = o.testsOf(Number(key)).filter((id) => !posted.has(id) && !hasResultOfThisRun(byId.get(id), o.since));
      if (!rows.length) return;
      tried = true;
      const input = { status: String(item.status), description: item.comment, steps: item.steps };
      const posts = await Promise.allSettled(rows.map((id) => o.post(id, input)));
      o.posted.set(key, [...posted, ...rows.filter((_, i) => posts[i].status === 'fulfilled')]);
      const failed = posts.find((p): p is PromiseRejectedResult => p.status === 'rejected');
      if (failed)
        problems.push(
          `scenario ${key}: its result could not be sent to tests ${rows.join(', ')} of test run ${o.runId} (generated after it went out): ${(failed.reason as Error).message}`,
        );
    }),
  );
  return { tried, problems };
}

export interface ReadBackInput {
  runId: number;
  sent: readonly PlanItem[];
  /** The fresh listing (for the run's counts), and its tests by scenario (attributed by the TestIndex). */
  tests: readonly ListedTest[];
  testsOf: (scenarioId: number) => string[];
  /** Why results could not go to tests found at the end (rows generated after their result was sent). */
  problems?: readonly string[];
  /** Test id -> its latest result in the CI build's build, as read at the end (worst-wins corrections applied). */
  shown: ReadonlyMap<string, string>;
  /** The build, for the messages. */
  buildName: string;
}

/**
 * Compares the CI build's build as read at the end with what was sent: every test of every sent scenario (each
 * dataset row is a test) must hold a result there, at least as bad as ours — a worse one is another process's
 * of the same CI build (worst wins), not a failure of ours. A row the service generated after its scenario's
 * result went out, and that never got it, fails the check by name.
 */
export function readBack({ runId, sent, tests, testsOf, problems = [], shown, buildName }: ReadBackInput): VerifyReport {
  const details = [...problems];
  let checked = 0;
  let incomplete = problems.length > 0;
  for (const item of sent) {
    const ids = testsOf(Number(item.key));
    if (!ids.length) {
      details.push(`scenario ${item.key}: no test in test run ${runId}`);
      continue;
    }
    checked += ids.length;
    const missing = ids.filter((id) => !shown.has(id));
    if (missing.length) incomplete = true;
    if (missing.length)
      details.push(
        `scenario ${item.key}: ${missing.length} of its ${ids.length} tests in test run ${runId} have no result from this run (tests ${missing.join(', ')})`,
      );
    for (const id of ids.filter((x) => !missing.includes(x))) {
      const status = shown.get(id)!;
      if (csRank(status) < csRank(String(item.status)))
        details.push(`scenario ${item.key}: test ${id} shows ${status}, sent ${String(item.status)}`);
    }
  }
  const counts = new Map<string, number>();
  for (const t of tests) {
    const status = shown.get(t.id) ?? t.last?.status ?? 'undefined';
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  const listed = [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
  return {
    ok: details.length === 0,
    details: details.length
      ? details
      : [`each of the ${sent.length} published results is on every test of its scenario in build "${buildName}" (${checked} tests)`],
    containerStatus: listed || undefined,
    incomplete: incomplete || undefined,
  };
}
