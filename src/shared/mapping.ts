/**
 * Pure mapping: Playwright test -> keys in each service, final outcome, the record of a finished test
 * (what its attempt carries: attempt.ts); and the worst-wins aggregation used by every target. No I/O here.
 */
import { wasCut } from './comment';
import type { AttachmentRef, Outcome, PlanItem, TestRecord } from './model';
import { attachmentsOf, errorOf, optional, stepStatuses, wantsAttachments, type Annotation, type ResultLike } from './attempt';
import { spanOf, timingOf } from './timing';

export { fitSteps, StepCountNotes, stepStatuses, type ResultLike } from './attempt';

// Targets and outside targets (the fake in the tests) take the comment helpers from here too.
export { defaultComment, ERROR_TEXT_LIMIT, fitComment, FULL_ERROR_LIMIT, isDefaultComment, stripAnsi, truncate, wasCut } from './comment';

/** The part of Playwright's TestCase the mapping reads. */
export interface TestLike {
  id: string;
  title: string;
  tags: readonly string[];
  annotations: readonly Annotation[];
  retries: number;
  /** `--repeat-each`: which repetition this is (0 for the first); repetitions share their title. */
  repeatEachIndex?: number;
  /** What the test expects at the moment (a run-time `test.skip()` or `test.fail()` changes it). */
  expectedStatus?: ResultLike['status'];
  results: readonly ResultLike[];
  outcome(): 'skipped' | 'expected' | 'unexpected' | 'flaky';
  titlePath(): string[];
}

/** Annotations of the test plus the ones added at run time (visible on the results). */
function allAnnotations(test: TestLike): Annotation[] {
  return [...test.annotations, ...test.results.flatMap((r) => r.annotations ?? [])];
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Items in first-seen order, each once. */
export function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/**
 * Values of a test's annotations of one type (case-insensitive), the ones added at run time included;
 * a description may list several values separated by spaces, commas or semicolons.
 */
export function annotationValues(test: Pick<TestLike, 'annotations' | 'results'>, type: string): string[] {
  return allAnnotations(test as TestLike)
    .filter((a) => a.type.toLowerCase() === type)
    .flatMap((a) => splitList(a.description));
}

/** First capture group (or whole match) of every tag that matches, `@` included in what is matched. */
export function tagValues(test: Pick<TestLike, 'tags'>, pattern: RegExp): string[] {
  return (
    test.tags
      // Playwright takes a title's tag up to the next space: "login (@PROJ-3)" or "@PROJ-3, @PROJ-4" give "@PROJ-3)" and
      // "@PROJ-3,". No key ends in punctuation, so what closes a bracket or a sentence is not part of it.
      .map((t) => pattern.exec(t.replace(/[)\]}>,.;:!?"']+$/, '')))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => m[1] ?? m[0])
  );
}

/** A tag or annotation value of a test that looks meant for a target and is not one of its keys. */
export interface NotKey {
  value: string;
  from: 'annotation' | 'tag';
  /** What the target reads instead, when the value looks like a key in another form. */
  hint?: string;
}

/** What the mapping needs of a target: its id and how a Playwright test maps to its keys. */
export interface KeySource {
  readonly id: string;
  keysOf(test: Pick<TestLike, 'tags' | 'annotations' | 'results'>): string[];
  /** Values of this target's annotations that are not keys, and tags in a key's wrong form (said: the test is not mapped by them). */
  notKeys?(test: Pick<TestLike, 'tags' | 'annotations' | 'results'>): NotKey[];
}

/**
 * One line per annotation value or tag no target could read as a key (`zephyr: 'abc'`), at most `max` of
 * them: such a test is silently "not mapped" otherwise. A tag another listed target maps is not named
 * (`@cs-12` is CucumberStudio's). Each line once: a run-time annotation is on the test and on each attempt.
 */
export function notKeyLines(tests: readonly TestLike[], sources: readonly (KeySource & { label: string })[], max = 5): string[] {
  const lines: string[] = [];
  for (const t of tests)
    for (const s of sources) {
      const title = t.titlePath().filter(Boolean).join(' › ');
      for (const v of s.notKeys?.(t) ?? []) {
        if (v.from === 'tag' && sources.some((o) => o !== s && o.keysOf({ tags: [v.value], annotations: [], results: [] }).length))
          continue;
        const what = v.from === 'tag' ? `tag "${v.value}"` : `${s.id} annotation "${v.value}"`;
        lines.push(`${s.label}: the ${what} of "${title}" is not a key${v.hint ? ` (${v.hint})` : ''}; not mapped by it`);
      }
    }
  const each = unique(lines);
  if (each.length <= max) return each;
  const more = each.length - max;
  return [...each.slice(0, max), `… and ${more} more ${more === 1 ? 'value that is not a key' : 'values that are not keys'}`];
}

/** Keys of a test in every target (targets it does not map to are left out). */
export function keysByTarget(
  test: Pick<TestLike, 'tags' | 'annotations' | 'results'>,
  sources: readonly KeySource[],
): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const s of sources) {
    const k = s.keysOf(test);
    if (k.length) keys[s.id] = k;
  }
  return keys;
}

