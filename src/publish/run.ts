import type { ResolvedConfig } from '../config';
import { createHttp } from '../http/client';
import type { RunSummary, TargetId, TargetSummary, TestRecord } from '../model';
import type { Printer } from '../output';
import { createTargets, type TargetDeps } from '../targets';
import { Outbox, type Journal, type JournalTargetMeta } from './outbox';
import { TargetSession } from './session';

/** How long a non-leader shard waits for shard 1's cycle / run (shard 1 may have no tests at all). */
export const FOLLOWER_WAIT_MS = 30_000;

export interface PublishRunOptions {
  printer: Printer;
  /** Replay: the journal being re-sent (appended to, and its done items skipped). */
  journal?: Journal;
  deps?: Partial<TargetDeps>;
}

/**
 * One publish of one Playwright run (or of one journal, on replay): owns the HTTP pool, the outbox and
 * a session per enabled target. Used by the reporter and by `replay`, so both take the same path.
 */
export class PublishRun {
  readonly outbox?: Outbox;
  private readonly sessions: TargetSession[];
  private readonly http: ReturnType<typeof createHttp>;
  private readonly startedAt = new Date();
  private readonly journaled = new Map<string, string>();

  constructor(
    private readonly config: ResolvedConfig,
    private readonly o: PublishRunOptions,
  ) {
    this.http = createHttp({
      onExchange: (e) => o.printer.debug(`${e.service} ${e.method} ${e.path} -> ${e.status} (${Math.round(e.durationMs)} ms)`),
    });
    const targets = createTargets(config, { send: this.http.send, ...o.deps });
    if (!config.dryRun && (targets.length || config.invalid.length)) {
      const meta = journalMeta(config);
      this.outbox = new Outbox(config.outboxDir, meta, o.journal?.file);
      if (o.journal) for (const t of o.journal.complete) this.outbox.complete(t);
    }
    const log = { info: o.printer.info, error: o.printer.error };
    this.sessions = targets.map((t) => new TargetSession(t, this.outbox, log, o.journal?.done.get(t.id), o.journal?.targets[t.id]?.containerId));
  }

  get targetIds(): TargetId[] {
    return this.sessions.map((s) => s.target.id);
  }

  /**
   * Preflight + container for every target, in the background. With live shards, shard 1 creates the
   * cycle / run and the others first wait for it, so that simultaneous shards do not race to create.
   */
  start(records: readonly Pick<TestRecord, 'zephyrKeys' | 'scenarioIds'>[], shard?: { current: number; total: number } | null): void {
    if (this.config.dryRun) return;
    const followerWaitMs = shard && shard.total > 1 && shard.current > 1 ? FOLLOWER_WAIT_MS : 0;
    for (const s of this.sessions) {
      const keys = [...new Set(records.flatMap((r) => s.target.keysOf(r as TestRecord)))];
      s.start(keys, { followerWaitMs });
    }
  }

  /** Journals records (synchronously) unless identical ones were journaled already. */
  journal(records: readonly TestRecord[]): void {
    if (!this.outbox) return;
    const fresh = records.filter((r) => {
      // A short fingerprint, not the record's JSON: this map lives as long as the run (10,000s of tests).
      const print = `${r.outcome}|${r.attempts}|${r.zephyrKeys.join(',')}|${r.scenarioIds.join(',')}|${r.error?.length ?? -1}`;
      if (this.journaled.get(r.testId) === print) return false;
      this.journaled.set(r.testId, print);
      return true;
    });
    this.outbox.appendTests(fresh);
  }

  async finish(records: readonly TestRecord[], notRun: number): Promise<RunSummary> {
    const targets: RunSummary['targets'] = {};
    if (this.config.dryRun) {
      for (const s of this.sessions) targets[s.target.id] = this.dryRun(s, records, notRun);
    } else {
      this.journal(records);
      const done = await Promise.all(this.sessions.map((s) => s.finish(records, notRun)));
      const left = this.outbox?.finalize();
      for (const s of done) {
        if (left && s.unsent) s.outbox = left;
        targets[s.target] = s;
      }
      for (const id of this.config.invalid) {
        targets[id] = { target: id, enabled: false, published: 0, countsByStatus: {}, unmapped: 0, notRun, errors: ['settings invalid (see above)'], unsent: records.filter((r) => (id === 'zephyr' ? r.zephyrKeys : r.scenarioIds).length).length, outbox: left, calls: 0, durationMs: 0 };
      }
    }
    await Promise.all(this.sessions.map((s) => s.target.close().catch(() => undefined)));
    await this.http.close().catch(() => undefined);
    return { version: 1, startedAt: this.startedAt.toISOString(), finishedAt: new Date().toISOString(), targets };
  }

  private dryRun(s: TargetSession, records: readonly TestRecord[], notRun: number): TargetSummary {
    const plan = s.target.plan(records);
    const counts: Record<string, number> = {};
    for (const item of plan) {
      const name = s.target.statusName(item.status);
      counts[name] = (counts[name] ?? 0) + 1;
      this.o.printer.info(`dry run: ${s.target.label} ${item.key} -> ${name}${item.comment ? ' (with comment)' : ''}`);
    }
    const unmapped = records.filter((r) => s.target.keysOf(r).length === 0).length;
    return { target: s.target.id, enabled: true, dryRun: true, published: plan.length, countsByStatus: counts, unmapped, notRun, errors: [], unsent: 0, calls: 0, durationMs: 0 };
  }
}

function journalMeta(config: ResolvedConfig): Partial<Record<TargetId, JournalTargetMeta>> {
  const meta: Partial<Record<TargetId, JournalTargetMeta>> = {};
  if (config.zephyr) meta.zephyr = { projectId: config.zephyr.projectId, versionId: config.zephyr.versionId, containerName: config.zephyr.cycleName, containerId: config.zephyr.cycleId };
  if (config.cucumberstudio) {
    const c = config.cucumberstudio;
    meta.cucumberstudio = { projectId: c.projectId, containerName: c.testRunName, containerId: c.testRunId === undefined ? undefined : String(c.testRunId) };
  }
  // Targets with bad settings are journaled too, so fixing the settings and replaying sends them.
  for (const id of config.invalid) meta[id] ??= { projectId: 0, containerName: '' };
  return meta;
}
