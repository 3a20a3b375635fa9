/**
 * What one attempt of a test carries besides its status: its errors, its steps' statuses and its files,
 * read from Playwright's result (structural types, so tests can pass plain objects). No I/O here.
 */
import * as path from 'node:path';
import { FULL_ERROR_LIMIT, stripAnsi, truncate } from './comment';
import type { AttachmentRef, Outcome, StepStatus } from './model';
import type { TimingLike } from './timing';

export type Annotation = { type: string; description?: string };

export type ErrorLike = {
  message?: string;
  stack?: string;
  value?: string;
  location?: { file: string; line: number; column: number };
  /** What the error was thrown for (`new Error(…, { cause })`), as Playwright passes it on. */
  cause?: ErrorLike;
};

/** The part of Playwright's TestResult the mapping reads (structural, so tests can pass plain objects). */
export interface ResultLike extends TimingLike {
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  retry: number;
  annotations?: readonly Annotation[];
  error?: ErrorLike;
  errors?: readonly ErrorLike[];
  /** `duration` is -1 while a step runs: a step the test's timeout cut off keeps it. */
  steps?: readonly { category: string; error?: unknown; annotations?: readonly Annotation[]; duration?: number }[];
  attachments?: readonly { name: string; contentType: string; path?: string; body?: Buffer }[];
}

/**
 * Every error of the attempt (several `expect.soft` failures, then what was thrown), each with its causes:
 * the first as it is (a comment shows its first line and where it was thrown), the others after it. Paths
 * under `root` (the project: Playwright's rootDir) are shown relative to it, not as the runner's absolute paths.
 */
export function errorOf(result: ResultLike | undefined, root?: string): { error?: string; errorLocation?: string } {
  const errors = result?.errors?.length ? result.errors : result?.error ? [result.error] : [];
  const texts = errors.map((e) => relativeTo(root, textOf(e))).filter((t) => t.length > 0);
  if (!texts.length) return {};
  const loc = errors.find((e) => textOf(e))?.location;
  const text = texts.map((t, i) => (i === 0 ? t : `--- error ${i + 1} of ${texts.length} ---\n${t}`)).join('\n\n');
  return {
    error: truncate(text, FULL_ERROR_LIMIT),
    ...(loc ? { errorLocation: `${relativeTo(root, loc.file)}:${loc.line}:${loc.column}` } : {}),
  };
}

/** `text` with every path under `root` (also as a file:// URL) relative to it. */
export function relativeTo(root: string | undefined, text: string): string {
  if (!root || !path.isAbsolute(root)) return text;
  const dir = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  const url = `file://${dir
    .split(path.sep)
    .join('/')
    .replace(/^(?!\/)/, '/')}`;
  return text.split(url).join('').split(dir).join('');
}

function textOf(e: ErrorLike | undefined, depth = 0): string {
  const text = stripAnsi(e?.message ?? e?.value ?? e?.stack ?? '').trim();
  // A cause chain can be long (or, in a hand-made error, endless): the first few say enough.
  const cause = e?.cause && depth < 3 ? textOf(e.cause, depth + 1) : '';
  return cause ? `${text}\n[cause]: ${cause}` : text;
}

/**
 * Statuses of the top-level `test.step`s of an attempt, in order (hooks and expects are not steps), read
 * as the attempt ended: a step in which the test skipped itself (Playwright gives that step the skip as its
 * error) is skipped, and the failure a `test.fail()` test expected leaves its step passed, like the test.
 */
export function stepStatuses(result: ResultLike | undefined, expectedStatus?: ResultLike['status']): StepStatus[] {
  const steps = (result?.steps ?? []).filter((s) => s.category === 'test.step');
  const expectedFailure = result?.status === 'failed' && expectedStatus === 'failed';
  const statuses: StepStatus[] = steps.map((s) => {
    if (s.annotations?.some((a) => a.type === 'skip')) return 'skipped';
    // A step an interruption (Ctrl+C, the run's globalTimeout) cut off never ended: it did not pass.
    if (!s.error) return result?.status === 'interrupted' && s.duration !== undefined && s.duration < 0 ? 'skipped' : 'passed';
    if (result?.status === 'skipped') return 'skipped';
    return expectedFailure ? 'passed' : 'failed';
  });
  // A step the test's timeout cut off carries no error of its own: it is the one that never ended. A
  // timeout outside every step (after them, or in a fixture's teardown) fails none of them.
  if (result?.status === 'timedOut' && !statuses.includes('failed')) {
    const cut = steps.findIndex((s) => s.duration !== undefined && s.duration < 0);
    if (cut >= 0) statuses[cut] = 'failed';
    // Without durations (not Playwright's own objects) the last step that ran is the best guess.
    else if (statuses.length && steps.every((s) => s.duration === undefined)) statuses[statuses.length - 1] = 'failed';
  }
  return statuses;
}

