/**
 * The one retry loop (attempt → classify once → give up? → wait → again) as the lane and the waits run it:
 * nothing sleeps or is announced after the last attempt, the error thrown is the service's own, and a service
 * that gives no answer is given up after a few tries (never taken for "not ready yet").
 */
import { describe, expect, it } from 'vitest';
import { HttpError, NetworkError } from '../../src/http/errors';
import { Deadline, DeadlineError } from '../../src/kit/deadline';
import { RequestLane } from '../../src/kit/lane';
import { Reachability, UNREACHABLE_COOL_DOWN_MS, UnreachableError } from '../../src/kit/reachability';
import { notReady, waitFor, WaitTimeoutError } from '../../src/kit/wait';
import { VirtualClock } from './virtual-clock';

const unavailable = () =>
  new HttpError(
    'Zephyr',
    'POST',
    '/x',
    503,
    {},
    '{"clientMessage":"down for maintenance"}',
    'Zephyr answered POST /x with HTTP 503: down for maintenance.',
  );
const refused = () => new NetworkError('Zephyr', 'GET', '/jobprogress/t', 'ECONNREFUSED', { host: '127.0.0.1:4010' });
const timedOut = () => new NetworkError('CucumberStudio', 'GET', '/api/x', 'ETIMEDOUT', { host: 'studio.test' });

describe('RequestLane.retry: after the last attempt', () => {
  it('no wait and no "retrying" announcement; the error thrown is the service\'s own 503', async () => {
    const clock = new VirtualClock(1_000);
    const announced: number[] = [];
    const lane = new RequestLane({
      name: 'Zephyr',
      concurrency: 1,
      rateLimit: null,
      retries: 2,
      clock,
      random: () => 1,
      onRetry: ({ delayMs }) => announced.push(delayMs),
    });
    const thrown: HttpError[] = [];
    const error = await lane
      .retry('op', async () => {
        thrown.push(unavailable());
        throw thrown[thrown.length - 1];
      })
      .catch((e: unknown) => e);
    expect(thrown).toHaveLength(3);
    expect(error).toBe(thrown[2]);
    // Two waits, both before an attempt that came; none after the third.
    expect(clock.sleeps).toEqual([250, 500]);
    expect(announced).toEqual([250, 500]);
    expect(lane.stats.retries).toBe(2);
  });

  it('near the end of the run, the last attempt\'s 503 is thrown as it is, not turned into "publishTimeout"', async () => {
    const clock = new VirtualClock(1_000);
    const deadline = new Deadline(clock);
    deadline.startIn(600); // room for the first backoff (250 ms), not for a 500 ms one after the last attempt
    const lane = new RequestLane({ name: 'Zephyr', concurrency: 1, rateLimit: null, retries: 1, clock, deadline, random: () => 1 });
    const error = await lane.retry('op', async () => Promise.reject(unavailable())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).not.toBeInstanceOf(DeadlineError);
    expect((error as Error).message).toContain('down for maintenance');
    expect(clock.sleeps).toEqual([250]);
  });

  it("a retry the deadline has no room for is refused before it is announced, and the message leads with the service's words", async () => {
    const clock = new VirtualClock(1_000);
    const deadline = new Deadline(clock);
    deadline.startIn(100);
    const announced: number[] = [];
    const lane = new RequestLane({
      name: 'Zephyr',
      concurrency: 1,
      rateLimit: null,
      clock,
      deadline,
      random: () => 1,
      onRetry: ({ delayMs }) => announced.push(delayMs),
    });
    const error = await lane.retry('op', async () => Promise.reject(unavailable())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as Error).message).toMatch(/^Zephyr answered POST \/x with HTTP 503: down for maintenance; not tried again/);
    expect(announced).toEqual([]);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('no answer ("unreachable")', () => {
  it('the lane gives a refused connection 3 tries over 4 s, then gives the service up: later requests fail at once', async () => {
    const clock = new VirtualClock(1_000);
    const reachability = new Reachability(() => false, clock);
    const lane = new RequestLane({ name: 'Zephyr', concurrency: 1, rateLimit: null, clock, reachability, random: () => 1 });
    let calls = 0;
    const error = await lane
      .retry('op', () =>
        lane.send('op', async () => {
          calls++;
          throw refused();
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as Error).message).toBe('Zephyr unreachable: connection refused at 127.0.0.1:4010 (3 tries over 4 s)');
    expect(calls).toBe(3); // not the 6 of the retry budget for answers
    expect(clock.sleeps).toEqual([1_000, 3_000]);
    expect(reachability.down).toBe(error);
    // The next request is not sent at all.
    await expect(lane.send('next', async () => ++calls)).rejects.toBe(error);
    expect(calls).toBe(3);
  });

  it('a service that accepts and never answers: two request timeouts, then given up', async () => {
    const clock = new VirtualClock(0);
    const lane = new RequestLane({ name: 'CucumberStudio', concurrency: 1, rateLimit: null, clock });
    let calls = 0;
    const error = await lane
      .retry('op', async () => {
        calls++;
        clock.t += 30_000; // the request timeout passes without a byte
        throw timedOut();
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as Error).message).toBe(
      'CucumberStudio unreachable: no answer within the request timeout at studio.test (2 tries over 61 s)',
    );
    expect(calls).toBe(2);
  });

  it('a job poll that meets a refused connection is never "not ready": given up after 3 tries, not after the 300 s timeout', async () => {
    const clock = new VirtualClock(0);
    const reachability = new Reachability(() => true, clock);
    let polls = 0;
    const error = await waitFor({
      label: 'Zephyr job 0bd1',
      timeoutMs: 300_000,
      clock,
      reachability,
      attempt: async () => {
        polls++;
        if (polls === 1) return notReady('progress 0.5');
        throw refused();
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error).not.toBeInstanceOf(WaitTimeoutError);
    expect(polls).toBe(4);
    expect(clock.now()).toBeLessThanOrEqual(15_000);
    expect(reachability.down).toBe(error);
  });

  it('given up while the tests run: tried again after a pause; the end of the run tries once more; given up during the end: for good', async () => {
    const clock = new VirtualClock(0);
    let ending = false;
    const r = new Reachability(() => ending, clock);
    const lost = new UnreachableError(refused(), 3, 4_000);
    r.giveUp(lost);
    expect(() => r.assertReachable()).toThrow(lost);
    clock.t += UNREACHABLE_COOL_DOWN_MS;
    expect(() => r.assertReachable()).not.toThrow();
    r.giveUp(lost);
    ending = true;
    expect(() => r.assertReachable()).not.toThrow();
    r.giveUp(lost);
    clock.t += 10 * UNREACHABLE_COOL_DOWN_MS;
    expect(() => r.assertReachable()).toThrow(lost);
  });
});
