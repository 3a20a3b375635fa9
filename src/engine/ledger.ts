import type { PublishResult } from '../kit/target';
import type { PlanItem, TargetId } from '../shared/model';
import { fingerprint, type DoneItem, type Outbox } from './outbox';

/**
 * What one target's service holds of the run's results: the items it confirmed (as they are now: a
 * result planned again with another status or comment is not confirmed) and the keys it refused (no
 * such Test issue or scenario). Each is journaled once, so that neither the end of the run nor a
 * replay sends it again.
 */
export class ResultLedger {
  /** key -> fingerprint the service confirmed (streamed, sent at the end, or journaled by an earlier run). */
  private readonly confirmed = new Map<string, string>();
  /** key -> why the service refused it. */
  private readonly refused: Map<string, string>;

  constructor(
    private readonly o: {
      target: TargetId;
      outbox?: Outbox;
      /** Confirmed by an earlier attempt (replay): key -> fingerprint, or status for old journals. */
      alreadyDone?: ReadonlyMap<string, string | number>;
      /** Refused in an earlier attempt (replay): key -> why. */
      refused?: ReadonlyMap<string, string>;
      /** Items newly confirmed (their files may go up now). */
      onConfirmed: (items: readonly PlanItem[]) => void;
    },
  ) {
    this.refused = new Map(o.refused ?? []);
  }

  /** Results this process got confirmed. */
  get confirmedCount(): number {
    return this.confirmed.size;
  }

  /** Results the service holds: confirmed to this process or, in a replay, to the run before it (each key once). */
  get heldCount(): number {
    let n = this.confirmed.size;
    for (const key of this.o.alreadyDone?.keys() ?? []) if (!this.confirmed.has(key)) n++;
    return n;
  }

  /** The keys the service holds (as `heldCount` counts them). */
  heldKeys(): string[] {
    return [...new Set([...this.confirmed.keys(), ...(this.o.alreadyDone?.keys() ?? [])])];
  }

  /** Of these keys, those the service holds nothing of yet (neither confirmed nor refused). */
  notHeld(keys: Iterable<string>): number {
    let n = 0;
    for (const key of keys) if (!this.confirmed.has(key) && !this.o.alreadyDone?.has(key) && !this.refused.has(key)) n++;
    return n;
  }

  /** Nothing more to send for the item: the service holds it as it is now, or refused its key. */
  nothingToSend(item: PlanItem): boolean {
    if (this.refused.has(item.key)) return true;
    const mine = this.confirmed.get(item.key);
    if (mine !== undefined) return mine === fingerprint(item);
    const earlier = this.o.alreadyDone?.get(item.key);
    // Journals before fingerprints recorded the status only.
    return earlier !== undefined && (earlier === fingerprint(item) || earlier === item.status);
  }

  /** The items of the plan the service holds (refused ones left out). */
  sent(plan: readonly PlanItem[]): PlanItem[] {
    return plan.filter((item) => !this.refused.has(item.key) && this.nothingToSend(item));
  }

  /** The items of the plan whose key the service refused, with why. */
  refusedIn(plan: readonly PlanItem[]): PublishResult['failed'] {
    return plan.filter((item) => this.refused.has(item.key)).map((item) => ({ item, reason: this.refused.get(item.key)!, refused: true }));
  }

  /** Records (once) what the service confirmed: a target may tell of items early, then again in its result. */
  confirm(items: readonly PlanItem[]): void {
    const done: DoneItem[] = items
      .map((i): DoneItem => [i.key, i.status, fingerprint(i)])
      .filter(([key, , print]) => this.confirmed.get(key) !== print);
    if (!done.length) return;
    for (const [key, , print] of done) this.confirmed.set(key, print!);
    this.o.outbox?.done(this.o.target, done);
    this.o.onConfirmed(items);
  }

  /** Records the keys a publish found refused; passes the result on. */
  refuse(result: PublishResult): PublishResult {
    const fresh = result.failed.filter((f) => f.refused && !this.refused.has(f.item.key));
    for (const f of fresh) this.refused.set(f.item.key, f.reason);
    if (fresh.length)
      this.o.outbox?.refused(
        this.o.target,
        fresh.map((f) => [f.item.key, f.reason]),
      );
    return result;
  }
}
