import type { PublishResult, Target } from '../kit/target';
import type { PlanItem } from '../shared/model';

export interface ResultStreamOptions {
  batching: Target['batching'];
  /** Nothing is sent before this settles (the target's own preparation, BeginResult.preparation: its time is not a batch's). */
  preparation?: Promise<void>;
  publish(items: readonly PlanItem[]): Promise<PublishResult>;
  /** Items the service confirmed. */
  onDone(items: readonly PlanItem[]): void;
  /** Estimated ms until the last test finishes, handed to the target's `pick`. */
  endInMs?: () => number;
  now?: () => number;
}

/**
 * Sends a target's results while the tests run, in batches: a batch goes when it is full or when its
 * oldest result has waited long enough, once the target's own preparation is done. While the tests run,
 * one batch is in flight at a time; for `spaced` targets (bulk calls) the next waits as long as the last
 * one took, so a service that slows down (pacing, 429 waits) gets fewer, larger batches instead of a
 * queue of small ones. Once the tests are over, what is queued goes beside the batch in flight (the
 * target's lane still paces the calls), except a key that batch holds: no key is ever in two batches at
 * once. Failed items are left to the end of the run, which re-plans everything and sends what is not
 * confirmed.
 */
export class ResultStream {
  private readonly pending = new Map<string, PlanItem>();
  private oldest = 0;
  private timer?: NodeJS.Timeout;
  /** Batches in flight: one while the tests run, more once they are over. */
  private readonly batches = new Set<Promise<void>>();
  /** The items of the batches in flight, by key. */
  private readonly flying = new Map<string, PlanItem>();
  private notBefore = 0;
  private stopped = false;
  /** The tests are over: what is queued goes now, whole (no batching window, spacing or target's pick). */
  private allNow = false;
  /** The target's preparation is done (or there is none): batches may go. */
  private preparationDone: boolean;
  private readonly now: () => number;

  constructor(private readonly o: ResultStreamOptions) {
    this.now = o.now ?? (() => Date.now());
    this.preparationDone = !o.preparation;
    void o.preparation?.then(() => {
      this.preparationDone = true;
      this.schedule();
    });
  }

  /** Queues results (a later item for a key replaces an earlier one not yet sent). */
  enqueue(items: readonly PlanItem[]): void {
    if (this.stopped || !items.length) return;
    if (!this.pending.size) this.oldest = this.now();
    for (const item of items) this.pending.set(item.key, item);
    this.schedule();
  }

  /** The batches in flight, by key: the end of the run sends the other keys without waiting for them. */
  inFlight(): ReadonlyMap<string, PlanItem> {
    return new Map(this.flying);
  }

  /**
   * Every test has its result: send what is queued at once rather than when the reporter's onEnd comes
   * (Playwright first stops its workers, runs global teardown and other reporters' hooks).
   */
  sendAllNow(): void {
    this.allNow = true;
    this.schedule();
  }

  /** Stops streaming and waits for the batches in flight; the end of the run sends the rest. */
  async drain(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all(this.batches);
  }

  private schedule(): void {
    if (this.stopped || !this.pending.size || !this.preparationDone) return;
    if (this.batches.size && !this.allNow) return;
    const { maxItems, maxWaitMs } = this.o.batching;
    const due = this.allNow ? 0 : this.pending.size >= maxItems ? this.notBefore : Math.max(this.oldest + maxWaitMs, this.notBefore);
    const wait = due - this.now();
    if (wait <= 0) return this.flush();
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
    // The reporter's onEnd drains the stream; the timer alone must never keep a process alive.
    this.timer.unref?.();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // A key in a batch in flight waits for that batch (its answer decides what is confirmed).
    const queued = [...this.pending.values()].filter((item) => !this.flying.has(item.key));
    if (!queued.length) return;
    const pick = this.o.batching.pick;
    const items = (pick && !this.allNow ? pick(queued, { endInMs: this.o.endInMs?.() ?? Infinity }) : queued).slice(
      0,
      this.o.batching.maxItems,
    );
    if (!items.length) {
      // The target keeps them for now: look again one batching window later (also when the queue is full).
      this.notBefore = this.now() + this.o.batching.maxWaitMs;
      return this.schedule();
    }
    for (const item of items) {
      this.pending.delete(item.key);
      this.flying.set(item.key, item);
    }
    if (this.pending.size) this.oldest = this.now();
    const started = this.now();
    const batch: Promise<void> = this.o
      .publish(items)
      .then((result) => this.o.onDone(result.done))
      .catch(() => undefined)
      .finally(() => {
        const took = this.now() - started;
        this.notBefore = this.o.batching.spaced ? this.now() + took : 0;
        this.batches.delete(batch);
        for (const item of items) this.flying.delete(item.key);
        this.schedule();
      });
    this.batches.add(batch);
    // Once the tests are over, the rest of the queue goes beside this batch.
    if (this.allNow) this.schedule();
  }
}
