import { describe, expect, it } from 'vitest';
import { findOrCreate } from '../../src/kit/find-or-create';
import { RequestLane } from '../../src/kit/lane';
import { VirtualClock } from './virtual-clock';

/** A follower shard looking for the leader's container: `leaderAt` is when the leader's appears (never: Infinity). */
async function follow(leaderAt: number) {
  const clock = new VirtualClock();
  const lane = new RequestLane({ name: 'z', concurrency: 1, rateLimit: null, clock });
  const looks: number[] = [];
  let created = 0;
  const result = await findOrCreate<string>({
    lane,
    label: 'cycle/create',
    find: async () => {
      looks.push(clock.now());
      return clock.now() >= leaderAt ? ['leader'] : created ? ['mine'] : [];
    },
    create: async () => (created++, 'mine'),
    idOf: (c) => c,
    discard: async () => undefined,
    followerWaitMs: 30_000,
    clock,
  });
  return { result, looks, created };
}

describe('a follower shard waiting for the leader’s container', () => {
  it('looks less and less often: 5 looks in its 30 s (a shard’s share of Zephyr’s budget is 7 a minute), then creates', async () => {
    const { result, looks, created } = await follow(Infinity);
    // The first look (before the wait), the wait's five, and the look after creating.
    expect(looks).toEqual([0, 1_000, 3_000, 7_000, 15_000, 30_000, 30_000]);
    expect(created).toBe(1);
    expect(result).toEqual({ value: 'mine', reused: false });
  });
  it('finds a leader that comes early at its next look', async () => {
    const { result, looks, created } = await follow(2_500);
    expect(looks).toEqual([0, 1_000, 3_000]);
    expect(created).toBe(0);
    expect(result).toEqual({ value: 'leader', reused: true });
  });
});
