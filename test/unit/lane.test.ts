import { describe, expect, it } from 'vitest';
import { RequestLane } from '../../src/kit/lane';
import { HttpError, NetworkError } from '../../src/http/errors';

/** A virtual clock: sleeping advances it, so backoff is captured instead of waited. */
function clock() {
  let now = 1_000_000;
  const slept: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
    slept,
  };
}
const err = (status: number, body = '', headers: Record<string, string> = {}) =>
  new HttpError('Zephyr', 'POST', '/x', status, headers, body, `HTTP ${status}`);

describe('RequestLane', () => {
  it('retries 500/104 with backoff and a reset (no answer) after the shared 1 s, then succeeds', async () => {
    const c = clock();
    const lane = new RequestLane({ name: 'z', concurrency: 2, rateLimit: null, clock: c, random: () => 1 });
    const failures = [err(500, '{"errorCode":104}'), new NetworkError('Zephyr', 'POST', '/x', 'ECONNRESET')];
    const attempts: number[] = [];
    const value = await lane.retry('op', async (attempt) =>
      lane.send('op', async () => {
        attempts.push(attempt);
        const f = failures.shift();
        if (f) throw f;
        return 'ok';
      }),
    );
    expect(value).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
    expect(c.slept).toEqual([250, 1_000]);
    expect(lane.stats).toMatchObject({ calls: 3, retries: 2 });
  });

  it('does not retry other 4xx', async () => {
    const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, clock: clock() });
    let calls = 0;
    await expect(
      lane.retry('op', async () => {
        calls++;
        throw err(400);
      }),
    ).rejects.toThrow('HTTP 400');
    expect(calls).toBe(1);
  });

  it('gives up after the retry budget', async () => {
    const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, retries: 3, clock: clock() });
    let calls = 0;
    await expect(
      lane.retry('op', async () => {
        calls++;
        throw err(503);
      }),
    ).rejects.toThrow('HTTP 503');
    expect(calls).toBe(4);
  });

  it('a 429 pauses the lane: each later send waits at least the hinted time, and 429s do not use up retries', async () => {
    const c = clock();
    const lane = new RequestLane({ name: 'z', concurrency: 4, rateLimit: null, retries: 1, clock: c, random: () => 0 });
    const sentAt: number[] = [];
    let n = 0;
    const value = await lane.retry('op', () =>
      lane.send('op', async () => {
        sentAt.push(c.now());
        if (n++ < 3) throw err(429, '{"clientMessage":"Please wait for 5 seconds"}');
        return n;
      }),
    );
    expect(value).toBe(4); // three 429s, then success, although only 1 retry is allowed for failures
    expect(lane.stats.rateLimited).toBe(3);
    for (let i = 1; i < sentAt.length; i++) expect(sentAt[i] - sentAt[i - 1]).toBeGreaterThanOrEqual(5_000);
  });

  it('a 429 on a call that is not retried by the lane (a poll retries by itself) still pauses every other request', async () => {
    const c = clock();
    const lane = new RequestLane({ name: 'cs', concurrency: 4, rateLimit: null, clock: c, random: () => 0 });
    await expect(lane.send('poll', async () => Promise.reject(err(429, '', { 'retry-after': '7' })))).rejects.toThrow('HTTP 429');
    const before = c.now();
    await lane.send('post', async () => undefined);
    expect(c.now() - before).toBeGreaterThanOrEqual(7_000);
  });

  it('keeps at most `concurrency` exchanges in flight', async () => {
    const lane = new RequestLane({ name: 'z', concurrency: 3, rateLimit: null });
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        lane.send('x', async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 2));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });

  it('paces to the configured rate (sliding window)', async () => {
    const c = clock();
    const lane = new RequestLane({ name: 'cs', concurrency: 8, rateLimit: { count: 10, windowMs: 1_000 }, clock: c });
    const at: number[] = [];
    await Promise.all(
      Array.from({ length: 35 }, () =>
        lane.send('x', async () => {
          at.push(c.now());
        }),
      ),
    );
    for (let i = 10; i < at.length; i++) expect(at[i] - at[i - 10]).toBeGreaterThanOrEqual(1_000);
  });

  it('room: the free pacing slots now (a slot frees a window after its answer), none while a 429 pause lasts, null without pacing', async () => {
    const c = clock();
    const lane = new RequestLane({ name: 'z', concurrency: 4, rateLimit: { count: 3, windowMs: 1_000 }, clock: c });
    expect(lane.room()).toEqual({ free: 3, count: 3, windowMs: 1_000 });
    await lane.send('x', async () => undefined);
    let answer!: () => void;
    const inFlight = lane.send('x', () => new Promise<void>((r) => (answer = r)));
    while (!answer) await new Promise((r) => setImmediate(r));
    expect(lane.room()).toEqual({ free: 1, count: 3, windowMs: 1_000 }); // answered and in flight both count
    answer();
    await inFlight;
    await c.sleep(1_000);
    expect(lane.room()).toEqual({ free: 3, count: 3, windowMs: 1_000 });
    await lane
      .retry('x', async (attempt) => {
        if (attempt === 1) throw err(429, '', { 'retry-after': '5' });
        expect(lane.room()?.free).toBe(0); // paused: every request on the key would get 429 too
      })
      .catch(() => undefined);
    expect(new RequestLane({ name: 'cs', concurrency: 1, rateLimit: null }).room()).toBeNull();
  });

  it('a 429 pauses the lane before its slot goes to the next request: only what was in flight arrives meanwhile', async () => {
    // Sleeps end only when the test moves the clock, so "sent during the pause" is seen, not inferred.
    let now = 0;
    const sleeping: Array<{ until: number; wake: () => void }> = [];
    const sleep = (ms: number) => new Promise<void>((wake) => sleeping.push({ until: now + ms, wake }));
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    const lane = new RequestLane({ name: 'z', concurrency: 2, rateLimit: null, clock: { now: () => now, sleep }, random: () => 0 });
    const sent: string[] = [];
    let refused = false;
    const op = (name: string, exchange: () => Promise<void>) =>
      lane.retry(name, () =>
        lane.send(name, async () => {
          sent.push(name);
          await exchange();
        }),
      );
    let answerSecond!: () => void;
    const first = op('first', async () => {
      if (!refused) ((refused = true), await Promise.reject(err(429, 'Please wait for 5 seconds')));
    });
    const second = op('second', () => new Promise<void>((resolve) => (answerSecond = resolve)));
    const third = op('third', async () => undefined);
    await settle();
    // 'first' was refused while 'second' was in flight; 'third' got the freed slot but waits out the 5 s.
    expect(sent).toEqual(['first', 'second']);
    now = 4_999;
    for (const s of sleeping.filter((s) => s.until <= now)) s.wake();
    await settle();
    expect(sent).toEqual(['first', 'second']);
    now = 5_000;
    for (const s of sleeping.filter((s) => s.until <= now)) s.wake();
    answerSecond();
    await Promise.all([first, second, third]);
    expect(sent.slice(2).sort()).toEqual(['first', 'third']);
  });

  it('after an attempt that may have been applied, every later attempt looks first, also after a 429 in between', async () => {
    const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, clock: clock(), random: () => 1 });
    // The post is applied but answered 500; the next attempt's look meets a 429; the one after must look again.
    const failures = [err(500), err(429, '', { 'retry-after': '1' }), undefined];
    const seen: boolean[] = [];
    await lane.retry('op', async (_attempt, mayHaveApplied) => {
      seen.push(mayHaveApplied);
      const f = failures.shift();
      if (f) throw f;
    });
    expect(seen).toEqual([false, true, true]);
  });

  it('a retry that gave up after an attempt that may have been applied: the next retry of its key looks first', async () => {
    const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, retries: 1, clock: clock(), random: () => 1 });
    const seen: boolean[] = [];
    // 500 (maybe applied), then the look fails for good (connection refused: not applied, not retried further).
    const failures = [err(500), new NetworkError('Zephyr', 'GET', '/x', 'ECONNREFUSED')];
    await expect(
      lane.retry(
        'op',
        async (_attempt, mayHaveApplied) => {
          seen.push(mayHaveApplied);
          throw failures.shift();
        },
        'result 1',
      ),
    ).rejects.toThrow();
    await lane.retry('op', async (_attempt, mayHaveApplied) => void seen.push(mayHaveApplied), 'result 2');
    await lane.retry('op', async (_attempt, mayHaveApplied) => void seen.push(mayHaveApplied), 'result 1');
    // Settled: a later retry of the key starts afresh.
    await lane.retry('op', async (_attempt, mayHaveApplied) => void seen.push(mayHaveApplied), 'result 1');
    expect(seen).toEqual([false, true, false, true, false]);
  });
});
