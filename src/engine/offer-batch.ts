import type { TestRecord } from '../shared/model';

/**
 * Results are journaled as each test ends, and offered to the targets (planned, queued for sending) in a
 * batch this often. onTestEnd runs on Playwright's main thread between a worker's end of test and the
 * dispatch of its next one: a few records planned together once in a while keep that path short, and the
 * targets batch their calls over seconds anyway (Zephyr 3 s, CucumberStudio 200 ms).
 */
export const OFFER_EVERY_MS = 25;

/** Journaled records waiting to be offered to the targets together (see OFFER_EVERY_MS). */
export class OfferBatch {
  private records: TestRecord[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly offer: (records: readonly TestRecord[]) => void,
    private readonly everyMs = OFFER_EVERY_MS,
  ) {}

  add(record: TestRecord): void {
    this.records.push(record);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.everyMs);
    // The end of the run flushes what is left: the timer alone must never keep a process alive.
    this.timer.unref?.();
  }

  /** Offers what is waiting now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.records.length) return;
    const batch = this.records;
    this.records = [];
    this.offer(batch);
  }
}
