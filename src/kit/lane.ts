import PQueue from 'p-queue';
import { BadResponseError, HttpError } from '../http/errors';
import { attemptLoop, ready } from './attempts';
import { classify, type Failure } from './classify';
import { realClock, type Clock } from './clock';
import type { Deadline } from './deadline';
import type { PacingEntry, PacingPeers } from './pacing-peers';
import type { Reachability } from './reachability';
import { backoffDelay, rateLimitDelay, type BackoffOptions, DEFAULT_BACKOFF } from './retry-timing';

export interface LaneOptions {
  /** Service name, for messages. */
  name: string;
  /** Requests in flight at once. */
  concurrency: number;
  /** Client-side pacing: at most `count` sends per `windowMs` (null = none; 429 hints still pause the lane). */
  rateLimit: { count: number; windowMs: number } | null;
  /** Transient failures retried per operation (429 waits do not count). */
  retries?: number;
  /** 429 answers tolerated per operation before giving up. */
  maxRateLimitWaits?: number;
  backoff?: BackoffOptions;
  /** Time for pacing, pauses and backoff (tests: a virtual clock). */
  clock?: Clock;
  random?: () => number;
  /** A retry that will happen (announced before its wait; never after the last attempt). */
  onRetry?: (info: { label: string; attempt: number; failure: Failure; delayMs: number; error: unknown }) => void;
  /** No wait (pacing, 429 pause, backoff) may end past it; such a wait fails with a DeadlineError. */
  deadline?: Deadline;
  /** Whether the service is given up for this run (no answer): every request asks it first. */
  reachability?: Reachability;
  /** Other processes that pace against the same limit (a per-IP limit shared by parallel jobs on one machine). */
  peers?: PacingPeers;
  /** What a call is worth, by its label, when `send` is not told (default: every call a status). */
  priorityOf?: (label: string) => CallPriority;
}

/**
 * What a call is worth when the budget is short. Waiting calls go statuses first (a bulk call sets up to a
 * thousand results; reads and polls that statuses need count as statuses), then failure text, then files:
 * evidence trails and is what publishTimeout cuts. Equal worth goes in the order asked.
 */
export type CallPriority = 'status' | 'text' | 'file';
const RANK: Record<CallPriority, number> = { status: 0, text: 1, file: 2 };

export interface LaneStats {
  calls: number;
  retries: number;
  rateLimited: number;
  byLabel: Record<string, number>;
}

/**
 * The one place that owns concurrency, pacing, 429 pauses and retries for one service.
 * `send` wraps a single exchange; `retry` wraps an operation whose every attempt calls `send` anew
 * (so each attempt is signed afresh).
 */
export class RequestLane {
  readonly stats: LaneStats = { calls: 0, retries: 0, rateLimited: 0, byLabel: {} };
  /**
   * The `concurrency` slots, handed out most valuable call first, in the order asked within a worth. p-queue 6:
   * its last CommonJS major, loaded at once like the rest of this CommonJS package (7 and later are ESM only: an
   * import() would put a wait for the module before the first call of every process).
   */
  private readonly queue: PQueue;
  /** Calls not yet admitted, by worth (RANK). */
  private readonly waiting = [0, 0, 0];
  private asked = 0;
  private pausedUntil = 0;
  /** Keys (see `retry`) whose last retry gave up after an attempt that may have been applied. */
  private readonly unsettled = new Set<string>();
  /** Pacing window entries: send time, moved to completion time when the answer arrives. */
  private readonly window: PacingEntry[] = [];
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(private readonly o: LaneOptions) {
    this.clock = o.clock ?? realClock;
    this.random = o.random ?? Math.random;
    this.queue = new PQueue({ concurrency: o.concurrency });
  }

  private now(): number {
    return this.clock.now();
  }

  /**
   * Pacing slots free now (`free` of `count`; requests waiting for a slot take theirs first), or null
   * without pacing. A caller with optional work (a batch that could as well ride with a later one) asks
   * before spending calls.
   */
  room(): { free: number; count: number; windowMs: number } | null {
    const limit = this.o.rateLimit;
    if (!limit) return null;
    const now = this.now();
    if (this.pausedUntil > now) return { free: 0, count: limit.count, windowMs: limit.windowMs };
    const counted = this.window.filter((e) => !e.done || e.t > now - limit.windowMs).length;
    const queued = this.waiting[0] + this.waiting[1] + this.waiting[2];
    const others = this.o.peers?.others(now, limit.windowMs);
    const taken = counted + queued + (others ? others.counted + others.processes : 0);
    return { free: Math.max(0, limit.count - taken), count: limit.count, windowMs: limit.windowMs };
  }

