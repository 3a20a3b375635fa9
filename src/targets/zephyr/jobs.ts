import { BadResponseError } from '../../http/errors';
import { notReady, ready, waitFor } from '../../kit/wait';
import type { JobProgress, ZephyrClient } from './client';

export interface JobWaitOptions {
  /** First poll after this many ms (then ×1.6, capped). Production jobs take seconds. */
  firstPollMs?: number;
  maxPollMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** The run's publishTimeout: the wait stops when it passes. */
  signal?: AbortSignal;
}

/**
 * The job token of an async endpoint's answer (field evidence): the raw body text (Cloud), a JSON
 * string, or `{"jobProgressToken": …}` (Server). Undefined when the body is none of these.
 */
export function parseJobToken(text: string): string | undefined {
  let token = text.trim();
  if (token.startsWith('"') || token.startsWith('{')) {
    try {
      const v = JSON.parse(token) as unknown;
      const t = typeof v === 'string' ? v : v && typeof v === 'object' ? (v as { jobProgressToken?: unknown }).jobProgressToken : undefined;
      token = typeof t === 'string' || typeof t === 'number' ? String(t).trim() : '';
    } catch {
      return undefined;
    }
  }
  // It becomes a path segment: an HTML page or a JSON error body is not a token.
  return token && !/[\s<>{}[\]"]/.test(token) ? token : undefined;
}

/**
 * `progress` is a fraction (number or numeric string, "1.0" when done); a non-empty `errorMessage`
 * means the job failed. `message` is passed on as text and never decides anything.
 */
export function normalizeJobProgress(value: unknown): JobProgress {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new BadResponseError(
      'Zephyr',
      200,
      `Zephyr answered GET /jobprogress with ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value} where a job object was expected.`,
    );
  const p = value as Record<string, unknown>;
  const progress =
    typeof p.progress === 'number'
      ? p.progress
      : typeof p.progress === 'string' && p.progress.trim() !== ''
        ? Number(p.progress)
        : undefined;
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : v === undefined || v === null ? undefined : JSON.stringify(v);
  const error = text(p.errorMessage)?.trim();
  return {
    ...(p as object),
    progress: progress !== undefined && Number.isFinite(progress) ? progress : undefined,
    message: text(p.message),
    summaryMessage: text(p.summaryMessage),
    errorMessage: error && error !== '""' && error !== '[]' && error !== '{}' ? error : null,
  };
}

/** Done when `progress` reached 1 (a failed job is reported by jobFailed first). */
export const jobDone = (p: JobProgress): boolean => Number(p.progress ?? 0) >= 1;

/** The job's own error message, when it failed. */
export const jobFailed = (p: JobProgress): string | undefined =>
  typeof p.errorMessage === 'string' && p.errorMessage.trim() ? p.errorMessage.trim() : undefined;

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
    clock: o.sleep ? { now: () => Date.now(), sleep: o.sleep } : undefined,
    signal: o.signal,
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
 * "invalid"/"not found".
 */
export function parseAddJobMessage(message: string | undefined): string[] {
  if (!message) return [];
  try {
    const parsed = JSON.parse(message) as { invalid?: unknown };
    if (Array.isArray(parsed.invalid)) return parsed.invalid.map(String);
  } catch {
    /* plain text */
  }
  const m = /(?:invalid|not found|not a test)[^:]*:\s*([A-Z0-9_,\s-]+)/i.exec(message);
  return m ? (m[1].match(/[A-Z][A-Z0-9_]*-\d+/g) ?? []) : [];
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
