import type { RequestLane } from './lane';
import { notReady, ready, waitFor, WaitTimeoutError, type Clock } from './wait';

export interface FindOrCreate<T> {
  lane: RequestLane;
  label: string;
  /** Containers with the wanted name, the one every process must settle on first. */
  find: () => Promise<T[]>;
  /** One create attempt (the helper re-checks with `find` before repeating an ambiguous one). */
  create: () => Promise<T>;
  idOf: (t: T) => string;
  /** Clear away a duplicate this process made (delete it, or rename it where the service cannot delete). */
  discard: (duplicate: T) => Promise<void>;
  /** Non-leader shards wait this long for the leader's container before creating one themselves. */
  followerWaitMs?: number;
  pollMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

/**
 * Find-or-create that stays correct when several processes (CI shards) do it at the same instant:
 * 1. reuse an existing container; 2. a follower shard waits a little for the leader's; 3. create, and
 * after an ambiguous failure (500 after being applied, reset) look again before repeating the create;
 * 4. look again after creating: if another process's container comes first, use it and discard ours.
 * Every process applies the same order to the same listing, so they converge on one container.
 */
export async function findOrCreate<T>(o: FindOrCreate<T>): Promise<{ value: T; reused: boolean }> {
  const existing = (await o.find())[0];
  if (existing) return { value: existing, reused: true };
  if (o.followerWaitMs) {
    try {
      const found = await waitFor({
        label: `${o.label}: the leader shard's container`,
        timeoutMs: o.followerWaitMs,
        delayFirst: true,
        firstDelayMs: o.pollMs ?? 1_000,
        factor: 1,
        clock: o.clock,
        signal: o.signal,
        attempt: async () => {
          const first = (await o.find())[0];
          return first ? ready(first) : notReady('not created yet');
        },
      });
      return { value: found, reused: true };
    } catch (error) {
      // The leader never made one (its shard may have no tests): this process creates it.
      if (!(error instanceof WaitTimeoutError)) throw error;
    }
  }
  const mine = await o.lane.retry(o.label, async (_attempt, mayHaveApplied) => {
    if (mayHaveApplied) {
      const found = (await o.find())[0];
      if (found) return found;
    }
    return o.create();
  });
  const winner = (await o.find())[0] ?? mine;
  if (o.idOf(winner) !== o.idOf(mine)) {
    await o.discard(mine).catch(() => undefined);
    return { value: winner, reused: true };
  }
  return { value: mine, reused: false };
}
