import { classify } from '../kit/classify';
import type { ContainerInfo, StatusTable, Target, TargetDefinition } from '../kit/target';
import { keysOf, type PlanItem, type TargetSummary, type TestRecord } from '../model';
import type { Outbox } from './outbox';

export interface SessionLog {
  info(line: string): void;
  error(line: string): void;
}

/**
 * Drives one target through begin -> publish -> verify with the outbox, and turns every failure into
 * summary lines: nothing here throws, and one target failing never touches another.
 */
export class TargetSession {
  private begun?: Promise<{ container: ContainerInfo; statuses: StatusTable }>;
  private beginError?: unknown;
  private readonly started = Date.now();
  private warnings: string[] = [];

  constructor(
    readonly definition: TargetDefinition,
    readonly target: Target,
    private readonly outbox: Outbox | undefined,
    private readonly log: SessionLog,
    /** Items already confirmed by an earlier attempt (replay): key -> status. */
    private readonly alreadyDone: ReadonlyMap<string, number | string> = new Map(),
  ) {}

  get id(): string {
    return this.definition.id;
  }

  /** Starts the preflight and the container (not awaited by Playwright: keep the promise). */
  start(knownKeys: readonly string[], followerWaitMs = 0): void {
    this.begun = this.begin(knownKeys, followerWaitMs);
    // Report a bad preflight as soon as it is known, not only at the end of the run.
    this.begun.catch((error: unknown) => {
      this.beginError = error;
      this.log.error(`${this.definition.label}: ${(error as Error).message}`);
    });
  }

  /** Statuses first (an explicit step), then the container. */
  private async begin(knownKeys: readonly string[], followerWaitMs = 0): Promise<{ container: ContainerInfo; statuses: StatusTable }> {
    const statuses = await this.target.resolveStatuses('service');
    if (!this.warnings.length) {
      this.warnings = statuses.warnings;
      for (const w of statuses.warnings) this.log.error(w);
    }
    const container = await this.target.begin({ knownKeys, followerWaitMs });
    this.outbox?.container(this.id, container.id, container.name);
    return { container, statuses };
  }

  /** Publishes the final records; resolves with this target's summary. */
  async finish(records: readonly TestRecord[], notRun: number): Promise<TargetSummary> {
    const t = this.target;
    const mapped = records.filter((r) => keysOf(r, this.id).length > 0);
    const summary: TargetSummary = {
      target: this.id,
      label: this.definition.label,
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
    const keyCount = new Set(mapped.flatMap((r) => keysOf(r, this.id))).size;
    let begun: { container: ContainerInfo; statuses: StatusTable } | undefined;
    try {
      begun = await (this.begun ?? this.begin(mapped.flatMap((r) => keysOf(r, this.id))));
    } catch (error) {
      // The service may have come back since onBegin (outage at start): one more try before giving up.
      if (classify(error).kind === 'transient' || classify(error).kind === 'rate-limited') {
        try {
          begun = await this.begin([]);
          this.log.info(`${this.definition.label}: reachable again; publishing`);
        } catch (again) {
          this.beginError = again;
        }
      }
      if (!begun) summary.errors.push(((this.beginError ?? error) as Error)?.message ?? String(error));
    }
    if (begun) {
      const { container, statuses } = begun;
      summary.container = { kind: this.definition.containerKind, id: container.id, name: container.name, reused: container.reused };
      await this.publishPlan(records, mapped.length, statuses, summary);
    } else {
      summary.unsent = keyCount;
    }
    summary.warnings = this.warnings.length ? [...this.warnings] : undefined;
    summary.calls = t.calls();
    summary.durationMs = Date.now() - this.started;
    return summary;
  }

  private async publishPlan(records: readonly TestRecord[], mappedCount: number, statuses: StatusTable, summary: TargetSummary): Promise<void> {
    const t = this.target;
    const plan = t.plan(records, statuses);
    const pending = plan.filter((item) => this.alreadyDone.get(String(item.key)) !== item.status);
    let sent: PlanItem[] = plan.filter((item) => !pending.includes(item));
    if (mappedCount > 0 && pending.length > 0) {
      try {
        const result = await t.publish(pending);
        this.outbox?.done(this.id, result.done.map((i) => [String(i.key), i.status]));
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
    if (summary.unsent === 0) this.outbox?.complete(this.id);
    summary.published = sent.length;
    for (const item of sent) {
      const name = statuses.name(item.status);
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