/** Whether a test's attachments go up under the policy: `failed` covers failed, timed-out and flaky tests. */
export function wantsAttachments(policy: 'failed' | 'all' | 'none', outcome: Outcome): boolean {
  if (policy === 'none') return false;
  return policy === 'all' || outcome === 'failed' || outcome === 'timedOut' || outcome === 'flaky';
}

/**
 * The files of the attempt whose failure the result reports (the last failing one; the last attempt when
 * none failed), and of the other attempts those it lacks by name, nearest first: with `trace:
 * 'on-first-retry'` the trace is recorded on a retry only, and it is the evidence a user asked for. The
 * same name from several attempts goes up once (the reported attempt's).
 */
export function attachmentsOf(test: { results: readonly ResultLike[] }, outcome: Outcome): AttachmentRef[] {
  const results = test.results;
  const failing =
    outcome === 'passed' || outcome === 'skipped' ? -1 : lastIndex(results, (r) => r.status === 'failed' || r.status === 'timedOut');
  const reported = failing >= 0 ? failing : results.length - 1;
  if (reported < 0) return [];
  // Nearest first: the reported attempt, then the later ones, then the earlier ones.
  const order = [
    reported,
    ...results.map((_, i) => i).filter((i) => i > reported),
    ...results.map((_, i) => reported - 1 - i).filter((i) => i >= 0),
  ];
  const files = (r: ResultLike) => (r.attachments ?? []).filter((a) => a.path || a.body);
  const own = new Set(files(results[reported]).map((a) => a.name));
  const taken = new Set<string>();
  const out: AttachmentRef[] = [];
  for (const i of order)
    for (const a of files(results[i])) {
      if (i !== reported && (own.has(a.name) || taken.has(a.name))) continue;
      if (i !== reported) taken.add(a.name);
      out.push({ name: a.name, contentType: a.contentType, path: a.path, body: a.body });
    }
  return out;
}

function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}

/**
 * A test's step statuses as a service test of `count` steps takes them, matched by order: the first `count`.
 * When the failure lies in a step past them, the last one says FAIL: the service's steps never claim more
 * than the run showed (every step PASS on a failed test).
 */
export function fitSteps(steps: readonly StepStatus[], count: number): StepStatus[] {
  const fitted = steps.slice(0, Math.max(0, count));
  if (fitted.length && !fitted.includes('failed') && steps.slice(count).includes('failed')) fitted[fitted.length - 1] = 'failed';
  return fitted;
}

/** The keys whose service test has another number of steps than their Playwright test: said once, at the end. */
export class StepCountNotes {
  private readonly differ = new Map<string, string>();

  /**
   * What one send of a key's steps saw: `count` steps in the service, `steps` the top-level steps Playwright ran.
   * Fewer is a difference only when every step that ran passed: a test that failed or skipped itself in a step
   * never reached the ones after it.
   */
  saw(key: string, count: number, steps: readonly StepStatus[]): void {
    const stoppedEarly = steps.some((s) => s !== 'passed');
    if (count === steps.length || (steps.length < count && stoppedEarly)) this.differ.delete(key);
    else this.differ.set(key, `${key}: ${count} here, ${steps.length} in Playwright`);
  }

  /** One line, or none when every count matched. */
  lines(): string[] {
    const n = this.differ.size;
    if (!n) return [];
    const some = [...this.differ.values()].slice(0, 3).join('; ') + (n > 3 ? '; …' : '');
    return [
      `the step counts of ${n} test${n === 1 ? '' : 's'} differ from their Playwright tests' top-level steps (${some}): steps are matched by order, and a failure past the last step here is shown on that step`,
    ];
  }
}

/** `{ [key]: list }` when the list has items, else nothing (records stay small in the journal). */
export function optional<K extends string, T>(key: K, list: T[]): Partial<Record<K, T[]>> {
  return list.length ? ({ [key]: list } as Record<K, T[]>) : {};
}
