import type { PlanItem } from '../../shared/model';
import type { RequestLane } from '../../kit/lane';
import type { CucumberStudioClient } from './client';
import { HttpError } from '../../http/errors';
import { isTokenRefused, type PushClient } from './push-client';
import { joinUids, type NamedTest } from './push-uids';
import { olderThan, stepStatusesFor } from './results';
import { heldResults } from './worst-wins';

/**
 * Per result: send as results come. Bulk push: a push when 500 results are pending or the oldest has waited 30 s
 * (Xray's import window), plus the end's flush — by count, not by timing (`spaced` would make the number of pushes
 * follow how long the last one took): a 2,000-test suite is a handful of pushes whatever its pace, instead of
 * 2,000 posts under the service's 200 calls a minute, and the end's push carries only what came in its last window.
 */
const PER_RESULT = { maxItems: 50, maxWaitMs: 200, spaced: false };
const BULK = { maxItems: 500, maxWaitMs: 30_000, spaced: false };

export const batchingFor = (push: boolean) => (push ? BULK : PER_RESULT);

/**
 * A failed test with its failure text goes by the per-result path, status and text in one post (#84): the push
 * may drop the text (spec §5.3: not found in any source), and setting it afterwards costs a read of the build for
 * the result ids plus an edit per test. The issue allows one call per failed test ("as Zephyr's comments"); a
 * failed test posted costs just that, nothing after. What carries no failure text (passed, skipped, flaky notes)
 * goes by the push.
 */
export const carriesFailureText = (item: PlanItem): boolean => String(item.status) === 'failed' && !!item.comment;

/** One test to push: the item's result for one test of its scenario. */
export interface PushEntry {
  item: PlanItem;
  testId: string;
}

/** Cucumber's words for the statuses a pushed report can say (spec §5.3 [suggest]; `blocked`, `retest` it cannot). */
const CUCUMBER_WORD: Record<string, string> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  undefined: 'undefined',
  wip: 'pending',
};
/** The service's reading of a scenario: its worst step or hook (failed > undefined > pending > skipped > passed). */
const WORST_FIRST = ['failed', 'undefined', 'pending', 'skipped', 'passed'];
const rank = (word: string) => WORST_FIRST.length - WORST_FIRST.indexOf(word);

interface CucumberResult {
  status: string;
  error_message?: string;
}

/**
 * The cucumber-json element of one test, named `<scenario> (uid:<uuid>)` (the spelling the vendor's Cucumber
 * template writes, spec §5.3), its steps fitted to the test's step count as the per-result path sends them; or
 * undefined when the report cannot say the item's status exactly (`blocked`, `retest`, or steps worse than it):
 * that test goes by the per-result path.
 */
export function scenarioElement(item: PlanItem, scenarioName: string, uid: string, stepCount: number | undefined): object | undefined {
  const word = CUCUMBER_WORD[String(item.status)];
  if (!word) return undefined;
  const steps = (stepStatusesFor(item.steps, stepCount) ?? []).map((s) => CUCUMBER_WORD[s] ?? 'undefined');
  const worst = steps.reduce((w, s) => (rank(s) > rank(w) ? s : w), 'passed');
  if (steps.length && rank(worst) > rank(word)) return undefined;
  const error = word === 'failed' && item.comment ? item.comment : undefined;
  const results: CucumberResult[] = steps.map((status) => ({ status }));
  const failedStep = results.find((r) => r.status === 'failed');
  if (failedStep && error) failedStep.error_message = error;
  // A status no step says (a failure after the last step, no steps at all): an `after` hook says it, as Cucumber reports one.
  const hook: CucumberResult[] =
    !steps.length || rank(worst) < rank(word) ? [{ status: word, ...(error && !failedStep ? { error_message: error } : {}) }] : [];
  return {
    id: uid,
    keyword: 'Scenario',
    type: 'scenario',
    name: `${scenarioName} (uid:${uid})`,
    steps: results.map((result, i) => ({ keyword: 'Step ', name: `step ${i + 1}`, result })),
    ...(hook.length ? { after: hook.map((result) => ({ result })) } : {}),
  };
}

