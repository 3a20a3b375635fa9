/**
 * Time as the retry loop, the lane and the waits see it: one interface, injected so that tests run on a
 * virtual clock and never really sleep. Every real timer goes through `safeDelay`.
 */

/**
 * The longest delay a Node timer takes (2³¹−1 ms, about 24.8 days). A longer one is not kept: Node warns
 * and fires it after 1 ms (so a `publishTimeout` of 3,000,000 s used to end the publishing at once).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay a timer can take: at most MAX_TIMER_MS (Infinity included), never negative or NaN. */
export function safeDelay(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

/** A duration for messages: "4.2 s", "37 s". */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * `now` in ms; `sleep` may honour `signal` (the real one does, so an abort does not leave a timer keeping
 * Node alive); a clock that ignores it is still safe: the loop races every sleep against the signal itself.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Wall time and real timers (clamped by `safeDelay`); an abort ends the sleep early, without an error. */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, safeDelay(ms));
      signal?.addEventListener('abort', done, { once: true });
    }),
};
