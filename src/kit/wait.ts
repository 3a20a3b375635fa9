import { classify } from './classify';

/**
 * Time as the wait sees it. Injected so tests run on a virtual clock and never really sleep.
 * `sleep` may honour `signal` (the real one does, so an abort does not leave a timer keeping Node alive);
 * a clock that ignores it is still safe: the wait races every sleep against the signal itself.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Wall time and real timers. */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** What one poll found: done with a value, or not yet, with a reason worth showing on a timeout. */
export type Poll<T> = { ready: true; value: T } | { ready: false; reason: string; waitMs?: number };
export const ready = <T>(value: T): Poll<T> => ({ ready: true, value });
/** Not yet; `waitMs`: the service said when to look again (e.g. Retry-After on a 423). */
export const notReady = <T = never>(reason: string, waitMs?: number): Poll<T> => ({ ready: false, reason, waitMs });

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
 * Polls `attempt` until it is ready. Not-ready answers and transient errors (5xx, resets, 423) are
 * polled again with growing delays; a 429 waits at least what the service asked; a fatal error (4xx,
 * an unreadable 2xx answer) is rethrown at once with its own message, never dressed up as a timeout.
 * No sleep goes past the limit: the last sleep ends at the limit, one last poll runs, then it gives up
 * with a `WaitTimeoutError`.
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
  const giveUp = (attempts: number, reason: string, error?: unknown) =>
    new WaitTimeoutError(o.label, clock.now() - start, attempts, reason, error, o.advice);

  if (o.delayFirst) {
    await abortable(clock.sleep(Math.max(0, Math.min(delay, end - clock.now())), signal), signal);
    delay = grow(delay);
  }
  for (let attempts = 1; ; attempts++) {
    signal?.throwIfAborted();
    let reason: string;
    let error: unknown;
    let atLeast = 0;
    try {
      const poll = await abortable(o.attempt({ attempt: attempts, signal }), signal);
      if (poll.ready) return poll.value;
      reason = poll.reason;
      atLeast = poll.waitMs && poll.waitMs > 0 ? poll.waitMs : 0;
    } catch (e) {
      // An attempt cut short by our own signal is an abort, not a failure of the service.
      if (signal?.aborted) throw signal.reason;
      const failure = classify(e, clock.now());
      if (failure.kind === 'fatal') throw e;
      error = e;
      reason = e instanceof Error ? e.message : String(e);
      if (failure.kind === 'rate-limited') atLeast = failure.waitMs && failure.waitMs > 0 ? failure.waitMs : RATE_LIMIT_FLOOR_MS;
    }
    const now = clock.now();
    if (now >= end || (o.maxAttempts !== undefined && attempts >= o.maxAttempts)) throw giveUp(attempts, reason, error);
    if (atLeast > end - now) {
      // Polling before the service's own wait is over only earns another 429: stop now, and say why.
      throw giveUp(attempts, `${reason} (the service asked to wait ${seconds(atLeast)}, only ${seconds(end - now)} left)`, error);
    }
    const sleepMs = Math.min(Math.max(delay, atLeast), end - now);
    o.onWait?.({ attempt: attempts, delayMs: sleepMs, reason });
    await abortable(clock.sleep(sleepMs, signal), signal);
    delay = grow(delay);
  }
}

/** Settles with `work`, or rejects with `signal.reason` as soon as the signal fires. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined); // the abandoned poll must not surface as an unhandled rejection
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms / 1000)} s`;
}