/**
 * One final outcome per test, keyed on `test.outcome()` and the last result's status.
 * Returns null for a test that never ran (e.g. the run was stopped before it started).
 */
export function outcomeOf(test: TestLike): Outcome | null {
  const last = test.results[test.results.length - 1];
  if (!last) return null;
  // Playwright's outcome() folds `interrupted` into `skipped`; the status table wants BLOCKED.
  if (last.status === 'interrupted') return 'interrupted';
  switch (test.outcome()) {
    case 'skipped':
      return 'skipped';
    case 'expected':
      return 'passed';
    case 'flaky': {
      // Playwright says flaky when a failed attempt is followed by a skipped one (a retry that skips
      // itself), though nothing passed: that is the failure.
      if (test.results.some((r) => r.status === passingStatus(test))) return 'flaky';
      return lastFailure(test);
    }
    case 'unexpected':
      return lastFailure(test);
  }
}

/** A failed test's outcome: how its last failing attempt ended (a later attempt may have been skipped, not run). */
function lastFailure(test: TestLike): 'failed' | 'timedOut' {
  const failing = [...test.results].reverse().find((r) => r.status === 'failed' || r.status === 'timedOut');
  return failing?.status === 'timedOut' ? 'timedOut' : 'failed';
}

/**
 * The status an attempt that met the test's expectation ends with: `failed` for a `test.fail()`, else `passed`.
 * Not `expectedStatus` as such: a retry that skips itself sets it to `skipped` for the whole test, and a skipped
 * attempt passed nothing.
 */
function passingStatus(test: TestLike): ResultLike['status'] {
  return test.expectedStatus === 'failed' ? 'failed' : 'passed';
}

/**
 * onTestEnd fires once per attempt; this tells whether the attempt is the test's last one, so that a
 * retried test is recorded once, with its final outcome. A test skipped because an earlier test of its
 * serial group failed is run again with the group's retry: only a skip the test means is final at once.
 */
export function isFinalAttempt(test: TestLike, result: ResultLike): boolean {
  if (result.status === 'interrupted') return true;
  if (result.status === 'skipped') return test.expectedStatus === 'skipped' || result.retry >= test.retries;
  if (test.outcome() !== 'unexpected') return true;
  return result.retry >= test.retries;
}

/** Builds the journaled record of a finished test, or null when it never ran. */
export function recordOf(
  test: TestLike,
  sources: readonly KeySource[],
  /**
   * `root`: the project's folder (Playwright's rootDir): paths in error texts are shown relative to it.
   * `place`: split mode's Playwright project (TestRecord.place).
   */
  evidence: { attachments: 'failed' | 'all' | 'none'; root?: string; place?: string } = { attachments: 'none' },
  /** Its last attempt began and never ended (stopped by the run's globalTimeout): interrupted, like a run stopped by Ctrl+C. */
  cutShort = false,
): TestRecord | null {
  const outcome = cutShort ? 'interrupted' : outcomeOf(test);
  if (!outcome) return null;
  const failing = [...test.results].reverse().find((r) => r.status === 'failed' || r.status === 'timedOut');
  const path = test.titlePath().filter(Boolean);
  const wanted = wantsAttachments(evidence.attachments, outcome);
  const shown = stepsAttempt(test, outcome, failing);
  return {
    testId: test.id,
    title: (path.join(' › ') || test.title) + (test.repeatEachIndex ? ` (repetition ${test.repeatEachIndex + 1})` : ''),
    keys: keysByTarget(test, sources),
    outcome,
    ...(outcome === 'passed' || outcome === 'skipped' ? {} : errorOf(failing ?? test.results[test.results.length - 1], evidence.root)),
    // A `test.fail()` that passed has no error of its own: Playwright's words for what went wrong.
    ...(outcome === 'failed' && !failing && test.results.at(-1)?.status === 'passed' ? { error: 'Expected to fail, but passed.' } : {}),
    attempts: test.results.length,
    ...passedBeforeFailing(test, outcome),
    // The steps and timing of the attempt the outcome stands for: a flaky test's passing one (its status is a pass), else
    // the failure's (no timing when it never ended: the run's globalTimeout cut it off).
    ...optional('steps', stepStatuses(shown, test.expectedStatus)),
    ...timingOf(shown),
    ...optional('attachments', wanted ? attachmentsOf(test, outcome) : []),
    ...(wanted ? { evidence: true as const } : {}),
    ...(evidence.place !== undefined ? { place: evidence.place } : {}),
  };
}

