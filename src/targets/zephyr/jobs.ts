import type { Reachability } from '../../kit/reachability';
import { notReady, ready, waitFor, type Clock } from '../../kit/wait';
import type { ZephyrClient } from './client';
import { jobDone, jobFailed, type JobProgress } from './job-answers';

export { chunk, jobDone, jobFailed, normalizeJobProgress, parseAddJobMessage, parseBulkJobMessage, parseJobToken } from './job-answers';

export interface JobWaitOptions {
  /** First poll after this many ms (then ×1.6, capped). Production jobs take seconds. */
  firstPollMs?: number;
  maxPollMs?: number;
  /** Under pacing, the first look comes after about the time a job takes (default 3 s; see `jobPolling`). */
  pacedFirstPollMs?: number;
  timeoutMs?: number;
  clock?: Clock;
  /** The run's publishTimeout: the wait stops when it passes. */
  signal?: AbortSignal;
  /** Zephyr given up for this run when a job's polls get no answer (see UNREACHABLE). */
  reachability?: Reachability;
}

/** Polls `jobprogress` until `progress` ≥ 1 (the shared wait); a job's error message ends it at once. */
export async function waitForJob(client: ZephyrClient, token: string, o: JobWaitOptions = {}): Promise<JobProgress> {
  const timeoutMs = o.timeoutMs ?? 300_000;
  return waitFor({
    label: `Zephyr job ${token.slice(0, 8)}`,
    timeoutMs,
    // A job just submitted is never done at once: the first look comes after a pause.
    delayFirst: true,
    firstDelayMs: o.firstPollMs ?? 200,
    maxDelayMs: o.maxPollMs ?? 2_000,
    clock: o.clock,
    signal: o.signal,
    reachability: o.reachability,
    advice: 'the results stay in the outbox for `npx playwright-tms-reporter replay`',
    attempt: async () => {
      const p = await client.jobProgress(token);
      const failed = jobFailed(p);
      // Not an HttpError: the shared classification takes it as final, so it surfaces at once.
      if (failed) throw new Error(`Zephyr job failed: ${failed}`);
      return jobDone(p) ? ready(p) : notReady(`progress ${p.progress ?? 0}`);
    },
  });
}