/** What a place's push did: per item, the tests it landed; and the tests a push that failed unsettled still carried. */
export interface PushOutcome {
  landed: Map<PlanItem, Set<string>>;
  /**
   * A push that may have been applied and could not be settled: its tests wait in the outbox (a replay reads the
   * build first). A test it never carried (no uid, a name the run shares) goes by the per-result path as ever.
   */
  unsettled?: { tests: ReadonlySet<string>; reason: string };
}

/** A push that failed and may have been applied: what it still carried, and what had landed before. */
class UnsettledPush extends Error {
  constructor(
    readonly failure: Error,
    readonly tests: ReadonlySet<string>,
    readonly landed: ReadonlySet<string>,
  ) {
    super(failure.message);
  }
}

/**
 * The bulk push (spec §5): the run's uids read once its tests are final (again only when tests were added), one
 * cucumber-json report per place into the CI build's build, the answer's `test_import` trusted only for the names
 * it lists. A push that may have been applied (5xx after sending, timeout, reset) is never repeated blindly: the
 * build is read and only the tests with no result of this publication are pushed again (a replay looks first too).
 */
export class PushWriter {
  /** Every test of the run the JSON:API listed (fed by the publisher's listings). */
  private readonly named = new Map<string, NamedTest>();
  private uids = new Map<string, string>();
  private joinedAt = -1;
  /** The read of the run's uids under way: places pushed side by side (split mode) wait for the same read. */
  private reading: Promise<void> = Promise.resolve();
  /** The token was refused: every later batch goes by the per-result path without asking again. */
  private refused = false;
  /** Test in a build -> what this process pushed there: an item sent again as it was is not pushed twice. */
  private readonly pushed = new Map<string, string>();
  readonly stats = { pushes: 0, pushed: 0 };
  /** Said once at the end: why tests went by the per-result path. */
  readonly problems = new Set<string>();

  constructor(
    private readonly push: PushClient,
    private readonly client: CucumberStudioClient,
    private readonly lane: RequestLane,
    private readonly replay: boolean,
    private readonly since: number | undefined,
  ) {}

  /** The run's tests as a listing showed them (names, datasets). */
  saw(tests: readonly NamedTest[]): void {
    for (const t of tests) this.named.set(t.id, t);
  }

  /** The uid of each test that has one without doubt (tests listed since the last read make one more read). */
  async uidsOf(runId: number, testIds: readonly string[]): Promise<Map<string, string>> {
    const unknown = testIds.some((id) => this.named.has(id) && !this.uids.has(id));
    if (unknown && this.named.size !== this.joinedAt) {
      this.joinedAt = this.named.size;
      const named = [...this.named.values()];
      const read: Promise<void> = this.push.runTests(runId).then(
        (published) => {
          // A later read (more tests listed) started meanwhile: its answer is the one kept.
          if (this.reading === read) this.uids = joinUids(published, named).uids;
        },
        (error: unknown) => {
          if (this.reading === read) this.joinedAt = -1;
          throw error;
        },
      );
      this.reading = read;
    }
    // Another place's read under way covers these tests too: without waiting for it, a second place pushed at the
    // same time found no uid and went one post per result.
    if (unknown) await this.reading;
    return new Map(testIds.flatMap((id) => (this.uids.has(id) ? [[id, this.uids.get(id)!] as const] : [])));
  }

