/**
 * The one polling loop of this target, kept local and small until the shared helper (`src/kit/wait.ts`)
 * lands: the lead can swap it for that one (same contract: a probe, a timeout, injectable sleep / now).
 */
export interface PollOptions {
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** First pause between probes (ms, default 250); grows by half each time up to `maxDelayMs` (default 5000). */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** What one probe found: done, or not yet (with the service's own wait hint, if it gave one). */
export type Probe = { done: true } | { done: false; waitMs?: number };

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Calls `probe` until it reports done (true), or until the next pause would end past the timeout
 * (false). A probe that throws ends the polling with its error: only the probe knows which failures
 * mean "not yet" and which must surface at once.
 */
export async function pollUntil(probe: () => Promise<Probe>, o: PollOptions): Promise<boolean> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? realSleep;
  const end = now() + o.timeoutMs;
  let delay = o.firstDelayMs ?? 250;
  for (;;) {
    const r = await probe();
    if (r.done) return true;
    const pause = r.waitMs !== undefined && r.waitMs > 0 ? r.waitMs : delay;
    if (now() + pause > end) return false;
    await sleep(pause);
    delay = Math.min(o.maxDelayMs ?? 5_000, Math.round(delay * 1.5));
  }
}
