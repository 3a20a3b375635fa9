import type { CallPriority, RequestLane } from '../../kit/lane';
import type { Target } from '../../kit/target';
import type { PlanItem } from '../../shared/model';
import type { JobWaitOptions } from './jobs';

/** Executions one bulk status call takes. */
export const BULK_CHUNK = 1000;
/** A bulk status call and its job poll. */
const BULK_PAIR = 2;
/** A slot kept free besides, so that a failure's comment never queues behind a bulk call. */
const SPARE = 1;
/** What the end of a run sends at once: the last bulk, its poll, a failure comment, the read-back. */
const END_CALLS = 4;
/** Looks at a job of about 3 s at the quick cadence (200 ms, then every 500 ms): taken only when the window has them free. */
const QUICK_POLLS = 6;

/** What each Zephyr call is worth when the budget is short (the lane sends by it; see CallPriority). */
export function zephyrPriority(label: string): CallPriority {
  // Files, and the look for a file before one is sent again.
  if (label.startsWith('attachment/')) return 'file';
  // A failure's comment (its own PUT) and per-step results: the text that follows a status.
  if (label === 'execution/update' || label.startsWith('stepresult/')) return 'text';
  // Bulk statuses, their polls, and what they need (the cycle, adding tests, the listing, the read-back).
  return 'status';
}

/**
 * How Zephyr spends its budget (about 30 calls a minute): statuses first, comments soon, files after.
 *
 * A failure's comment is a call of its own (a PUT that sets its status too). While few calls of that worth
 * wait in the lane, a failure goes that way as it comes: one call for status and text. When more would wait
 * than the lane sends in about a quarter of a window, the failures' statuses go first, in bulk with everyone
 * else's (one call per status, up to 1,000 results), and each comment follows as evidence: a status never
 * waits behind other tests' comments and files. The end of a run is where that happens: what the stream
 * still holds goes at once.
 */
export class ZephyrBudget {
  constructor(
    private readonly lane: RequestLane,
    /** Job polling under pacing (the first look after a job's usual time) and when the window has room. */
    private readonly jobs: { paced: JobWaitOptions; roomy: JobWaitOptions },
  ) {}

  /** Comments that can go as calls of their own now: as many as keep the lane's text queue short. */
  ownCallsNow(): number {
    const room = this.lane.room();
    return room ? Math.max(0, this.textQueueLimit(room.count) - this.lane.backlog('text')) : Infinity;
  }

  /** Whether `ownCalls` comments go after their statuses (a bulk call first) rather than each with its own. */
  statusFirst(ownCalls: number): boolean {
    const room = this.lane.room();
    return !!room && ownCalls > 0 && this.lane.backlog('text') + ownCalls > this.textQueueLimit(room.count);
  }

  /**
   * How a job just submitted is polled: at the unpaced cadence when the window has the polls free (at the end
   * of a run, the last bulk's confirmation is the tail), else no more often than the budget allows.
   */
  polling(): JobWaitOptions {
    const room = this.lane.room();
    return !room || room.free >= Math.min(room.count, QUICK_POLLS + SPARE) ? this.jobs.roomy : this.jobs.paced;
  }

  /** A quarter of the window's calls: what the lane sends in about 15 s at 28 a minute. */
  private textQueueLimit(count: number): number {
    return Math.max(1, Math.ceil(count / 4));
  }
}

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
 * anyway: it goes as it comes while the lane's queue of such calls is short (see ZephyrBudget); the
 * others wait here, where a later bulk call (at the latest the end's) sets their statuses first. A batch
 * in flight holds the stream: it is kept to what the lane sends soon.
 */
export function zephyrBatching(lane: RequestLane, budget: ZephyrBudget, needsOwnCall: (item: PlanItem) => boolean): Target['batching'] {
  return {
    maxItems: BULK_CHUNK,
    maxWaitMs: 3_000,
    spaced: lane.room() === null,
    pick: (queued, { endInMs }) => {
      const room = lane.room();
      if (!room) return queued;
      const need = BULK_PAIR + (endInMs > 2 * room.windowMs ? SPARE : END_CALLS);
      const statuses = endInMs > room.windowMs && room.free >= Math.min(room.count, need);
      let comments = budget.ownCallsNow();
      return queued.filter((item) => (needsOwnCall(item) ? comments-- > 0 : statuses));
    },
  };
}