  /** Calls waiting for their turn that go before a new call of `priority` (those of its worth included). */
  backlog(priority: CallPriority): number {
    return this.waiting.slice(0, RANK[priority] + 1).reduce((a, b) => a + b, 0);
  }

  /**
   * Runs one exchange when a slot, the pacing window and any 429 pause allow it, after every waiting call
   * worth more (`priority`, else the label's, see LaneOptions.priorityOf).
   */
  async send<T>(label: string, exchange: () => Promise<T>, priority?: CallPriority): Promise<T> {
    // A service given up for this run: no request waits for a slot only to meet the same silence.
    this.o.reachability?.assertReachable();
    const { slot, release } = await this.admit(priority ?? this.o.priorityOf?.(label) ?? 'status');
    try {
      this.stats.calls++;
      this.stats.byLabel[label] = (this.stats.byLabel[label] ?? 0) + 1;
      const answer = await exchange();
      this.o.reachability?.answered();
      return answer;
    } catch (error) {
      // A 429 is for the whole key / IP, also when the call is not retried here (a poll retries by itself).
      const failure = classify(error, this.now());
      if (failure.kind === 'unreachable') this.o.reachability?.noAnswer(failure.error);
      else if (failure.kind !== 'fatal' || error instanceof HttpError || error instanceof BadResponseError) this.o.reachability?.answered();
      if (failure.kind === 'rate-limited' && failure.waitMs !== undefined && failure.waitMs > 0)
        this.pausedUntil = Math.max(this.pausedUntil, this.now() + failure.waitMs);
      throw error;
    } finally {
      // The service counts a request when it arrives, somewhere between our send and its answer:
      // dating the slot at the answer keeps our window behind the service's, whatever the latency.
      if (slot) {
        Object.assign(slot, { t: this.now(), done: true });
        this.o.peers?.publish(this.window);
      }
      release();
    }
  }

  /** Leaves the processes it paces with (they stop counting this one's window). */
  close(): void {
    this.o.peers?.close(this.now());
  }

  /**
   * Retries `operation` by the shared policy. `operation` gets the attempt number and whether an earlier
   * attempt may have been applied (it failed in a way that leaves that open: a 500 after the request
   * arrived, a reset), so that a create looks before repeating itself — at every later attempt, not only
   * the next: the look itself may meet a 429. `key` names what the operation creates: when a retry gives
   * up with that still open, the next retry of the same key looks first (the end of the run sending again
   * what the stream could not).
   */
  async retry<T>(label: string, operation: (attempt: number, mayHaveApplied: boolean) => Promise<T>, key?: string): Promise<T> {
    let mayHaveApplied = key !== undefined && this.unsettled.has(key);
    const maxRetries = this.o.retries ?? 5;
    const maxRateLimitWaits = this.o.maxRateLimitWaits ?? 30;
    let retries = 0;
    let rateWaits = 0;
    const what = `${this.o.name} ${label}`;
    try {
      const value = await attemptLoop<T>({
        label: what,
        clock: this.clock,
        deadline: this.o.deadline,
        reachability: this.o.reachability,
        attempt: async ({ attempt }) => ready(await operation(attempt, mayHaveApplied)),
        // Decided before any wait: the last attempt's error is thrown as it is (the service's own words).
        next: ({ failure, error, unreachableDelayMs }) => {
          if (!failure) throw error; // (an operation never answers "not ready")
          if (failure.kind !== 'rate-limited') {
            if (failure.ambiguous) mayHaveApplied = true;
            if (++retries > maxRetries) throw error;
            // No answer: the shared spacing (UNREACHABLE); the streak's own bound gives up first.
            return failure.kind === 'unreachable'
              ? (unreachableDelayMs ?? 0)
              : backoffDelay(retries, this.random, this.o.backoff ?? DEFAULT_BACKOFF);
          }
          if (++rateWaits > maxRateLimitWaits) throw error;
          const delayMs = rateLimitDelay(failure.waitMs, undefined, rateWaits, this.random);
          this.o.deadline?.assertCanWait(delayMs, what, error);
          this.stats.retries++;
          this.stats.rateLimited++;
          // Pause the whole lane, not just this operation: every request on this key would get 429 too.
          // The next attempt's send waits for it (pace), like every other request of the lane.
          this.pausedUntil = Math.max(this.pausedUntil, this.now() + delayMs);
          this.o.onRetry?.({ label, attempt: retries + rateWaits, failure, delayMs, error });
          return 0;
        },
        onWait: ({ failure, error, delayMs }) => {
          if (!failure || failure.kind === 'rate-limited') return;
          this.stats.retries++;
          this.o.onRetry?.({ label, attempt: retries + rateWaits, failure, delayMs, error });
        },
      });
      if (key !== undefined) this.unsettled.delete(key);
      return value;
    } catch (error) {
      if (key !== undefined && mayHaveApplied) this.unsettled.add(key);
      throw error;
    }
  }

