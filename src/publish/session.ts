import type { PlanItem, TargetSummary, TestRecord } from '../model';
import { classify } from './classify';
import type { Outbox } from './outbox';
import type { BeginContext, ContainerInfo, Target } from './target';

export interface SessionLog {
  info(line: string): void;
  error(line: string): void;
}

/**
 * Drives one target through begin -> publish -> verify with the outbox, and turns every failure into
 * summary lines: nothing here throws, and one target failing never touches another.
 */
export class TargetSession {
  private begun?: Promise<ContainerInfo>;
  private beginError?: unknown;
  private readonly started = Date.now();

  constructor(
    readonly target: Target,
    private readonly outbox: Outbox | undefined,
    private readonly log: SessionLog,
    /** Items already confirmed by an earlier attempt (replay): key -> status. */
    private readonly alreadyDone: ReadonlyMap<string, number | string> = new Map(),
    private readonly recordedContainerId?: string,
  ) {}

  /** Starts the preflight and the container (not awaited by Playwright: keep the promise). */
  start(knownKeys: readonly string[], ctx: BeginContext = {}): void {
    this.begun = this.begin(knownKeys, ctx);
    // Report a bad preflight as soon as it is known, not only at the end of the run.
    this.begun.catch((error: unknown) => {
      this.beginError = error;
      this.log.error(`${this.target.label}: ${(error as Error).message}`);
    });
  }

  private async begin(knownKeys: readonly string[], ctx: BeginContext = {}): Promise<ContainerInfo> {
    const container = await this.target.begin(knownKeys, this.recordedContainerId, ctx);
    this.outbox?.container(this.target.id, container.id, container.name);
    for (const w of this.target.warnings) this.log.error(w);
    return container;
  }

  /** Publishes the final records; resolves with this target's summary. */
  async finish(records: readonly TestRecord[], notRun: number): Promise<TargetSummary> {
    const t = this.target;
    const mapped = records.filter((r) => t.keysOf(r).length > 0);
    const summary: TargetSummary = {
      target: t.id,
      enabled: true,
      published: 0,
      countsByStatus: {},
      unmapped: records.length - mapped.length,
      notRun,
      errors: [],
      unsent: 0,
      calls: 0,
      durationMs: 0,
    };
    const keyCount = new Set(mapped.flatMap((r) => t.keysOf(r))).size;
    let container: ContainerInfo | undefined;
    try {
      container = await (this.begun ?? this.begin(mapped.flatMap((r) => t.keysOf(r))));
    } catch (error) {
      // The service may have come back since onBegin (outage at start): one more try before giving up.
      if (classify(error).kind === 'transient' || classify(error).kind === 'rate-limited') {
        try {
          container = await this.begin([]);
          this.log.info(`${t.label}: reachable again; publishing`);
        } catch (again) {
          this.beginError = again;
        }
      }
      if (!container) summary.errors.push(((this.beginError ?? error) as Error)?.message ?? String(error));
    }
    if (container) {
      summary.container = { kind: t.containerKind, id: container.id, name: container.name, reused: container.reused };
      await this.publishPlan(records, mapped.length, summary);
    } else {
      summary.unsent = keyCount;
    }
    summary.warnings = t.warnings.length ? [...t.warnings] : undefined;
    summary.calls = t.calls();
    summary.durationMs = Date.now() - this.started;
    return summary;
  }

  private async publishPlan(records: readonly TestRecord[], mappedCount: number, summary: TargetSummary): Promise<void> {
    const t = this.target;
    const plan = t.plan(records);
    const pending = plan.filter((item) => this.alreadyDone.get(String(item.key)) !== item.status);
    let sent: PlanItem[] = plan.filter((item) => !pending.includes(item));
    if (mappedCount > 0 && pending.length > 0) {
      try {
        const result = await t.publish(pending);
        this.outbox?.done(t.id, result.done.map((i) => [String(i.key), i.status]));
        sent = sent.concat(result.done);
        summary.unsent = result.failed.length;
        const reasons = new Map<string, string[]>();
        for (const f of result.failed) reasons.set(f.reason, [...(reasons.get(f.reason) ?? []), String(f.item.key)]);
        for (const [reason, keys] of reasons) summary.errors.push(keys.length > 1 ? `${keys.length} results not sent (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}): ${reason}` : reason);
      } catch (error) {
        summary.unsent = pending.length;
        summary.errors.push((error as Error).message);
      }
    }
    if (summary.unsent === 0) this.outbox?.complete(t.id);
    summary.published = sent.length;
    for (const item of sent) {
      const name = t.statusName(item.status);
      summary.countsByStatus[name] = (summary.countsByStatus[name] ?? 0) + 1;
    }
    if (sent.length > 0) {
      try {
        summary.verify = await t.verify(sent);
        if (!summary.verify.ok) summary.errors.push(`read-back check failed: ${summary.verify.details.join('; ')}`);
      } catch (error) {
        summary.errors.push(`read-back check failed: ${(error as Error).message}`);
      }
    }
  }
}
