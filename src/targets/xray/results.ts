/**
 * What one import carries (§4): one object per Test (`testKey` only, never `testInfo`), its status and comment.
 * The comment's first line names the CI build the result belongs to (§8.2 step 7): Xray keeps no build on a run,
 * and worst wins across the processes of one build only — a later build replaces the result.
 */
import type { UploadFile } from '../../kit/target';
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

/**
 * Files carried in the import itself (§4.4, §7: one call for many files instead of 2 per file), in raw bytes.
 * 1 MiB per file takes screenshots and error context (traces and videos are larger and go one per call); 2 MiB per
 * call is ≈ 2.7 MiB of base64, so one import of 100 results with its files stays under MAX_BYTES — 1/37 of the size
 * at which Xray answers 413, and a few seconds of upload on a slow CI link, far inside the request timeout.
 */
export const INLINE_EVIDENCE = { maxBytesPerFile: 1024 * 1024, maxBytesPerCall: 2 * 1024 * 1024 };

export interface Evidence {
  data: string;
  filename: string;
  contentType: string;
}

export interface TestResult {
  testKey: string;
  /**
   * §4.3, §0.4: when the test ran, ISO 8601 (UTC with `Z`, as `toISOString()` gives it); both or neither. For a key
   * several tests map to, the span of all of them (PlanItem's: earliest start, latest finish), since the one run
   * stands for them all — the worst test's own times alone would hide how long the key's tests took.
   */
  start?: string;
  finish?: string;
  status: string;
  comment?: string;
  /** §4.4: `evidence` (singular) and `contentType` on Cloud. */
  evidence?: Evidence[];
}

export function testResult(item: PlanItem, buildId: string | undefined, files: readonly UploadFile[] = []): TestResult {
  const comment = runComment(item, buildId);
  const evidence = files.map((f) => ({ data: f.bytes.toString('base64'), filename: f.fileName, contentType: f.contentType }));
  const times = item.startedAt && item.finishedAt ? { start: item.startedAt, finish: item.finishedAt } : {};
  return {
    testKey: item.key,
    ...times,
    status: String(item.status),
    ...(comment ? { comment } : {}),
    ...(evidence.length ? { evidence } : {}),
  };
}

/**
 * A stored run that another process of this build left and that must stay (worst wins): its comment names this
 * build and its status is worse than `than`. One rule for both ends: before an import (`keptWorse`: ours is not
 * sent) and at the read-back (publisher.ts `verify`: ours was sent, and the other process's came after it).
 */
export function worseOfBuild(
  run: Pick<RunRef, 'status' | 'comment'>,
  buildId: string | undefined,
  than: string,
  rank: (status: string) => number,
): boolean {
  return buildId !== undefined && buildOf(run.comment) === buildId && rank(run.status) > rank(than);
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
    if (run && worseOfBuild(run, buildId, String(item.status), (s) => rank(s, item))) kept.add(item);
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
