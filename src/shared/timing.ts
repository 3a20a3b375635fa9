/**
 * When a test ran: the attempt a record stands for (Playwright's `startTime` and `duration`), and the span of the
 * records a service result stands for. Times are ISO 8601 in UTC (`toISOString()`), so a journal replays them as text.
 */
import type { TestRecord } from './model';

/** The part of Playwright's TestResult that says when an attempt ran (absent on plain objects in tests). */
export interface TimingLike {
  startTime?: Date;
  /** Milliseconds; -1 while the attempt runs (one the run's globalTimeout cut off never ended). */
  duration?: number;
}

export type Timing = Pick<TestRecord, 'startedAt' | 'finishedAt'>;

/** Start and finish of one attempt, both or neither: an attempt that never ended (or has no valid start) has none. */
export function timingOf(result: TimingLike | undefined): Timing {
  const start = result?.startTime instanceof Date ? result.startTime.getTime() : NaN;
  const duration = result?.duration;
  if (!Number.isFinite(start) || typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0) return {};
  return { startedAt: new Date(start).toISOString(), finishedAt: new Date(start + duration).toISOString() };
}

/**
 * The span of several records (the tests one key stands for, merged into one result): the earliest start and the
 * latest finish of those that have timing, or none. One service result covers all of them, so its time covers them all.
 */
export function spanOf(records: readonly Timing[]): Timing {
  const timed = records.filter((r) => r.startedAt && r.finishedAt);
  if (!timed.length) return {};
  const earliest = timed.map((r) => r.startedAt!).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
  const latest = timed.map((r) => r.finishedAt!).reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
  return { startedAt: earliest, finishedAt: latest };
}
