import { isDefaultComment } from '../../shared/mapping';
import type { PlanItem } from '../../shared/model';
import type { PublishResult } from '../../kit/target';
import type { ZephyrConfig } from './config';
import type { ZephyrClient, ZephyrExecution } from './client';
import { UNEXECUTED } from './statuses';
import { chunk, parseBulkJobMessage, waitForJob } from './jobs';
import { STEP_PASS, STEP_UNEXECUTED, type ExecutionEvidence } from './evidence';
import { BULK_CHUNK, type ZephyrBudget } from './batching';
import type { BuildMarks } from './build-marks';

type Member = { item: PlanItem; e: ZephyrExecution };
/** One `write`: its cycle, where confirmed and failed results go, and the members whose PUT follows their bulk status. */
type Write = { cycleId: string; result: PublishResult; onDone?: (items: readonly PlanItem[]) => void; after: ReadonlySet<Member> };

/**
 * How the statuses of a cycle's executions are written, absolutely, so that every call is safe to repeat:
 * bulk per status (with the step results they take), one PUT per result that carries a comment, then the
 * per-step results `stepResults: 'detailed'` asks for. When the budget is short (ZephyrBudget.statusFirst),
 * the results that carry a comment get their status in the bulk calls too, and the PUT follows as
 * evidence; a result is confirmed once its comment is there, so a comment cut short is sent by the next
 * send or the replay (its status, already so, is not sent again).
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
    /** Whether comments follow their statuses, and how a job is polled. */
    private readonly budget: ZephyrBudget,
    /** A replay: the executions were read just before its sends, so what they say is taken as current. */
    private readonly replay: boolean,
    /** The key's execution is gone from the cycle (removed since it was read): added again with its next send. */
    private readonly forget: (key: string, e: ZephyrExecution) => void,
    /** This publish's CI build: comments carry it, and a worse result of it is never replaced (see build-marks). */
    private readonly marks: BuildMarks,
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
    /** Members whose PUT follows their bulk status (see ZephyrBudget.statusFirst). */
    const after = new Set<Member>();
    const own = new Set(members.filter(({ item, e }) => this.needsOwnCall(item) || this.leavesStaleComment(item, e)));
    const statusFirst = this.budget.statusFirst(own.size);
    for (const m of members) {
      const { item, e } = m;
      const status = Number(item.status);
      // Another process of this build sent a worse result: it stands, and ours is covered by it.
      if (this.marks.worseHere(e, status)) {
        result.done.push(item);
        continue;
      }
      const already = this.current(e) && e.statusId === status;
      if (statusFirst && own.has(m) && status !== UNEXECUTED && !already) {
        after.add(m);
        this.group(bulk, m);
      } else if (own.has(m)) puts.push(m);
      // Skipped tests (did not run) set UNEXECUTED only over what an earlier build left: what another process of
      // this build set stays (worst wins: anything beats UNEXECUTED).
      else if (status === UNEXECUTED && !this.staleForSkip(e)) result.done.push(item);
      else if (already && !this.detailedAfter(item)) result.done.push(item);
      else this.group(bulk, m);
    }
    const work: Array<Promise<void>> = [];
    for (const [group, same] of bulk) {
      const [status, stepStatus] = group.split('|').map((v) => (v === '' ? undefined : Number(v))) as [number, number | undefined];
      for (const part of chunk(same, BULK_CHUNK)) work.push(this.bulk(part, status, stepStatus, { cycleId, result, onDone, after }));
    }
    for (const m of puts) work.push(this.put(m, { cycleId, result, onDone, after }));
    await Promise.all(work);
  }

  /** By status, and whether the step results go with it (passed tests PASS, unless stepResults is off). */
  private group(bulk: Map<string, Member[]>, m: Member): void {
    const group = `${Number(m.item.status)}|${this.stepStatusWith(m.item, m.e) ?? ''}`;
    // Pushed, not copied: a group holds thousands of results (copying it per result was quadratic).
    const same = bulk.get(group);
    if (same) same.push(m);
    else bulk.set(group, [m]);
  }

  /** A failure comment goes with its status in a PUT of its own (see write). */
  needsOwnCall(item: PlanItem): boolean {
    return this.cfg.failureComments && !!item.comment;
  }

  /** The members whose PUT follows (`w.after`) are confirmed by that call, the others here. */
  private async bulk(part: Member[], status: number, stepStatus: number | undefined, w: Write): Promise<void> {
    const { result, onDone, after } = w;
    let gone: Set<string>;
    try {
      const ids = part.map((p) => p.e.id);
      const token = await this.client.bulkStatus(ids, status, stepStatus);
      gone = new Set(parseBulkJobMessage((await waitForJob(this.client, token, this.budget.polling())).message));
    } catch (error) {
      result.failed.push(...part.map((p) => ({ item: p.item, reason: (error as Error).message })));
      return;
    }
    for (const p of part.filter((m) => gone.has(m.e.id))) {
      this.forget(p.item.key, p.e);
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
    // The comments go out now, behind every status in the lane (they are text); the others are confirmed meanwhile.
    const comments = part.filter((p) => after.has(p)).map((p) => this.put(p, w, true));
    part = part.filter((p) => !after.has(p));
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
    await Promise.all(comments);
  }

  /** `statusSet`: a bulk call just set its status, with the step results a bulk call gives: the PUT is for the comment. */
  private async put({ item, e }: Member, { cycleId, result, onDone }: Write, statusSet = false) {
    const { projectId, versionId } = this.cfg;
    // Already so (a process killed after sending, before journaling; replay reads the cycle afresh): no PUT. Steps are absolute: set anyway.
    const comment = this.commentOf(item);
    const already = this.current(e) && e.statusId === Number(item.status) && e.comment === comment;
    const stepStatus = statusSet ? undefined : this.stepStatusWith(item, e);
    try {
      if (!already) await this.client.updateExecution(e, { statusId: Number(item.status), comment, cycleId, projectId, versionId });
      e.statusId = Number(item.status);
      e.comment = comment;
      this.setHere.add(e.id);
      if (this.cfg.stepResults === 'detailed' && item.steps?.length)
        await this.evidence.setSteps(e, item.steps, item.outcome === 'passed' || item.outcome === 'flaky');
      // A call of its own (a comment written or cleared): its steps as the bulk call gives the others.
      else if (stepStatus !== undefined)
        await waitForJob(this.client, await this.client.bulkStatus([e.id], Number(item.status), stepStatus), this.budget.polling());
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

  /** The comment as written: with the mark of this build and of the status it goes with (see build-marks). */
  commentOf(item: PlanItem): string {
    return item.comment ? this.marks.mark(item.comment, Number(item.status), this.cfg.commentLimit) : '';
  }

  /** A skip's UNEXECUTED is written over what an earlier build left, never over what this build (or we) set. */
  private staleForSkip(e: ZephyrExecution): boolean {
    return !this.setHere.has(e.id) && e.statusId !== UNEXECUTED && this.marks.stale(e);
  }

  /**
   * An earlier build's failure comment on a reused cycle's execution: a bulk call would leave it, its own call
   * clears it. One of this build (another process's) stays: it is as bad as ours or worse (see write).
   */
  private leavesStaleComment(item: PlanItem, e: ZephyrExecution): boolean {
    if (!this.cfg.failureComments || item.comment || !isDefaultComment(e.comment ?? '')) return false;
    if (this.marks.ownBuildStatus(e.comment) !== undefined) return false;
    return Number(item.status) !== UNEXECUTED || this.staleForSkip(e);
  }
}
