/**
 * Pure retry timing: how long to wait before the next attempt. Kept free of I/O so the policy can be
 * unit-tested without sleeping (the loop sleeps on an injected `Clock`).
 */

/** `Retry-After` as delta-seconds or HTTP date -> ms (undefined when absent or unreadable). */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** A 429's text hint "Please wait for <n> seconds" (also "… for 1 second") -> ms. */
export function parseWaitHint(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /wait\s+(?:for\s+)?(\d+(?:\.\d+)?)\s*(second|sec|s|millisecond|ms)/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return /^m/i.test(m[2]) ? Math.round(n) : Math.round(n * 1000);
}

/**
 * The wait a 429 names: `Retry-After` when it is > 0, else the body's "Please wait for N seconds",
 * else undefined (the caller backs off). Services have sent `Retry-After: 0` on every 429 for years
 * while their text named the real wait (field evidence), so a 0 header must not hide the text.
 */
export function rateLimitWait(retryAfter: string | undefined, bodyText: string | undefined, nowMs: number): number | undefined {
  return positive(parseRetryAfter(retryAfter, nowMs)) ?? positive(parseWaitHint(bodyText));
}

const positive = (ms: number | undefined): number | undefined => (ms !== undefined && ms > 0 ? ms : undefined);

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  factor: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 8_000, factor: 2 };

/** Exponential backoff with "full jitter" between 50 % and 100 % of the step (attempt is 1-based). */
export function backoffDelay(attempt: number, random: () => number, o: BackoffOptions = DEFAULT_BACKOFF): number {
  const step = Math.min(o.maxMs, o.baseMs * o.factor ** Math.max(0, attempt - 1));
  return Math.round(step * (0.5 + random() * 0.5));
}

/**
 * The wait a 429 asks for. Never 0: a service that says "wait 0 s" (or nothing) gets a floor, so a
 * client cannot spin in a tight loop against the limit.
 */
export function rateLimitDelay(
  retryAfterMs: number | undefined,
  hintMs: number | undefined,
  attempt: number,
  random: () => number,
): number {
  // The first wait that says something: a 0 (or missing) header defers to the hint, then to backoff.
  const asked = positive(retryAfterMs) ?? positive(hintMs);
  if (asked !== undefined) return asked + Math.round(random() * 100);
  return Math.max(1_000, backoffDelay(attempt, random, { baseMs: 1_000, maxMs: 30_000, factor: 2 }));
}
