import type { Reachability } from '../../kit/reachability';
import { notReady, ready, waitFor, type Clock } from '../../kit/wait';
import type { ZephyrClient } from './client';
import { jobDone, jobFailed, type JobProgress } from './job-answers';

export { jobDone, jobFailed, normalizeJobProgress, parseJobToken } from './job-answers';

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

/**
 * Keys an add-tests job reports as not added (unknown, or not Test issues). The wording of the
 * message is not documented: read a JSON `invalid` list if present, else the keys named after
 * "invalid"/"not found" in the same sentence. Only words a rejection: whether a key is in the cycle is
 * read from the cycle, never from this.
 */
export function parseAddJobMessage(message: string | undefined): string[] {
  if (!message) return [];
  try {
    const parsed = JSON.parse(message) as { invalid?: unknown };
    if (Array.isArray(parsed.invalid)) return parsed.invalid.map(String);
  } catch {
    /* plain text */
  }
  const m = /(?:invalid|not found|not a test)[^:.]*:\s*([A-Z0-9_,\s-]+)/i.exec(message);
  return m ? (m[1].match(/[A-Z][A-Z0-9_]*-\d+/g) ?? []) : [];
}

/**
 * Execution ids a bulk status job says it could not find (an execution removed from the cycle since it was
 * read): a JSON `notFound` list when the message has one. Production's wording is not established; a message
 * without such a list names none, and the read-back's counts are the check then.
 */
export function parseBulkJobMessage(message: string | undefined): string[] {
  if (!message) return [];
  try {
    const parsed = JSON.parse(message) as { notFound?: unknown };
    if (Array.isArray(parsed.notFound)) return parsed.notFound.map(String);
  } catch {
    /* plain text: nothing to go by */
  }
  return [];
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
