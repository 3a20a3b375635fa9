/**
 * The one retry loop: attempt → classify once → give up? → wait (capped, deadline-checked) → again.
 * The lane's retries, job polls, the test-list wait and the session's waits all run on it; each brings
 * only its policy (`next`): how long to wait after this failure, or throw to give up. Giving up is decided
 * before any sleep, so the last attempt is never followed by a wait nor announced as retried, and what is
 * thrown then is the attempt's own error (the service's 503 with its words), not a timeout.
 */
import { classify, type Failure } from './classify';
import type { Clock } from './clock';
import { raceSignal, sleepWithin, type Deadline } from './deadline';
import { unreachableDelay, UnreachableStreak, type Reachability } from './reachability';

/** What one attempt found: done with a value, or not yet, with a reason worth showing on a timeout. */
export type Poll<T> = { ready: true; value: T } | { ready: false; reason: string; waitMs?: number; withinMs?: number };
export const ready = <T>(value: T): Poll<T> => ({ ready: true, value });
/** Not yet; `waitMs`: the service said when to look again (e.g. Retry-After on a 423). */
export const notReady = <T = never>(reason: string, waitMs?: number, withinMs?: number): Poll<T> => ({
  ready: false,
  reason,
  waitMs,
  withinMs,
});

/** An attempt that did not give the value: an answer saying "not yet", or a failure worth another attempt. */
export interface Miss {
  /** 1-based. */
  attempt: number;
  /** The not-ready reason, or the error's message. */
  reason: string;
  /** Set when the attempt threw (never `fatal`: that is rethrown at once). */
  failure?: Exclude<Failure, { kind: 'fatal' }>;
  error?: unknown;
  /** The service's own "look again in" (a not-ready answer's hint). */
  waitMs?: number;
  /** The caller's "look again within" (the thing is moving: a growing backoff would look too late). */
  withinMs?: number;
  /** When `failure` is unreachable: the wait the shared policy gives before the next try. */
  unreachableDelayMs?: number;
}

export interface AttemptLoopOptions<T> {
  /** What is tried, for messages ("Zephyr cycle/create"). */
  label: string;
  clock: Clock;
  attempt: (info: { attempt: number; signal?: AbortSignal }) => Promise<Poll<T>>;
  /**
   * After a miss: how long to wait before the next attempt, or throw to give up (the miss's `error` to keep
   * the service's words). Called once per miss, before anything sleeps.
   */
  next: (miss: Miss) => number;
  /** Called when the loop is about to wait (a retry that will happen: verbose logs, stats). */
  onWait?: (miss: Miss & { delayMs: number }) => void;
  /** No wait may end past it: such a wait fails with a DeadlineError that leads with the miss's words. */
  deadline?: Deadline;
  /** Stops the loop promptly, rejecting with `signal.reason` (as fetch and timers do). */
  signal?: AbortSignal;
  /** The service's shared state: a loop that gives it up (no answer, see UNREACHABLE) says so there. */
  reachability?: Reachability;
}

export async function attemptLoop<T>(o: AttemptLoopOptions<T>): Promise<T> {
  const { clock, signal } = o;
  const streak = new UnreachableStreak();
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const startedAt = clock.now();
    let miss: Miss;
    try {
      const poll = await raceSignal(o.attempt({ attempt, signal }), signal);
      if (poll.ready) return poll.value;
      streak.answered();
      miss = { attempt, reason: poll.reason, waitMs: poll.waitMs, withinMs: poll.withinMs };
    } catch (error) {
      // An attempt cut short by our own signal is an abort, not a failure of the service.
      if (signal?.aborted) throw signal.reason;
      const failure = classify(error, clock.now());
      if (failure.kind === 'fatal') throw error;
      miss = { attempt, reason: error instanceof Error ? error.message : String(error), failure, error };
      if (failure.kind === 'unreachable') {
        // No answer at all is never "not ready yet": a few tries, then the service is given up for the run.
        const gaveUp = streak.add(failure.error, startedAt, clock.now());
        if (gaveUp) throw o.reachability?.giveUp(gaveUp) ?? gaveUp;
        miss.unreachableDelayMs = o.reachability?.delayAfter(streak.tries) ?? unreachableDelay(streak.tries);
      } else streak.answered();
    }
    const delayMs = o.next(miss);
    // Decided before anything is announced: a retry the deadline refuses is not announced.
    if (delayMs > 0) o.deadline?.assertCanWait(delayMs, o.label, miss.error);
    o.onWait?.({ ...miss, delayMs });
    if (delayMs > 0) await sleepWithin(clock, delayMs, { deadline: o.deadline, signal, what: o.label, cause: miss.error });
  }
}
