import { describe, expect, it } from 'vitest';
import { BadResponseError, HttpError, NetworkError } from '../../src/http/errors';
import { notReady, ready, realClock, waitFor, WaitTimeoutError, type Poll } from '../../src/kit/wait';
import { VirtualClock } from './virtual-clock';

/** An attempt that answers from a script, one entry per poll: a value, a not-ready reason, or an error. */
function script<T>(steps: Array<Poll<T> | Error>) {
  const calls: number[] = [];
  let i = 0;
  const attempt = async ({ attempt }: { attempt: number }): Promise<Poll<T>> => {
    calls.push(attempt);
    const step = steps[Math.min(i++, steps.length - 1)];
    if (step instanceof Error) throw step;
    return step;
  };
  return { attempt, calls };
}

const http = (status: number, headers: Record<string, string> = {}, body = '') =>
  new HttpError('Zephyr', 'GET', '/jobprogress/x', status, headers, body, `Zephyr: GET /jobprogress/x answered ${status}`);

describe('waitFor', () => {
  it('returns at once when the first poll is ready, without sleeping', async () => {
    const clock = new VirtualClock();
    const s = script([ready('done')]);
    await expect(waitFor({ label: 'job', attempt: s.attempt, timeoutMs: 10_000, clock })).resolves.toBe('done');
    expect(s.calls).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it('polls until ready with delays 200 ms ×1.6 capped at 2 s', async () => {
    const clock = new VirtualClock();
    const s = script<string>([...Array<Poll<string>>(7).fill(notReady('generating')), ready('tests')]);
    const waits: number[] = [];
    const value = await waitFor({ label: 'run 7', attempt: s.attempt, timeoutMs: 60_000, clock, onWait: (w) => waits.push(w.delayMs) });
    expect(value).toBe('tests');
    expect(s.calls).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(clock.sleeps).toEqual([200, 320, 512, 819, 1310, 2000, 2000]);
    expect(waits).toEqual(clock.sleeps);
  });

  it('with delayFirst, sleeps the first delay before the first poll (a job just submitted)', async () => {
    const clock = new VirtualClock();
    const s = script([notReady('progress 0.5'), ready(1)]);
    await waitFor({
      label: 'job',
      attempt: s.attempt,
      timeoutMs: 60_000,
      clock,
      delayFirst: true,
      firstDelayMs: 500,
      factor: 2,
      maxDelayMs: 800,
    });
    expect(clock.sleeps).toEqual([500, 800]);
  });

  it('rethrows a fatal error at once with its own message (a truncated JSON 200 is not a timeout)', async () => {
    const clock = new VirtualClock();
    const truncated = new BadResponseError(
      'CucumberStudio',
      200,
      'CucumberStudio: GET /test_runs/7/test_snapshots answered 200 with truncated JSON',
    );
    const s = script<never>([truncated]);
    const error = await waitFor({ label: 'run 7', attempt: s.attempt, timeoutMs: 60_000, clock }).catch((e: unknown) => e);
    expect(error).toBe(truncated);
    expect(error).not.toBeInstanceOf(WaitTimeoutError);
    expect(s.calls).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it('polls again after transient errors (5xx, 423, HTML 502 page, a reset after the answer began)', async () => {
    const clock = new VirtualClock();
    const s = script([
      new NetworkError('Zephyr', 'GET', '/x', 'ECONNRESET', { answered: true }),
      http(503),
      http(423),
      new BadResponseError('Zephyr', 502, 'Zephyr: HTML error page (502)'),
      ready('ok'),
    ]);
    await expect(waitFor({ label: 'job', attempt: s.attempt, timeoutMs: 60_000, clock })).resolves.toBe('ok');
    expect(clock.sleeps).toEqual([200, 320, 512, 819]);
  });

  it('waits at least what a 429 asks (Retry-After, Zephyr hint), a floor without a hint, and gives up rather than poll early', async () => {
    const clock = new VirtualClock();
    const s = script([
      http(429, { 'retry-after': '7' }),
      http(429, {}, 'Please wait for 3 seconds'),
      http(429),
      notReady('busy'),
      ready('ok'),
    ]);
    await expect(waitFor({ label: 'job', attempt: s.attempt, timeoutMs: 60_000, clock })).resolves.toBe('ok');
    // 7 s asked, 3 s hinted, 1 s floor, then the backoff carries on where it was (4th step).
    expect(clock.sleeps).toEqual([7_000, 3_000, 1_000, 819]);

    const early = new VirtualClock();
    const error = await waitFor({
      label: 'job',
      attempt: script([http(429, { 'retry-after': '30' })]).attempt,
      timeoutMs: 10_000,
      clock: early,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toContain('the service asked to wait 30 s, only 10 s left');
    expect(early.sleeps).toEqual([]);
  });

  it('times out with a WaitTimeoutError naming the label, the time waited, the last reason and the advice', async () => {
    const clock = new VirtualClock();
    const s = script<never>([notReady('423 while generating')]);
    const error = (await waitFor({
      label: 'test run 42: generated tests',
      attempt: s.attempt,
      timeoutMs: 30_000,
      clock,
      advice: 'the results stay in the outbox for `replay`',
    }).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.name).toBe('WaitTimeoutError');
    expect(error).toMatchObject({ label: 'test run 42: generated tests', waitedMs: 30_000, lastReason: '423 while generating' });
    expect(error.attempts).toBe(s.calls.length);
    expect(error.message).toBe(
      'test run 42: generated tests: still not ready after 30 s (20 attempts; last: 423 while generating) — the results stay in the outbox for `replay`',
    );

    // When the last poll threw, the reason is that error's message and the error is the cause.
    const reset = http(503);
    const e2 = (await waitFor({ label: 'job', attempt: script<never>([reset]).attempt, timeoutMs: 1_000, clock: new VirtualClock() }).catch(
      (e: unknown) => e,
    )) as WaitTimeoutError;
    expect(e2.lastReason).toBe(reset.message);
    expect(e2.lastError).toBe(reset);
    expect(e2.cause).toBe(reset);
    expect(e2.message).toContain('try again later or allow more time');
  });

  it('never sleeps past the deadline: the last sleep ends on it, one last poll, then it gives up', async () => {
    const clock = new VirtualClock(5_000);
    const s = script<never>([notReady('not yet')]);
    const error = (await waitFor({ label: 'job', attempt: s.attempt, deadline: 6_000, timeoutMs: 60_000, clock }).catch(
      (e: unknown) => e,
    )) as WaitTimeoutError;
    expect(clock.sleeps).toEqual([200, 320, 480]);
    expect(clock.now()).toBe(6_000);
    expect(s.calls).toEqual([1, 2, 3, 4]);
    expect(error.waitedMs).toBe(1_000);

    // The earlier limit wins: here timeoutMs.
    const c2 = new VirtualClock();
    await waitFor({ label: 'job', attempt: script<never>([notReady('x')]).attempt, deadline: 60_000, timeoutMs: 600, clock: c2 }).catch(
      () => undefined,
    );
    expect(c2.sleeps).toEqual([200, 320, 80]);
  });

  it('maxAttempts bounds the polls ("one retry" = 2)', async () => {
    const clock = new VirtualClock();
    const s = script<never>([http(503)]);
    const error = await waitFor({ label: 'begin', attempt: s.attempt, maxAttempts: 2, timeoutMs: 60_000, clock }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(s.calls).toEqual([1, 2]);
  });

  it('refuses to wait without any limit', async () => {
    await expect(waitFor({ label: 'x', attempt: async () => ready(1) })).rejects.toThrow(TypeError);
  });

  it('an abort stops the wait promptly: during a sleep, during a hanging poll, before the start', async () => {
    const reason = new Error('publishTimeout (600 s) reached');

    const clock = new VirtualClock();
    clock.hold(); // every sleep hangs until woken: only the abort can end this wait
    const ac = new AbortController();
    const s = script<never>([notReady('generating')]);
    const during = waitFor({ label: 'job', attempt: s.attempt, timeoutMs: 60_000, clock, signal: ac.signal });
    await new Promise((r) => setImmediate(r));
    expect(clock.sleeps).toEqual([200]);
    ac.abort(reason);
    await expect(during).rejects.toBe(reason);
    expect(s.calls).toEqual([1]);

    const ac2 = new AbortController();
    let seen: AbortSignal | undefined;
    const hanging = waitFor({
      label: 'job',
      attempt: ({ signal }) => ((seen = signal), new Promise<Poll<never>>(() => undefined)),
      timeoutMs: 60_000,
      clock: new VirtualClock(),
      signal: ac2.signal,
    });
    ac2.abort(reason);
    await expect(hanging).rejects.toBe(reason);
    expect(seen).toBe(ac2.signal); // handed on, so the poll can cancel its own request

    const s3 = script([ready(1)]);
    await expect(waitFor({ label: 'job', attempt: s3.attempt, timeoutMs: 1, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(s3.calls).toEqual([]);
  });

  it('the real clock ends its sleep (and clears its timer) on abort', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 20);
    await realClock.sleep(60_000, ac.signal);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
