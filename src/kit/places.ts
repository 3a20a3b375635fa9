/**
 * Split mode (`projects: 'split'`): a target keeps each Playwright project's results in a container of its own
 * inside its run — a Zephyr folder in the cycle, a CucumberStudio execution environment in the test run, an Xray
 * Test Execution per project. The engine hands such a target placed keys (see `keysOf` in shared/model); the
 * target groups its items by place with `byPlace`, and finds or makes each place's container once with `Places`.
 */
import { unplaced, type PlanItem } from '../shared/model';

/** One place's items, their keys as the service knows them; `original` maps each back to the engine's item. */
export interface PlaceGroup {
  /** The Playwright project; undefined in merge mode (the run's own container). */
  place?: string;
  items: PlanItem[];
  original: Map<PlanItem, PlanItem>;
}

/** Groups items by place, in first-seen order; merge mode gives one group without a place. */
export function byPlace(items: readonly PlanItem[]): PlaceGroup[] {
  const groups = new Map<string | undefined, PlaceGroup>();
  for (const item of items) {
    const { key, place } = unplaced(item.key);
    let group = groups.get(place);
    if (!group) groups.set(place, (group = { place, items: [], original: new Map() }));
    const plain = key === item.key ? item : { ...item, key };
    group.items.push(plain);
    group.original.set(plain, item);
  }
  return [...groups.values()];
}

/**
 * Each place's container, found or made once per process however many batches ask at once. A failure is not
 * kept: the next batch of that place tries again (the outbox holds its results meanwhile).
 */
export class Places<T> {
  private readonly opened = new Map<string, Promise<T>>();

  constructor(private readonly open: (place: string) => Promise<T>) {}

  get(place: string): Promise<T> {
    let pending = this.opened.get(place);
    if (!pending) {
      pending = this.open(place);
      this.opened.set(place, pending);
      pending.catch(() => this.opened.delete(place));
    }
    return pending;
  }

  /** The places asked for so far (a summary or read-back goes through each). */
  names(): string[] {
    return [...this.opened.keys()];
  }
}
