import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, parseWaitHint, rateLimitDelay, rateLimitWait } from '../../src/kit/retry-timing';
import { classify } from '../../src/kit/classify';
import { HttpError, NetworkError, RedirectError } from '../../src/http/errors';
import { RequestLane } from '../../src/kit/lane';

describe('Retry-After and wait hints', () => {
  it('parses delta seconds and HTTP dates', () => {
    expect(parseRetryAfter('37', 0)).toBe(37_000);
    expect(parseRetryAfter('1.5', 0)).toBe(1_500);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
  it('parses Zephyr "Please wait for <n> seconds"', () => {
    expect(parseWaitHint('Please wait for 12 seconds')).toBe(12_000);
    expect(parseWaitHint('{"clientMessage":"Please wait for 1 second"}')).toBe(1_000);
    expect(parseWaitHint('Too many requests')).toBeUndefined();
  });
  it('never waits 0 s on a 429', () => {
    expect(rateLimitDelay(0, undefined, 1, () => 0)).toBeGreaterThanOrEqual(1_000);
    expect(rateLimitDelay(undefined, undefined, 1, () => 0)).toBeGreaterThanOrEqual(1_000);
    expect(rateLimitDelay(5_000, undefined, 1, () => 0)).toBe(5_000);
  });
  it('a Retry-After of 0 defers to the text, then to backoff', () => {
    // Zephyr before March 2025: Retry-After 0 on every 429, the real wait only in the text.
    expect(rateLimitWait('0', '{"clientMessage":"Please wait for 34 seconds"}', 0)).toBe(34_000);
    expect(rateLimitWait('5', 'Please wait for 34 seconds', 0)).toBe(5_000);
    expect(rateLimitWait(undefined, 'Please wait for 34 seconds', 0)).toBe(34_000);
    expect(rateLimitWait('0', 'Too many requests', 0)).toBeUndefined();
    expect(rateLimitWait('0', 'Please wait for 0 seconds', 0)).toBeUndefined();
    expect(rateLimitDelay(0, 7_000, 1, () => 0)).toBe(7_000);
  });
  it('backs off exponentially with jitter, capped', () => {
    const d = [1, 2, 3, 10].map((a) => backoffDelay(a, () => 1));
    expect(d).toEqual([250, 500, 1000, 8000]);
    expect(backoffDelay(1, () => 0)).toBe(125);
  });
});

describe('classification', () => {
  const http = (status: number, body = '', headers: Record<string, string> = {}) =>
    new HttpError('Zephyr', 'GET', '/x', status, headers, body, 'm');
  it('retries 500/104, 5xx and resets; not other 4xx', () => {
    expect(classify(http(500, '{"errorCode":104}'))).toEqual({ kind: 'transient', ambiguous: true });
    expect(classify(http(503))).toMatchObject({ kind: 'transient' });
    // No answer at all is its own kind (a wait never takes it for "not ready"); a reset once the answer began is not.
    expect(classify(new NetworkError('Zephyr', 'POST', '/x', 'ECONNRESET'))).toMatchObject({ kind: 'unreachable', ambiguous: true });
    expect(classify(new NetworkError('Zephyr', 'POST', '/x', 'ECONNREFUSED'))).toMatchObject({ kind: 'unreachable', ambiguous: false });
    expect(classify(new NetworkError('Zephyr', 'GET', '/x', 'ETIMEDOUT'))).toMatchObject({ kind: 'unreachable', ambiguous: true });
    expect(classify(new NetworkError('Zephyr', 'GET', '/x', 'ECONNRESET', { answered: true }))).toEqual({
      kind: 'transient',
      ambiguous: true,
    });
    expect(classify(http(400))).toEqual({ kind: 'fatal' });
    expect(classify(http(401))).toEqual({ kind: 'fatal' });
  });
  it('429 carries the wait from Retry-After or the message', () => {
    expect(classify(http(429, '', { 'retry-after': '3' }))).toEqual({ kind: 'rate-limited', waitMs: 3000 });
    expect(classify(http(429, '{"clientMessage":"Please wait for 7 seconds"}'))).toEqual({ kind: 'rate-limited', waitMs: 7000 });
    expect(classify(http(429, '{"clientMessage":"Please wait for 7 seconds"}', { 'retry-after': '0' }))).toEqual({
      kind: 'rate-limited',
      waitMs: 7000,
    });
    expect(classify(http(429, 'slow down', { 'retry-after': '0' }))).toEqual({ kind: 'rate-limited', waitMs: undefined });
  });
  it('a refused redirect is not retried', () => {
    expect(classify(new RedirectError('CucumberStudio', 'GET', '/api', 'refused', 'http://old.example'))).toEqual({ kind: 'fatal' });
  });
  it('errorCode 104 is retried, but only as often as the lane allows', async () => {
    const lane = new RequestLane({
      name: 'Zephyr',
      concurrency: 1,
      rateLimit: null,
      retries: 3,
      clock: { now: () => Date.now(), sleep: async () => {} },
      random: () => 0,
    });
    let calls = 0;
    const always104 = lane.retry('op', async () => {
      calls++;
      throw http(500, '{"errorType":"ERROR","clientMessage":"Please try again","errorCode":104}');
    });
    await expect(always104).rejects.toMatchObject({ status: 500 });
    expect(calls).toBe(4);
  });
});
