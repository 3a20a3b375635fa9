import { HttpError } from '../../http/errors';
import { classify } from '../../kit/classify';
import type { Reachability } from '../../kit/reachability';
import { parseRetryAfter } from '../../kit/retry-timing';
import { notReady, ready, waitFor, WaitTimeoutError, type Clock, type Poll } from '../../kit/wait';
import { attributeByName, type ScenarioNames, type Snapshot } from './snapshots';

export interface IndexSources {
  /** The project's scenario names (`GET …/scenarios`): fetched only once a listed test lacks the linkage. */
  loadNames(): Promise<ScenarioNames>;
  /** One test's scenario (`GET …/test_snapshots/{id}?include=scenario`), for shared names in the fallback. */
  lookup(testId: string): Promise<number | undefined>;
}

/**
 * Which tests of the run belong to which scenario, from the latest listing. The list's linkage
 * (`include=scenario`) settles it in the same call, whatever the project's size; only tests without it
 * (an older service) are attributed by name, which needs the project's scenario names once.
 */
export class TestIndex {
  private tests: readonly Snapshot[] = [];
  private byScenario = new Map<number, string[]>();
  /** Fallback attributions (test id -> scenario id), kept across listings: a test's scenario never changes. */
  private readonly byName = new Map<string, number>();
  /** The scenario names (`names`) and each looked-up test's scenario (by test id), asked once. */
  private readonly asked = new Map<string, Promise<unknown>>();
  /** True once a listed test came without the linkage (names were needed). */
  fallback = false;

  constructor(private readonly sources: IndexSources) {}

  /** Takes a new listing; in the fallback, attributes the tests that could belong to `wanted` (plus `alsoLookUp`). */
  async update(tests: readonly Snapshot[], wanted: ReadonlySet<number>, alsoLookUp?: ReadonlySet<string>): Promise<void> {
    this.tests = tests;
    const unlinked = tests.filter((t) => t.scenarioId === undefined && !this.byName.has(t.id));
    if (unlinked.length) {
      this.fallback = true;
      // A failed download is not cached: the next publish asks again.
      const names = await once(this.asked, 'names', () => this.sources.loadNames());
      const lookup = (id: string) => once(this.asked, id, () => this.sources.lookup(id));
      const found = await attributeByName(unlinked, wanted, names, lookup, alsoLookUp);
      for (const [test, scenario] of found) this.byName.set(test, scenario);
    }
    this.byScenario = new Map();
    for (const t of tests) {
      const id = t.scenarioId ?? this.byName.get(t.id);
      const ofScenario = id === undefined ? undefined : this.byScenario.get(id);
      if (ofScenario) ofScenario.push(t.id);
      else if (id !== undefined) this.byScenario.set(id, [t.id]);
    }
  }

  /** Looks up every test of the latest listing whose scenario is not known (costly: only when names failed). */
  lookUpUnattributed(wanted: ReadonlySet<number>): Promise<void> {
    return this.update(this.tests, wanted, this.unattributed());
  }

  testsOf(scenarioId: number): string[] {
    return this.byScenario.get(scenarioId) ?? [];
  }

  /** Tests of the latest listing whose scenario is not known. */
  unattributed(): Set<string> {
    return new Set(this.tests.filter((t) => t.scenarioId === undefined && !this.byName.has(t.id)).map((t) => t.id));
  }

  /** Identity of the latest listing (to tell whether the list is still growing). */
  fingerprint(): string {
    return this.tests
      .map((t) => t.id)
      .sort()
      .join(',');
  }
}

/** `make()` once per key; a failure is not kept (the next call asks again). */
function once<T>(cache: Map<string, Promise<unknown>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = cache.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make().catch((error: unknown) => {
      cache.delete(key);
      throw error;
    });
    cache.set(key, p);
  }
  return p;
}

/** What the run is expected to hold, and how to check mapped ids (see RunLifecycle). */
export interface RunScenarios {
  /** Ids a create or PATCH of this run took: their tests are awaited. */
  readonly requested: ReadonlySet<number>;
  /** Mapped ids known not to exist in the project. */
  readonly absent: ReadonlySet<number>;
  /** Checks ids one by one (404 -> absent). */
  checkExistence(ids: readonly number[]): Promise<void>;
}

export interface ReadyOptions {
  timeoutMs: number;
  clock?: Clock;
  /** First pause between probes (ms, default 250); grows by half each time up to `maxDelayMs` (default 2000: the
   * results wait for the tests, so a late look costs the whole run's end; a look is one call of 200 a minute). */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** The run's publishTimeout: the wait stops when it passes. */
  signal?: AbortSignal;
  /** CucumberStudio given up for this run when the probes get no answer (see UNREACHABLE). */
  reachability?: Reachability;
  /**
   * A short list that has not grown for this long (ms, default 5000) gets its lacking ids checked once:
   * a lenient service may take unknown ids in a create and never make tests for them.
   */
  settleMs?: number;
}

/**
 * Calls `probe` through the shared wait until it is ready (true) or the timeout (false). The probe decides
 * which failures mean "not yet" (see notYet); anything it throws that the shared classification takes as
 * final surfaces at once, and no answer at all gives the service up after a few tries (an UnreachableError),
 * never "still generating".
 */
