import { isDefaultComment } from '../../mapping';
import type { PlanItem } from '../../model';
import type { PublishResult } from '../../kit/target';
import type { ZephyrConfig } from './config';
import type { ZephyrClient, ZephyrExecution } from './client';
import { UNEXECUTED } from './statuses';
import { chunk, parseBulkJobMessage, waitForJob, type JobWaitOptions } from './jobs';
import { STEP_PASS, STEP_UNEXECUTED, type ExecutionEvidence } from './evidence';
import { BULK_CHUNK } from './batching';

type Member = { item: PlanItem; e: ZephyrExecution };

/**
 * How the statuses of a cycle's executions are written, absolutely, so that every call is safe to repeat:
 * bulk per status (with the step results they take), one PUT per result that carries a comment, then the
 * per-step results `stepResults: 'detailed'` asks for.
 */
export class StatusWriter {
  /** Executions whose step results may still say PASS from before a status change, until they are reset. */
  private readonly staleSteps = new Set<string>();
  /**
   * Executions whose status (and comment) this process set. In a live run, what the cycle said when it was read
   * (a reused cycle, at the run's start) may have changed since — another run, a person: a result the same as
   * that old value is sent all the same, so that this run, the later writer, is what the cycle shows.
   */
  private readonly setHere = new Set<string>();

  constructor(
    private readonly cfg: ZephyrConfig,
    private readonly client: ZephyrClient,
    private readonly evidence: ExecutionEvidence,
    private readonly jobs: JobWaitOptions,
    /** A replay: the executions were read just before its sends, so what they say is taken as current. */
    private readonly replay: boolean,
    /** The key's execution is gone from the cycle (removed since it was read): added again with its next send. */
    private readonly forget: (key: string) => void,
  ) {}

  /** Writes the members' results; what the service confirmed goes to `result.done` (and `onDone`) as it is. */
  async write(
    cycleId: string,
    members: readonly Member[],
    result: PublishResult,
    onDone?: (items: readonly PlanItem[]) => void,
  ): Promise<void> {
    // By status, and whether the step results go PASS with it (passed tests, unless stepResults is off).
    const bulk = new Map<string, Member[]>();
    const puts: Member[] = [];
    for (const { item, e } of members) {
      const status = Number(item.status);
      if (this.needsOwnCall(item) || this.leavesStaleComment(item, e)) puts.push({ item, e });
      // Skipped tests are left as they are (UNEXECUTED when new; in a reused cycle what an earlier run, another
      // shard or a person set stays — a skip says nothing about it): no call needed.
      else if (status === UNEXECUTED || (this.current(e) && e.statusId === status && !this.detailedAfter(item))) result.done.push(item);
      else {
        const group = `${status}|${this.stepStatusWith(item, e) ?? ''}`;
        // Pushed, not copied: a group holds thousands of results (copying it per result was quadratic).
        const same = bulk.get(group);
        if (same) same.push({ item, e });
        else bulk.set(group, [{ item, e }]);
      }
    }
    const work: Array<Promise<void>> = [];
    for (const [group, same] of bulk) {
      const [status, stepStatus] = group.split('|').map((v) => (v === '' ? undefined : Number(v))) as [number, number | undefined];
      for (const part of chunk(same, BULK_CHUNK)) work.push(this.bulk(part, status, stepStatus, result, onDone));
    }
    for (const m of puts) work.push(this.put(cycleId, m, result, onDone));
    await Promise.all(work);
  }

  /** A failure comment goes with its status in a PUT of its own (see write). */
  needsOwnCall(item: PlanItem): boolean {
    return this.cfg.failureComments && !!item.comment;
  }

