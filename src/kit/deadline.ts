import { setMaxListeners } from 'node:events';
import { setTimeout as sleepFor } from 'node:timers/promises';

/**
 * The bound on how long the end of a run may keep Playwright waiting (`publishTimeout`). Shared by
 * every lane of a run: once set, a wait that would end past it (a 429's "wait N seconds", a backoff,
 * the pacing window) fails at once with a DeadlineError instead of sleeping, so CI is never held
 * longer than the user allowed; what was not sent stays in the outbox.
 */
export class Deadline {
  private at = Infinity;
  private set = new AbortController();
  private readonly passed = new AbortController();
  /** Aborts (with a DeadlineError) when the deadline passes: polls and waits that take a signal stop then. */
  readonly expired: AbortSignal = this.passed.signal;

  constructor(private readonly now: () => number = () => Date.now()) {
    // Every wait of the run listens to it (dozens of job polls at once in a large run): not a leak, so no warning.
    setMaxListeners(0, this.passed.signal, this.set.signal);
  }

  /** From now on, nothing may wait past `ms` from now. Waits under way wake up to check. */
  startIn(ms: number): void {
    this.at = this.now() + ms;
    this.set.abort();
    this.set = new AbortController();
    setMaxListeners(0, this.set.signal);
    // Unref'd: once the run's work is done, this timer must not keep the process alive.
    setTimeout(() => this.passed.abort(new DeadlineError(`publishTimeout (${Math.round(ms / 1000)} s) reached`)), ms).unref();
  }

  /**
   * Sleeps `ms` of real time, but wakes early when the deadline is set meanwhile, so that a wait that
   * began while the tests ran (say a 429's hour) is checked against it rather than slept through.
   */
  async sleep(ms: number): Promise<void> {
    await sleepFor(ms, undefined, { signal: this.set.signal }).catch(() => undefined);
  }

  /** Milliseconds left (Infinity while the tests still run). */
  remaining(): number {
    return this.at - this.now();
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
