import type { Reachability } from '../../kit/reachability';
import { notReady, ready, waitFor, WaitTimeoutError, type Clock } from '../../kit/wait';

export interface PollOptions {
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
}

/** What one probe found: done, or not yet (with the service's own wait hint, if it gave one). */
export type Probe = { done: true } | { done: false; waitMs?: number; withinMs?: number };

/**
 * Calls `probe` through the shared wait until it reports done (true) or the timeout (false). The probe
 * decides which failures mean "not yet" (it returns not-done for those); anything it throws that the
 * shared classification takes as final surfaces at once, and no answer at all (it throws those too) gives
 * the service up after a few tries (an UnreachableError), never "still generating".
 */
export async function pollUntil(probe: () => Promise<Probe>, o: PollOptions): Promise<boolean> {
  try {
    await waitFor({
      label: 'CucumberStudio test run: generated tests',
      timeoutMs: o.timeoutMs,
      firstDelayMs: o.firstDelayMs ?? 250,
      factor: 1.5,
      maxDelayMs: o.maxDelayMs ?? 2_000,
      clock: o.clock,
      signal: o.signal,
      reachability: o.reachability,
      attempt: async () => {
        const r = await probe();
        return r.done ? ready(true) : notReady('not all tests generated yet', r.waitMs, r.withinMs);
      },
    });
    return true;
  } catch (error) {
    if (error instanceof WaitTimeoutError) return false;
    throw error;
  }
}