  /**
   * Waits for this call's turn: a slot of the queue, then the 429 pause and the pacing window. A call that gets
   * a slot when either says wait gives it back, goes back to its place and holds the whole queue for that wait
   * (or until a deadline set meanwhile, to be checked): a call worth more that comes meanwhile goes first.
   */
  private admit(priority: CallPriority): Promise<{ slot?: PacingEntry; release: () => void }> {
    const rank = RANK[priority];
    // Unique, so that a call that gives its slot back keeps its place: worth first, then the order asked.
    const place = -(rank * 2 ** 40 + this.asked++);
    this.waiting[rank]++;
    const queue = this.queue;
    return new Promise((resolve, reject) => {
      const turn = () =>
        queue.add(
          () => {
            let slot: ReturnType<RequestLane['pace']>;
            try {
              slot = this.pace();
            } catch (error) {
              this.waiting[rank]--;
              return reject(error); // the wait would pass the deadline
            }
            if (typeof slot === 'number') {
              queue.pause();
              void this.clock.sleep(slot, this.o.deadline?.rearmed).finally(() => queue.start());
              return void turn();
            }
            this.waiting[rank]--;
            // The slot is held until the exchange is answered.
            return new Promise<void>((release) => resolve({ slot, release }));
          },
          { priority: place },
        );
      void turn();
    });
  }

  /**
   * A pacing slot now (undefined without pacing), or the ms every call must wait first (a 429 pause, a full
   * window); a DeadlineError when that wait would pass the deadline.
   */
  private pace(): PacingEntry | undefined | number {
    const now = this.now();
    const wait = (ms: number, what: string) => (this.o.deadline?.assertCanWait(ms, what), ms);
    if (this.pausedUntil > now) return wait(this.pausedUntil - now, `${this.o.name} asked to wait`);
    const limit = this.o.rateLimit;
    if (!limit) return undefined;
    // Entries still in flight always count; answered ones leave the window W after their answer.
    for (let i = this.window.length - 1; i >= 0; i--)
      if (this.window[i].done && this.window[i].t <= now - limit.windowMs) this.window.splice(i, 1);
    // Other processes on the limit: their windows count, plus one slot each that they may be taking
    // unseen right now (read, then publish, without a lock).
    const others = this.o.peers?.others(now, limit.windowMs);
    const taken = this.window.length + (others ? others.counted + others.processes : 0);
    if (taken >= limit.count) {
      const expiries = this.window.filter((e) => e.done).map((e) => e.t + limit.windowMs);
      if (others?.nextExpiry !== undefined) expiries.push(others.nextExpiry);
      // Only requests in flight: look again soon (with peers, after half a slot's share: each look reads their files).
      const soon = others ? Math.max(10, limit.windowMs / limit.count / 2) : 10;
      const ms = expiries.length ? Math.max(1, Math.min(...expiries) - now + 1) : soon;
      return wait(ms, `${this.o.name} pacing (${limit.count} per ${limit.windowMs / 1000} s)`);
    }
    const slot = { t: now, done: false };
    this.window.push(slot);
    this.o.peers?.publish(this.window);
    return slot;
  }
}