function stepsAttempt(test: TestLike, outcome: Outcome, failing: ResultLike | undefined): ResultLike | undefined {
  const last = test.results[test.results.length - 1];
  if (outcome === 'flaky') return [...test.results].reverse().find((r) => r.status === passingStatus(test)) ?? last;
  return outcome === 'failed' || outcome === 'timedOut' ? (failing ?? last) : last;
}

/** A flaky test whose last passing attempt came before a failing one (its serial group's retry): which attempt passed. */
function passedBeforeFailing(test: TestLike, outcome: Outcome): { passedAttempt?: number } {
  if (outcome !== 'flaky') return {};
  const expected = passingStatus(test);
  let passed = test.results.length - 1;
  while (passed >= 0 && test.results[passed].status !== expected) passed--;
  return passed >= 0 && passed < test.results.length - 1 ? { passedAttempt: passed + 1 } : {};
}

/** A target's view of statuses: outcome -> status, and how bad a status is (higher = worse). */
export interface StatusPolicy<S extends number | string> {
  statusFor(outcome: Outcome): S;
  rank(status: S, outcome: Outcome): number;
  /** Comment / description for one key, from the records that fed it. */
  comment(item: { outcome: Outcome; records: TestRecord[] }): string;
}

/** How bad an outcome is, to break ties between statuses of equal rank. */
const SEVERITY: Record<Outcome, number> = { failed: 6, timedOut: 5, interrupted: 4, flaky: 3, passed: 2, skipped: 1 };

/**
 * Groups records by key and keeps the worst status per key (how bad a status is comes from the
 * target's policy). Output is sorted by key for stable calls.
 */
export function aggregate<S extends number | string>(
  records: readonly TestRecord[],
  keysOf: (r: TestRecord) => readonly string[],
  policy: StatusPolicy<S>,
): PlanItem[] {
  const byKey = new Map<string, { status: S; outcome: Outcome; rank: number; records: TestRecord[]; decider: TestRecord }>();
  for (const record of records) {
    for (const key of keysOf(record)) {
      const status = policy.statusFor(record.outcome);
      const rank = policy.rank(status, record.outcome);
      const seen = byKey.get(key);
      if (!seen) byKey.set(key, { status, outcome: record.outcome, rank, records: [record], decider: record });
      else {
        seen.records.push(record);
        // Equal ranks (a custom status ranks like its outcome's default): the worse outcome decides, whatever the order.
        const worse = rank > seen.rank || (rank === seen.rank && SEVERITY[record.outcome] > SEVERITY[seen.outcome]);
        if (worse) Object.assign(seen, { status, outcome: record.outcome, rank, decider: record });
      }
    }
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, v]) => {
      const comment = policy.comment({ outcome: v.outcome, records: v.records });
      const files = evidenceFiles(v.records, wasCut(comment));
      return {
        key,
        outcome: v.outcome,
        status: v.status,
        comment,
        tests: v.records.map((r) => r.title),
        ...(v.decider.steps?.length ? { steps: v.decider.steps } : {}),
        ...(files.length ? { attachments: files } : {}),
        ...spanOf(v.records),
      };
    });
}

/**
 * The files of every feeding test (each once), plus the full error text when the comment had to cut it;
 * each names the test it came from (a key's upload comment says which of its tests failed).
 */
function evidenceFiles(records: readonly TestRecord[], commentCut: boolean): AttachmentRef[] {
  const seen = new Set<string>();
  const files = records
    .flatMap((r) => (r.attachments ?? []).map((a) => ({ ...a, test: r.title })))
    .filter((a) => !a.path || (!seen.has(a.path) && seen.add(a.path)));
  const errors = records.filter((r) => r.evidence && r.error);
  if (commentCut && errors.length) {
    const text = errors.map((r) => `${r.title}\n${r.errorLocation ? `at ${r.errorLocation}\n` : ''}\n${r.error}`).join('\n\n---\n\n');
    const test = errors.length === 1 ? errors[0].title : `${errors[0].title} and ${errors.length - 1} more`;
    files.push({ name: 'error.txt', contentType: 'text/plain', body: Buffer.from(text, 'utf8'), test });
  }
  return files;
}