  private async bulk(
    part: Member[],
    status: number,
    stepStatus: number | undefined,
    result: PublishResult,
    onDone?: (items: readonly PlanItem[]) => void,
  ): Promise<void> {
    let gone: Set<string>;
    try {
      const token = await this.client.bulkStatus(
        part.map((p) => p.e.id),
        status,
        stepStatus,
      );
      gone = new Set(parseBulkJobMessage((await waitForJob(this.client, token, this.jobs)).message));
    } catch (error) {
      result.failed.push(...part.map((p) => ({ item: p.item, reason: (error as Error).message })));
      return;
    }
    for (const p of part.filter((m) => gone.has(m.e.id))) {
      this.forget(p.item.key);
      result.failed.push({
        item: p.item,
        reason: `${p.item.key}: Zephyr did not find its execution ${p.e.id} (removed from the cycle since it was read?); it is added again with the next send`,
      });
    }
    part = part.filter((m) => !gone.has(m.e.id));
    for (const p of part) {
      p.e.statusId = status;
      this.setHere.add(p.e.id);
      this.staleSteps.delete(p.e.id);
    }
    // A failed test's step results, when no call of its own set them (failure comments off): after its status.
    const settled = await Promise.all(
      part.map(async (p) => {
        if (!this.detailedAfter(p.item)) return { p };
        try {
          await this.evidence.setSteps(p.e, p.item.steps!, false);
          return { p };
        } catch (error) {
          // Not taken as set: the next send of the key makes the calls again.
          this.setHere.delete(p.e.id);
          return { p, error: error as Error };
        }
      }),
    );
    const done = settled.filter((s) => !s.error).map((s) => s.p.item);
    for (const s of settled) if (s.error) result.failed.push({ item: s.p.item, reason: s.error.message });
    result.done.push(...done);
    if (done.length) onDone?.(done);
  }

  private async put(cycleId: string, { item, e }: Member, result: PublishResult, onDone?: (items: readonly PlanItem[]) => void) {
    const { projectId, versionId } = this.cfg;
    // Already so (a process killed after sending, before journaling; replay reads the cycle afresh): no PUT. Steps are absolute: set anyway.
    const already = this.current(e) && e.statusId === Number(item.status) && e.comment === item.comment;
    const stepStatus = this.stepStatusWith(item, e);
    try {
      if (!already)
        await this.client.updateExecution(e, { statusId: Number(item.status), comment: item.comment, cycleId, projectId, versionId });
      e.statusId = Number(item.status);
      e.comment = item.comment;
      this.setHere.add(e.id);
      if (this.cfg.stepResults === 'detailed' && item.steps?.length)
        await this.evidence.setSteps(e, item.steps, item.outcome === 'passed' || item.outcome === 'flaky');
      // A call of its own (a comment written or cleared): its steps as the bulk call gives the others.
      else if (stepStatus !== undefined)
        await waitForJob(this.client, await this.client.bulkStatus([e.id], Number(item.status), stepStatus), this.jobs);
      this.staleSteps.delete(e.id);
      result.done.push(item);
      onDone?.([item]);
    } catch (error) {
      result.failed.push({ item, reason: (error as Error).message });
    }
  }

  /** Per-step results set after a bulk status: a test that did not pass, with steps, under `stepResults: 'detailed'`. */
  private detailedAfter(item: PlanItem): boolean {
    return this.cfg.stepResults === 'detailed' && !!item.steps?.length && item.outcome !== 'passed' && item.outcome !== 'flaky';
  }

  /** What this process knows of the execution is current: it set it, or (replay) read it just now. */
  private current(e: ZephyrExecution): boolean {
    return this.replay || this.setHere.has(e.id);
  }

  /**
   * The step results a status change sets: PASS for a passed test; UNEXECUTED for any other when the execution
   * had another status (an earlier run's, or ours before a correction): its steps may still say PASS. Remembered
   * until done, so that a status set without its steps (the step call failed) still gets them on the next try.
   */
  private stepStatusWith(item: PlanItem, e: ZephyrExecution): number | undefined {
    if (this.cfg.stepResults === 'off') return undefined;
    if (item.outcome === 'passed' || item.outcome === 'flaky') return STEP_PASS;
    if (e.statusId !== UNEXECUTED && e.statusId !== Number(item.status)) this.staleSteps.add(e.id);
    return this.staleSteps.has(e.id) ? STEP_UNEXECUTED : undefined;
  }

  /** An earlier run's failure comment on a reused cycle's execution: a bulk call would leave it, its own call clears it. */
  private leavesStaleComment(item: PlanItem, e: ZephyrExecution): boolean {
    return this.cfg.failureComments && !item.comment && Number(item.status) !== UNEXECUTED && isDefaultComment(e.comment ?? '');
  }
}
