import { setMaxListeners } from 'node:events';
import { realClock, safeDelay, type Clock } from './clock';

/**
 * The bound on how long the end of a run may keep Playwright waiting (`publishTimeout`). Shared by
 * every lane of a run: once set, a wait that would end past it (a 429's "wait N seconds", a backoff,
 * the pacing window) fails at once with a DeadlineError instead of sleeping, so CI is never held
 * longer than the user allowed; what was not sent stays in the outbox.
 */
export class Deadline {
  private at = Infinity;
  private began = false;
  private set = new AbortController();
  private readonly passed = new AbortController();
  /** Aborts (with a DeadlineError) when the deadline passes: polls and waits that take a signal stop then. */
  readonly expired: AbortSignal = this.passed.signal;

  constructor(private readonly clock: Pick<Clock, 'now'> = realClock) {
    // Every wait of the run listens to it (dozens of job polls at once in a large run): not a leak, so no warning.
    setMaxListeners(0, this.passed.signal, this.set.signal);
  }

  /**
   * From now on, nothing may wait past `ms` from now (Infinity: no limit, `publishTimeout: 0`). Waits under
   * way wake up to check.
   */
  startIn(ms: number): void {
    this.began = true;
    this.at = this.clock.now() + ms;
    this.set.abort();
    this.set = new AbortController();
    setMaxListeners(0, this.set.signal);
    if (!Number.isFinite(ms)) return;
    // Unref'd: once the run's work is done, this timer must not keep the process alive. Clamped: a longer
    // delay would fire at once (a publishTimeout of 25 days or more is as good as none).
    const reason = new DeadlineError(`publishTimeout (${Math.round(ms / 1000)} s) reached`);
    setTimeout(() => this.passed.abort(reason), safeDelay(ms)).unref();
  }

  /** Whether the end of the run has begun (`startIn` was called). */
  get started(): boolean {
    return this.began;
  }

  /** Aborts when the deadline is set (again): a wait that began before sleeps on it and wakes to check. */
  get rearmed(): AbortSignal {
    return this.set.signal;
  }

  /** Milliseconds left (Infinity while the tests still run, or without a limit). */
  remaining(): number {
    return this.at - this.clock.now();
  }

  /**
   * Throws when waiting `ms` would go past the deadline. `cause`: the failure the wait was to retry; its
   * words lead the message (what went wrong matters more than that there was no time to try again).
   */
  assertCanWait(ms: number, what: string, cause?: unknown): void {
    if (ms <= this.remaining()) return;
    const wait = `waiting ${Math.ceil(ms / 1000)} s would pass publishTimeout`;
    throw new DeadlineError(
      cause instanceof Error ? `${cause.message.replace(/[.\s]+$/, '')}; not tried again: ${wait}` : `${what}: ${wait}`,
    );
  }
}

export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

/**
 * Sleeps `ms` on `clock`, unless that would pass `deadline` (then a DeadlineError, whose message leads with
 * `cause`). A wait that began before the deadline was set wakes when it is set, and is checked against it.
 * `signal` ends the sleep early (its reason is thrown).
 */
export async function sleepWithin(
  clock: Clock,
  ms: number,
  o: { deadline?: Deadline; signal?: AbortSignal; what: string; cause?: unknown },
): Promise<void> {
  const end = clock.now() + ms;
  for (let left = ms; left > 0; left = end - clock.now()) {
    o.signal?.throwIfAborted();
    o.deadline?.assertCanWait(left, o.what, o.cause);
    const rearmed = o.deadline?.rearmed;
    await raceSignal(clock.sleep(left, o.signal ?? rearmed), o.signal);
    // Slept it all (or the clock says so: a test's clock may not move): only a deadline set meanwhile looks again.
    if (!rearmed?.aborted) break;
  }
  o.signal?.throwIfAborted();
}

/** Settles with `work`, or rejects with `signal.reason` as soon as the signal fires. */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined); // the abandoned work must not surface as an unhandled rejection
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
