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
  /** The follower's first look (then twice as long each time, up to FOLLOWER_MAX_POLL_MS). */
  pollMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

/**
 * The follower's looks grow (1, 3, 7, 15 s, then the end of its wait: 5 looks in 30 s). Each is a call of the shard's
 * share of the budget (Zephyr: 7 a minute for 4 shards): a look every second spent a shard's whole minute in 14 s,
 * and the next look then waited for the pacing window, long past the wait's end. The leader's container usually
 * comes within its first two calls: the early looks find it.
 */
const FOLLOWER_MAX_POLL_MS = 15_000;

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
        factor: 2,
        maxDelayMs: FOLLOWER_MAX_POLL_MS,
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
