/**
 * What one import carries (§4): one object per Test (`testKey` only, never `testInfo`), its status and comment.
 * The comment's first line names the CI build the result belongs to (§8.2 step 7): Xray keeps no build on a run,
 * and worst wins across the processes of one build only — a later build replaces the result.
 */
import type { PlanItem } from '../../shared/model';
import type { RunRef } from './queries';

/** Tests per import: a timed-out batch is cheap to send again (§7). */
export const MAX_TESTS = 100;
/** Bytes per import, far below the ~100 MiB at which Xray answers 413 and imports nothing (§7). */
export const MAX_BYTES = 4 * 1024 * 1024;

const BUILD_PREFIX = 'Playwright build: ';

/** The comment a run gets: the build line, then the error text kept as it is (`{noformat}`: no wiki markup in a stack). */
export function runComment(item: Pick<PlanItem, 'comment'>, buildId: string | undefined): string {
  const build = buildId ? `${BUILD_PREFIX}${buildId}` : '';
  const text = item.comment ? `{noformat}${item.comment}{noformat}` : '';
  return [build, text].filter(Boolean).join('\n');
}

/** The build a stored run's comment names (its first line), if any. */
export function buildOf(comment: string): string | undefined {
  const first = comment.split('\n', 1)[0];
  return first.startsWith(BUILD_PREFIX) ? first.slice(BUILD_PREFIX.length) : undefined;
}

export interface TestResult {
  testKey: string;
  status: string;
  comment?: string;
}

export function testResult(item: PlanItem, buildId: string | undefined): TestResult {
  const comment = runComment(item, buildId);
  return { testKey: item.key, status: String(item.status), ...(comment ? { comment } : {}) };
}

/**
 * Items whose stored run is worse and came from this same build: another process of the build sent it, and it
 * stays (worst wins). `rank` compares status names.
 */
export function keptWorse(
  items: readonly PlanItem[],
  held: ReadonlyMap<string, RunRef>,
  buildId: string,
  rank: (status: string, item: PlanItem) => number,
): Set<PlanItem> {
  const kept = new Set<PlanItem>();
  for (const item of items) {
    const run = held.get(item.key);
    if (run && buildOf(run.comment) === buildId && rank(run.status, item) > rank(String(item.status), item)) kept.add(item);
  }
  return kept;
}

/** Groups results into imports of at most MAX_TESTS tests and about MAX_BYTES each. */
export function chunks<T extends { result: TestResult }>(list: readonly T[], maxTests = MAX_TESTS, maxBytes = MAX_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const entry of list) {
    const size = Buffer.byteLength(JSON.stringify(entry.result));
    if (current.length && (current.length >= maxTests || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}