  /**
   * The place's items with their tests: the tests the push landed, per item. A push the service refused for sure
   * (a 4xx: wrong token, unknown format) lands nothing and every test goes by the per-result path; one that may
   * have been applied and could not be settled names the tests it carried (`unsettled`).
   */
  async pushItems(
    runId: number,
    buildId: string,
    environment: string,
    all: readonly PlanItem[],
    testsOf: (item: PlanItem) => readonly string[],
    stepCounts: ReadonlyMap<string, number>,
  ): Promise<PushOutcome> {
    const items = all.map((item) => ({ item, tests: testsOf(item) })).filter((i) => i.tests.length);
    if (!items.length) return { landed: new Map() };
    const entries = items.flatMap(({ item, tests }) => tests.map((testId) => ({ item, testId })));
    let landed: ReadonlySet<string> = new Set<string>();
    let unsettled: PushOutcome['unsettled'];
    try {
      if (!this.refused) landed = await this.pushInto(runId, buildId, environment, entries, stepCounts);
    } catch (error) {
      if (error instanceof UnsettledPush) {
        landed = error.landed;
        unsettled = { tests: error.tests, reason: error.message };
      } else if (error instanceof HttpError && error.status >= 400 && error.status < 500 && ![408, 429].includes(error.status)) {
        this.refused ||= isTokenRefused(error);
        this.problems.add(`the bulk push was refused (${error.message}); those results went one by one`);
      } else throw error;
    }
    const perItem = new Map(items.map(({ item, tests }) => [item, new Set(tests.filter((t) => landed.has(t)))]));
    return { landed: perItem, ...(unsettled ? { unsettled } : {}) };
  }

  /**
   * Pushes `entries` into build `buildId` of `environment`; returns the test ids the service imported (or already
   * held from this publication, after an ambiguous failure or on a replay). Throws when the push failed for sure.
   */
  async pushInto(
    runId: number,
    buildId: string,
    environment: string,
    entries: readonly PushEntry[],
    stepCounts: ReadonlyMap<string, number>,
  ): Promise<Set<string>> {
    const uids = await this.uidsOf(
      runId,
      entries.map((e) => e.testId),
    );
    const landed = new Set<string>();
    // What the push carries (no text: see `carriesFailureText`): an item sent again with only another comment is not pushed twice.
    const print = (e: PushEntry) => JSON.stringify([e.item.status, e.item.steps ?? []]);
    for (const e of entries) if (this.pushed.get(`${buildId} ${e.testId}`) === print(e)) landed.add(e.testId);
    let todo = entries
      .filter((e) => !landed.has(e.testId))
      .flatMap((e) => {
        const uid = uids.get(e.testId);
        const name = this.named.get(e.testId)?.scenarioName ?? '';
        const element = uid && scenarioElement(e.item, name, uid, stepCounts.get(e.testId));
        return element ? [{ ...e, uid, element }] : [];
      });
    if (!todo.length) return landed;
    const attempts = this.lane.retry(
      'import_test_results',
      async (attempt, mayHaveApplied) => {
        if (mayHaveApplied || (attempt === 1 && this.replay)) {
          const held = await this.heldOfThisRun(runId, buildId);
          for (const e of todo) if (held.has(e.testId)) landed.add(e.testId);
          todo = todo.filter((e) => !held.has(e.testId));
          if (!todo.length) return;
        }
        const report = JSON.stringify([
          { id: 'playwright', keyword: 'Feature', name: 'Playwright', uri: 'playwright', elements: todo.map((e) => e.element) },
        ]);
        this.stats.pushes++;
        const answer = await this.push.pushOnce(report, buildId, environment);
        const names = new Set(answer.imported.map((i) => i.name));
        for (const e of todo) if (names.has((e.element as { name: string }).name)) landed.add(e.testId);
      },
      `push ${runId} ${buildId}`,
    );
    await attempts.catch((error: Error) => {
      const refusedForSure = error instanceof HttpError && error.status >= 400 && error.status < 500 && ![408, 429].includes(error.status);
      throw refusedForSure ? error : new UnsettledPush(error, new Set(todo.map((e) => e.testId)), new Set(landed));
    });
    for (const e of entries) if (landed.has(e.testId)) this.pushed.set(`${buildId} ${e.testId}`, print(e));
    this.stats.pushed += landed.size;
    return landed;
  }

  /** Tests that hold a result of this publication in the build (one read). */
  private async heldOfThisRun(runId: number, buildId: string): Promise<Map<string, { id: string; description: string }>> {
    const held = heldResults(await this.client.getBuildResults(runId, buildId));
    const ours = new Map<string, { id: string; description: string }>();
    for (const [testId, list] of held) {
      const last = list.filter((r) => !olderThan(new Date(r.createdAt).toISOString(), this.since)).at(-1);
      if (last) ours.set(testId, last);
    }
    return ours;
  }
}
