import { attemptLoop, type Miss, type Poll } from './attempts';
import { realClock, seconds, type Clock } from './clock';
import { raceSignal } from './deadline';
import type { Reachability } from './reachability';

export { realClock, type Clock } from './clock';
export { notReady, ready, type Poll } from './attempts';

export interface WaitOptions<T> {
  /** What is awaited, for messages: "job 0bd1…", "test run 42: generated tests". */
  label: string;
  /** One poll. Resolve with `ready(v)` / `notReady(why)`; a throw is judged by the shared `classify`. */
  attempt: (info: { attempt: number; signal?: AbortSignal }) => Promise<Poll<T>>;
  /** Give up this long after the start (at least one of timeoutMs / deadline / maxAttempts is required). */
  timeoutMs?: number;
  /** Give up at this wall time of `clock` (e.g. the publish's own end); the earlier limit wins. */
  deadline?: number;
  /** Give up after this many polls (e.g. 2 for "one retry"). */
  maxAttempts?: number;
  /** Delay before the 2nd poll (default 200 ms), then ×`factor` (1.6) up to `maxDelayMs` (2 s). */
  firstDelayMs?: number;
  factor?: number;
  maxDelayMs?: number;
  /** Sleep `firstDelayMs` before the first poll too (a job just submitted is never done at once). */
  delayFirst?: boolean;
  /** Appended to the timeout message: what the user can do ("raise X", "run replay"). */
  advice?: string;
  clock?: Clock;
  /** Stops the wait promptly, rejecting with `signal.reason` (as fetch and timers do). */
  signal?: AbortSignal;
  /** The service's shared state: a service that gives no answer is given up there (see UNREACHABLE). */
  reachability?: Reachability;
  /** Called before each sleep (verbose logs). */
  onWait?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

/** The wait ran out of time (or attempts) while the thing was still not ready. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    readonly label: string,
    readonly waitedMs: number,
    readonly attempts: number,
    /** The last not-ready reason, or the last transient error's message. */
    readonly lastReason: string,
    /** The last transient error, when the last poll threw (also the `cause`). */
    readonly lastError?: unknown,
    advice?: string,
  ) {
    super(
      `${label}: still not ready after ${seconds(waitedMs)} (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}; last: ${lastReason})` +
        ` — ${advice ?? 'the service may still finish it; try again later or allow more time'}`,
      lastError === undefined ? undefined : { cause: lastError },
    );
  }
}

/** A 429 with no usable hint still pauses this long: never spin against a rate limit. */
const RATE_LIMIT_FLOOR_MS = 1_000;

/**
 * Polls `attempt` until it is ready, on the shared loop (`attemptLoop`). Not-ready answers and transient
 * errors (5xx, 423) are polled again with growing delays; a 429 waits at least what the service asked; a
 * fatal error (4xx, an unreadable 2xx answer) is rethrown at once with its own message, never dressed up as
 * a timeout; no answer at all (refused, reset, timed out) is never "not ready": a few tries, then an
 * UnreachableError. No sleep goes past the limit: the last sleep ends at the limit, one last poll runs, then
 * it gives up with a `WaitTimeoutError` (or, when that poll got no answer, with its own NetworkError).
 */
export async function waitFor<T>(o: WaitOptions<T>): Promise<T> {
  const clock = o.clock ?? realClock;
  const { signal } = o;
  if (o.timeoutMs === undefined && o.deadline === undefined && o.maxAttempts === undefined) {
    // An unbounded poll is how a reporter hangs a CI job: make every caller choose a limit.
    throw new TypeError(`waitFor(${o.label}): needs timeoutMs, deadline or maxAttempts`);
  }
  const start = clock.now();
  const end = Math.min(o.deadline ?? Infinity, o.timeoutMs === undefined ? Infinity : start + o.timeoutMs);
  const maxDelay = o.maxDelayMs ?? 2_000;
  const grow = (ms: number) => Math.min(maxDelay, Math.round(ms * (o.factor ?? 1.6)));
  let delay = Math.min(maxDelay, o.firstDelayMs ?? 200);
  const giveUp = (miss: Miss, reason = miss.reason) =>
    // The service gave no answer to the last poll: that, not "still not ready", is what the user must know.
    miss.failure?.kind === 'unreachable'
      ? miss.error
      : new WaitTimeoutError(o.label, clock.now() - start, miss.attempt, reason, miss.error, o.advice);

  if (o.delayFirst) {
    await raceSignal(clock.sleep(Math.max(0, Math.min(delay, end - clock.now())), signal), signal);
    delay = grow(delay);
  }
  return attemptLoop({
    label: o.label,
    clock,
    signal,
    reachability: o.reachability,
    attempt: o.attempt,
    onWait: o.onWait && ((m) => o.onWait!({ attempt: m.attempt, delayMs: m.delayMs, reason: m.reason })),
    next: (miss) => {
      const now = clock.now();
      if (now >= end || (o.maxAttempts !== undefined && miss.attempt >= o.maxAttempts)) throw giveUp(miss);
      let atLeast = miss.waitMs && miss.waitMs > 0 ? miss.waitMs : 0;
      if (miss.failure?.kind === 'rate-limited')
        atLeast = miss.failure.waitMs && miss.failure.waitMs > 0 ? miss.failure.waitMs : RATE_LIMIT_FLOOR_MS;
      if (miss.unreachableDelayMs !== undefined) atLeast = miss.unreachableDelayMs;
      if (atLeast > end - now) {
        // Polling before the service's own wait is over only earns another 429: stop now, and say why.
        if (miss.failure?.kind === 'unreachable') throw giveUp(miss);
        throw giveUp(miss, `${miss.reason} (the service asked to wait ${seconds(atLeast)}, only ${seconds(end - now)} left)`);
      }
      const wanted = miss.withinMs !== undefined ? Math.min(delay, miss.withinMs) : delay;
      const sleepMs = Math.min(Math.max(wanted, atLeast), end - now);
      delay = grow(delay);
      return sleepMs;
    },
  });
}
