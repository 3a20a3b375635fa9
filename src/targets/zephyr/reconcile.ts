import type { PlanItem } from '../../shared/model';
import type { PublishResult } from '../../kit/target';
import type { ZephyrClient, ZephyrExecution } from './client';
import type { BuildMarks } from './build-marks';
import type { CycleMembers } from './cycle-members';
import type { StatusWriter } from './status-writer';
import { chunk, waitForJob, type JobWaitOptions } from './jobs';
import { BULK_CHUNK } from './batching';
import { STEP_UNEXECUTED } from './evidence';
import { UNEXECUTED } from './statuses';

export interface ReconcileContext {
  client: ZephyrClient;
  cycle: { id: string; projectId: number; versionId: number };
  marks: BuildMarks;
  members: CycleMembers;
  writer: StatusWriter;
  jobs: JobWaitOptions;
  /** Whether step results go with a status (stepResults is not 'off'). */
  steps: boolean;
  /** Whether this item's step results were set one by one (stepResults 'detailed'): absolute, nothing to reset. */
  detailed: (item: PlanItem) => boolean;
  /** Split mode, a folder: its executions by key (the cycle listing holds the root's only). */
  read?: () => Promise<Map<string, ZephyrExecution>>;
}

/**
 * The end of a process of a CI build other processes may publish too (shards, a job per project): the cycle
 * is read again (every page of the listing, 50 executions a call) and each key of ours is made the worst of
 * what this build sent for it. Another process may have written a better status after ours (the bulk PASS
 * of a later shard): ours is set again, with its comment and step results. Or a better one after another
 * process's worse result, whose mark (see build-marks) still says so: that status is restored, and the step
 * results go UNEXECUTED (we do not have that process's steps; a FAIL must not keep our PASS steps). A worse
 * result of ours the cycle shows may still have PASS steps another process's PASS set before it (a status
 * written with a comment leaves steps alone): they go UNEXECUTED in the same bulk calls, one per status.
 * Cost: ceil(executions / 50) reads per process, one bulk call (and its polls) per worse status when there is
 * one, plus the corrections; a local run does not reconcile.
 * Returns one line per key the cycle does not show as it should once corrected (the read-back's details).
 */
export async function reconcile(ctx: ReconcileContext, sent: readonly PlanItem[]): Promise<string[]> {
  const { client, cycle, marks, members } = ctx;
  const now = await (ctx.read ? ctx.read() : readWholeCycle(client, cycle));
  const details: string[] = [];
  const again: Array<{ item: PlanItem; e: ZephyrExecution }> = [];
  const restore = new Map<number, ZephyrExecution[]>();
  /** Our worse results as the cycle shows them: another process's PASS may have set their steps PASS before. */
  const resetSteps = new Map<number, ZephyrExecution[]>();
  for (const item of sent) {
    const seen = now.get(item.key);
    if (!seen) {
      details.push(`${item.key}: not in the cycle`);
      continue;
    }
    // A key confirmed by an earlier process of the run (a replay's) was not read here: the listing's is used.
    const e = members.get(item.key) ?? seen;
    const ours = Number(item.status);
    const here = marks.ownBuildStatus(seen.comment);
    const target = marks.worst(ours, here);
    e.statusId = seen.statusId;
    e.comment = seen.comment;
    // As bad as the build's worst, or worse (a result sent without a comment, by another process): it stands.
    if (!marks.better(seen.statusId, target)) {
      const passed = item.outcome === 'passed' || item.outcome === 'flaky';
      if (ctx.steps && seen.statusId === ours && !passed && ours !== UNEXECUTED && !ctx.detailed(item)) add(resetSteps, ours, e);
      continue;
    }
    if (target === ours) again.push({ item, e });
    else add(restore, target, e);
  }
  const result: PublishResult = { done: [], failed: [] };
  if (again.length) await ctx.writer.write(cycle.id, again, result);
  for (const f of result.failed) details.push(`${f.item.key}: ${f.reason}`);
  // One bulk call per status (≤ 1,000 each) sets the steps UNEXECUTED with the status the cycle shows already.
  for (const [status, es] of resetSteps) for (const e of es) add(restore, status, e);
  await Promise.all(
    [...restore].flatMap(([status, es]) =>
      chunk(es, BULK_CHUNK).map(async (part) => {
        try {
          await waitForJob(
            client,
            await client.bulkStatus(
              part.map((e) => e.id),
              status,
              ctx.steps ? STEP_UNEXECUTED : undefined,
            ),
            ctx.jobs,
          );
          for (const e of part) e.statusId = status;
        } catch (error) {
          for (const e of part) details.push(`${e.issueKey}: ${(error as Error).message}`);
        }
      }),
    ),
  );
  return details;
}

/** Pushed, not copied: a status's group holds up to every result of the run. */
function add(groups: Map<number, ZephyrExecution[]>, status: number, e: ZephyrExecution): void {
  const same = groups.get(status);
  if (same) same.push(e);
  else groups.set(status, [e]);
}

/** Every execution of the cycle by key, from the listing (the truth; the ZQL index may lag behind it). */
async function readWholeCycle(
  client: ZephyrClient,
  cycle: { id: string; projectId: number; versionId: number },
): Promise<Map<string, ZephyrExecution>> {
  const page = (offset: number) => client.executionsPage(cycle.id, cycle.projectId, cycle.versionId, offset);
  const first = await page(0);
  const byKey = new Map<string, ZephyrExecution>();
  const keep = (items: typeof first.items) => {
    for (const e of items) byKey.set(e.issueKey, e);
  };
  keep(first.items);
  const offsets: number[] = [];
  for (let o = first.items.length; o < first.total && first.items.length > 0; o += first.items.length) offsets.push(o);
  await Promise.all(offsets.map(async (o) => keep((await page(o)).items)));
  return byKey;
}
