import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../src/targets/cucumberstudio/poll';
import { VirtualClock } from './virtual-clock';

describe('CucumberStudio: waiting for a run’s generated tests', () => {
  it('looks again at least every 2 s by default, so results wait at most that long after the tests exist', async () => {
    const clock = new VirtualClock();
    const readyAt = 9_000; // a 2,000-scenario run: its tests appear after about 9 s
    let probes = 0;
    const done = await pollUntil(
      async () => {
        probes++;
        return clock.now() >= readyAt ? { done: true } : { done: false };
      },
      { timeoutMs: 120_000, clock },
    );
    expect(done).toBe(true);
    expect(Math.max(...clock.sleeps)).toBe(2_000);
    expect(clock.sleeps.slice(0, 3)).toEqual([250, 375, 563]);
    // Seen at most one pause after the tests exist, with few looks spent on the way.
    expect(clock.now() - readyAt).toBeLessThanOrEqual(2_000);
    expect(probes).toBeLessThanOrEqual(10);
  });
});
