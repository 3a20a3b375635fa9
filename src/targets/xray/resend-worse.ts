/**
 * The end of a shared build's publish (a CI build, or a replay): this process's result sent again where the
 * execution holds a better one. Why: the read before an import (publisher.ts `worstWins`) cannot see an import
 * that another process makes after that read. Two shards of one build that both read XT-9 before either writes
 * both import: the FAILED first, the PASSED over it, and the PASSED stays — a later pass hiding a failure. Only
 * the process that sent the worse result can tell (the other holds what it sent), so at its end, where its
 * result is strictly worse than what the run holds (whoever wrote it: a later process of this build, or an
 * earlier build's), it imports its result again; Zephyr's reconcile and CucumberStudio's worst-wins do the same.
 *
 * Strictly worse only: two processes with the same status send nothing, and every re-send makes a run worse, so
 * two processes never undo each other. Calls: no read of its own (the read-back's runs are used), and one import
 * per 100 keys re-sent (`chunks`), none when nothing must be. The import carries no files: those of a shared build
 * go by `attach`, which looks at the run first, so none is on a run twice.
 * Still open: a better result imported after this end's read (its process read before our first import, and
 * imports only after our end) is seen by neither process; the end of the process that writes last cannot know of
 * a worse result it overwrote (Xray keeps no history of a run).
 */
import type { Outcome, PlanItem } from '../../shared/model';
import type { XrayClient } from './client';
import { importInfo } from './execution-places';
import type { ExecutionRef } from './queries';
import type { HeldRun } from './read-back';
import { chunks, testResult } from './results';
import { xrayRank } from './statuses';

export interface Resend {
  /** The engine's key (split mode: with its place): what `held` is kept by. */
  key: string;
  /** The item as Xray knows it (its key is the Test's). */
  item: PlanItem;
}

/** The items whose run holds a result strictly better than ours (`rank`: xrayRank with the run's status map). */
export function heldBetter(
  items: readonly Resend[],
  held: ReadonlyMap<string, HeldRun | undefined>,
  rank: (status: string, outcome: Outcome) => number = xrayRank,
): Resend[] {
  return items.filter(({ key, item }) => {
    const run = held.get(key);
    return run !== undefined && rank(run.status, item.outcome) < rank(String(item.status), item.outcome);
  });
}

/**
 * Imports ours again where the run holds a better result (`heldBetter`). A confirmed import's keys now hold ours:
 * `held` is updated, for the read-back to judge (no read after it). Returns, by key, why one was not sent again
 * (` (…)`, to follow the read-back's line).
 */
export async function resendWorse(o: {
  client: XrayClient;
  execution: ExecutionRef;
  /** Split mode: the project's (every import into its execution carries its environments). */
  place: string | undefined;
  buildId: string | undefined;
  items: readonly Resend[];
  held: Map<string, HeldRun | undefined>;
  /** A key is about to be sent again (the mid-run read-back stops trusting its read). */
  sending: (key: string) => void;
  rank?: (status: string, outcome: Outcome) => number;
}): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  const entries = heldBetter(o.items, o.held, o.rank).map((r) => ({ ...r, result: testResult(r.item, o.buildId) }));
  await Promise.all(
    chunks(entries).map(async (chunk) => {
      for (const e of chunk) o.sending(e.key);
      try {
        const tests = chunk.map((e) => e.result);
        await o.client.importExecution({ testExecutionKey: o.execution.key, ...importInfo(o.place), tests });
        for (const e of chunk) o.held.set(e.key, { status: e.result.status, comment: e.result.comment ?? '' });
      } catch (error) {
        for (const e of chunk) failed.set(e.key, ` (sending ${e.result.status} again failed: ${(error as Error).message})`);
      }
    }),
  );
  return failed;
}
