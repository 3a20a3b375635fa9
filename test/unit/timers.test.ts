/** Every timer clamped to what Node keeps (2³¹−1 ms); publishTimeout read as seconds, `0` / `off` no limit. */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { MAX_TIMER_MS, realClock, safeDelay } from '../../src/kit/clock';
import { Deadline } from '../../src/kit/deadline';
import { TARGETS } from '../../src/targets';

const publishTimeoutOf = (options: Record<string, unknown>, env: Record<string, string> = {}) => {
  const c = resolveConfig({ definitions: TARGETS, options, env });
  return { ms: c.publishTimeoutMs, problems: c.problems };
};
/** Lets Node's timers run: a delay Node cannot keep fires after 1 ms. */
const aFewTicks = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('timers', () => {
  it('safeDelay clamps to 2³¹−1 ms (Infinity too) and never goes below 0', () => {
    expect(MAX_TIMER_MS).toBe(2_147_483_647);
    expect(safeDelay(3_000_000_000)).toBe(MAX_TIMER_MS);
    expect(safeDelay(Infinity)).toBe(MAX_TIMER_MS);
    expect(safeDelay(-5)).toBe(0);
    expect(safeDelay(NaN)).toBe(0);
    expect(safeDelay(1_500)).toBe(1_500);
  });

  it('a publishTimeout of 3,000,000 s does not expire at once (Node fires a longer timer after 1 ms)', async () => {
    const deadline = new Deadline();
    deadline.startIn(3_000_000 * 1000);
    await aFewTicks();
    expect(deadline.expired.aborted).toBe(false);
    expect(deadline.remaining()).toBeGreaterThan(2_999_999_000);
  });

  it('no limit: nothing expires, every wait fits', async () => {
    const deadline = new Deadline();
    deadline.startIn(Infinity);
    await aFewTicks();
    expect(deadline.expired.aborted).toBe(false);
    expect(deadline.started).toBe(true);
    expect(() => deadline.assertCanWait(10 ** 12, 'x')).not.toThrow();
  });

  it('the real clock sleeps a too-long delay without firing early, and ends it on abort', async () => {
    const ac = new AbortController();
    let woke = false;
    const sleeping = realClock.sleep(3_000_000_000, ac.signal).then(() => (woke = true));
    await aFewTicks();
    expect(woke).toBe(false);
    ac.abort();
    await sleeping;
    expect(woke).toBe(true);
  });
});

describe('publishTimeout', () => {
  it('whole seconds (option or env); default 600', () => {
    expect(publishTimeoutOf({}).ms).toBe(600_000);
    expect(publishTimeoutOf({ publishTimeout: 3_000_000 }).ms).toBe(3_000_000_000);
    expect(publishTimeoutOf({}, { PW_TMS_PUBLISH_TIMEOUT: '45' }).ms).toBe(45_000);
  });

  it('0 or off: no limit', () => {
    expect(publishTimeoutOf({ publishTimeout: 0 }).ms).toBe(Infinity);
    expect(publishTimeoutOf({}, { PW_TMS_PUBLISH_TIMEOUT: 'off' }).ms).toBe(Infinity);
    expect(publishTimeoutOf({ publishTimeout: 'OFF' }).problems).toEqual([]);
  });

  it('anything else: one line naming the option and the env var, and the default', () => {
    const { ms, problems } = publishTimeoutOf({}, { PW_TMS_PUBLISH_TIMEOUT: '-3' });
    expect(ms).toBe(600_000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /publishTimeout.*PW_TMS_PUBLISH_TIMEOUT.*expected a whole number of seconds \(0 or off: no limit\), got "-3"/,
    );
  });

  it('requestTimeout: seconds, default 30', () => {
    expect(resolveConfig({ definitions: TARGETS, options: {}, env: {} }).requestTimeoutMs).toBe(30_000);
    expect(resolveConfig({ definitions: TARGETS, options: {}, env: { PW_TMS_REQUEST_TIMEOUT: '2' } }).requestTimeoutMs).toBe(2_000);
  });
});
