import type { RequestLane } from '../../kit/lane';
import type { Target } from '../../kit/target';
import type { PlanItem } from '../../model';

/** Executions one bulk status call takes. */
export const BULK_CHUNK = 1000;
/** A bulk status call and its job poll. */
const BULK_PAIR = 2;
/** A slot kept free besides, so that a failure's comment never queues behind a bulk call. */
const SPARE = 1;
/** What the end of a run sends at once: the last bulk, its poll, a failure comment, the read-back. */
const END_CALLS = 4;

/**
 * How Zephyr results are grouped while the tests run: one bulk call sets a status on up to 1,000
 * executions, so what finishes within a few seconds goes together.
 *
 * Without client pacing, the next batch waits as long as the last one took (a slow service gets fewer,
 * larger batches). Under pacing the budget decides instead. A bulk call and its job poll are two of its
 * calls, and what goes out in the last window before the end still holds its slots when the end's own
 * calls come. So statuses that can share a later bulk (or the end's) go only while the window has room
 * for that pair and a spare slot — within two windows of the estimated end, room for the pair and the
 * end's calls — and not in the last window at all. A result with a comment needs a call of its own
 * anyway: it goes as it comes (spacing would bunch those calls up at the end of the run).
 */
export function zephyrBatching(lane: RequestLane, needsOwnCall: (item: PlanItem) => boolean): Target['batching'] {
  return {
    maxItems: BULK_CHUNK,
    maxWaitMs: 3_000,
    spaced: lane.room() === null,
    pick: (queued, { endInMs }) => {
      const room = lane.room();
      if (!room) return queued;
      const need = BULK_PAIR + (endInMs > 2 * room.windowMs ? SPARE : END_CALLS);
      if (endInMs > room.windowMs && room.free >= Math.min(room.count, need)) return queued;
      return queued.filter(needsOwnCall);
    },
  };
}