export async function pollUntil(probe: () => Promise<Poll<unknown>>, o: ReadyOptions): Promise<boolean> {
  try {
    await waitFor({
      label: 'CucumberStudio test run: generated tests',
      ...{ timeoutMs: o.timeoutMs, clock: o.clock, signal: o.signal, reachability: o.reachability },
      ...{ firstDelayMs: o.firstDelayMs ?? 250, factor: 1.5, maxDelayMs: o.maxDelayMs ?? 2_000 },
      attempt: probe,
    });
    return true;
  } catch (error) {
    if (error instanceof WaitTimeoutError) return false;
    throw error;
  }
}

/** A listing that failed: "not yet" (with the service's Retry-After), unless the failure is final or no answer at all. */
function notYet(error: unknown, now: number): Poll<never> {
  // No answer is not "still generating": the shared wait gives the service up after a few tries.
  if (['fatal', 'unreachable'].includes(classify(error).kind)) throw error;
  const waitMs = error instanceof HttpError ? parseRetryAfter(error.headers['retry-after'], now) : undefined;
  return notReady((error as Error).message, waitMs);
}

export interface Readiness {
  /** A 200 listing was read (the run's tests exist, at least in part). */
  listed: boolean;
  /** Every awaited scenario has its tests, and the list has stopped growing. */
  ready: boolean;
}

/** How soon a listing that looks complete is read again to confirm it (see waitForTests). */
const CONFIRM_WITHIN_MS = 1_000;

/**
 * Polls the test list until every awaited scenario (wanted, requested from this run, existing) has its
 * tests and the list is final. "Not ready" is a 423 (documented) or a 200 with fewer tests than asked
 * (field evidence): both are waited out alike; the run's `statuses` are never used. A list is final only
 * when two 200 listings in a row show the same tests, whatever the first one showed: a scenario with
 * datasets has one test per row, generated one by one, so a first listing that lands half-way already
 * holds a test for every scenario (row a) while rows b and c are still to come. A 423 between two listings
 * breaks the row (the service said it was still generating). Costs one list call more than the first
 * complete listing. Any other failure (truncated JSON, 4xx) surfaces at once.
 */
export async function waitForTests(
  {
    runId,
    list,
    index,
    todo,
    run,
  }: { runId: number; list: () => Promise<Snapshot[]>; index: TestIndex; todo: ReadonlySet<number>; run: RunScenarios },
  o: ReadyOptions,
): Promise<Readiness> {
  const now = o.clock ? () => o.clock!.now() : Date.now;
  let listed = false;
  /** Fingerprint of the latest 200 listing, and how many 200 listings in a row have shown it. */
  let previous: string | undefined;
  let inARow = 0;
  let changedAt = now();
  let lastProblem: unknown;
  const lacking = () => [...todo].filter((id) => run.requested.has(id) && !run.absent.has(id) && index.testsOf(id).length === 0);
  const settled = await pollUntil(async () => {
    let tests: Snapshot[];
    try {
      tests = await list();
    } catch (error) {
      inARow = 0;
      return notYet((lastProblem = error), now());
    }
    await index.update(tests, todo);
    listed = true;
    const print = index.fingerprint();
    const changed = print !== previous;
    previous = print;
    inARow = changed ? 1 : inARow + 1;
    if (changed) changedAt = now();
    let short = lacking();
    if (short.length && !changed && now() - changedAt >= (o.settleMs ?? 5_000)) {
      await run.checkExistence(short);
      short = lacking();
    }
    if (!short.length && inARow >= 2) return ready(true);
    // A listing that looks complete for the first time is confirmed within a second: the growing backoff of a
    // long 423 phase (up to 2 s) would hold every result that long, while rows still being made show within it.
    return notReady('not all tests generated yet', undefined, !short.length && inARow === 1 ? CONFIRM_WITHIN_MS : undefined);
  }, o);
  if (!listed) {
    const why =
      lastProblem instanceof HttpError && lastProblem.status === 423
        ? '423'
        : `last answer: ${(lastProblem as Error | undefined)?.message ?? 'none'}`;
    throw new Error(
      `test run ${runId}: its tests were still being generated after ${Math.round(o.timeoutMs / 1000)} s (${why}); ` +
        `the results stay in the outbox for \`npx playwright-tms-reporter replay\`, or raise cucumberstudio.snapshotTimeoutMs (CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS)`,
    );
  }
  return { listed, ready: settled };
}

/**
 * One listing of the run as it is now (the end's fresh look): a 423 or a passing failure is waited out like
 * in waitForTests, the first 200 is taken as it is. Throws when none came within the timeout.
 */
export async function listWhenServed<T>(runId: number, list: () => Promise<T>, o: ReadyOptions): Promise<T> {
  const now = o.clock ? () => o.clock!.now() : Date.now;
  let answer: { value: T } | undefined;
  let lastProblem: unknown;
  await pollUntil(async () => {
    try {
      return ready((answer = { value: await list() }));
    } catch (error) {
      return notYet((lastProblem = error), now());
    }
  }, o);
  if (!answer)
    throw new Error(
      `test run ${runId}: no listing of its tests within ${Math.round(o.timeoutMs / 1000)} s (last answer: ${(lastProblem as Error | undefined)?.message ?? 'none'})`,
    );
  return answer.value;
}
