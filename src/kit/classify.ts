import { BadResponseError, HttpError, NetworkError } from '../http/errors';
import { rateLimitWait } from './retry-timing';

export type Failure =
  | { kind: 'rate-limited'; waitMs: number | undefined }
  /** Worth another attempt. `ambiguous`: a write may have been applied (re-check before repeating a create). */
  | { kind: 'transient'; ambiguous: boolean }
  /**
   * No answer at all: connection refused, reset before any answer, no byte within the request timeout, host
   * not found. Tried again a few times only (see `UNREACHABLE`), and never taken for "not ready yet" by a wait:
   * a service that does not answer says nothing about the job or list being awaited. `ambiguous` as above
   * (a refused connection never reached the service; a reset or a timeout may have been applied).
   */
  | { kind: 'unreachable'; ambiguous: boolean; error: NetworkError }
  | { kind: 'fatal' };

/**
 * One retry policy for every service and every loop (the lane's retries, job polls, the test-list wait):
 * 429 waits; 5xx (a service's generic "please try again" 500 included) retry with backoff; no answer is
 * `unreachable`; other 4xx, unreadable answers, refused redirects and a service given up
 * (`UnreachableError`) are final.
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
    // The answer had begun: the service is there, the connection failed on the way (a proxy, a restart).
    if (error.answered) return { kind: 'transient', ambiguous: true };
    // A refused connection never reached the server; anything else may have been applied.
    return { kind: 'unreachable', ambiguous: error.code !== 'ECONNREFUSED', error };
  }
  if (error instanceof BadResponseError) {
    // HTML 502/503 pages from a proxy are transient; an unreadable 2xx body is not worth repeating.
    return error.status >= 500 ? { kind: 'transient', ambiguous: true } : { kind: 'fatal' };
  }
  // Anything else, a service given up for this run (UnreachableError) included, is final: the loop that gave up decided once.
  return { kind: 'fatal' };
}
