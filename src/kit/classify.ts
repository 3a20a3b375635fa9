import { BadResponseError, HttpError, NetworkError } from '../http/errors';
import { rateLimitWait } from './retry-timing';

export type Failure =
  | { kind: 'rate-limited'; waitMs: number | undefined }
  /** Worth another attempt. `ambiguous`: a write may have been applied (re-check before repeating a create). */
  | { kind: 'transient'; ambiguous: boolean }
  | { kind: 'fatal' };

/**
 * One retry policy for every service: 429 waits; 5xx (a service's generic "please try again" 500
 * included), connection resets and timeouts retry with backoff; other 4xx, unreadable answers and
 * refused redirects do not.
 *
 * A generic "please try again" 500 can also come back for payload problems that no repetition fixes,
 * so it must not be retried forever: it is `transient`, and transient failures
 * consume the lane's retry budget (`LaneOptions.retries`, default 5) — after that many repeats the
 * operation fails with the last error. Only 429s are exempt from that budget, and they have their own
 * bound (`maxRateLimitWaits`).
 */
export function classify(error: unknown, nowMs = Date.now()): Failure {
  if (error instanceof HttpError) {
    if (error.status === 429) {
      return { kind: 'rate-limited', waitMs: rateLimitWait(error.headers['retry-after'], error.bodyText, nowMs) };
    }
    if (error.status >= 500 || error.status === 408) return { kind: 'transient', ambiguous: true };
    // 423 Locked: the resource is being (re)generated (e.g. a test run's tests); nothing was applied.
    if (error.status === 423) return { kind: 'transient', ambiguous: false };
    return { kind: 'fatal' };
  }
  if (error instanceof NetworkError) {
    // A refused connection never reached the server; anything else may have been applied.
    return { kind: 'transient', ambiguous: error.code !== 'ECONNREFUSED' };
  }
  if (error instanceof BadResponseError) {
    // HTML 502/503 pages from a proxy are transient; an unreadable 2xx body is not worth repeating.
    return error.status >= 500 ? { kind: 'transient', ambiguous: true } : { kind: 'fatal' };
  }
  return { kind: 'fatal' };
}
