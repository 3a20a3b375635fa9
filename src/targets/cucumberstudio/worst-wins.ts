import type { PlanItem } from '../../shared/model';
import type { BuildPlace, EnvironmentBuilds } from './build-place';
import type { CucumberStudioClient, JsonApiDocument } from './client';
import type { ResultInput } from './results';
import { csRank } from './statuses';

/** One result a build holds. */
export interface HeldResult {
  id: string;
  testId: string;
  status: string;
  description: string;
  stepStatuses?: string[];
  createdAt: number;
}

/** A build's results (#94 `include=test-results`) by test, oldest first (by `created-at`, then id). */
export function heldResults(doc: JsonApiDocument): Map<string, HeldResult[]> {
  const byTest = new Map<string, HeldResult[]>();
  for (const r of doc.included ?? []) {
    if (r.type !== undefined && r.type !== 'test-results') continue;
    const a = r.attributes ?? {};
    const link = r.relationships?.['test-snapshot']?.data;
    const testId = a['test-snapshot-id'] ?? (link && !Array.isArray(link) ? link.id : undefined);
    if (testId === undefined || typeof a.status !== 'string') continue;
    const at = typeof a['created-at'] === 'string' ? Date.parse(a['created-at']) : NaN;
    const held: HeldResult = {
      id: String(r.id),
      testId: String(testId),
      status: a.status,
      description: typeof a.description === 'string' ? a.description : '',
      stepStatuses: Array.isArray(a['step-statuses']) ? a['step-statuses'].map(String) : undefined,
      createdAt: Number.isNaN(at) ? 0 : at,
    };
    byTest.set(held.testId, [...(byTest.get(held.testId) ?? []), held]);
  }
  for (const list of byTest.values()) list.sort((x, y) => x.createdAt - y.createdAt || Number(x.id) - Number(y.id));
  return byTest;
}

/**
 * What one test needs so that its latest result in the build is the worst of every process's (this one's
 * `ours` included): `'ours'` (nothing worse is held, and ours is not the latest there: our post went elsewhere,
 * or the row came after it), a held result to post again (another process's worse one), or nothing.
 * Among held results of the same rank the latest is taken (its text is the freshest).
 */
export function correction(ours: { status: string }, held: readonly HeldResult[]): 'ours' | HeldResult | undefined {
  let worst: HeldResult | undefined;
  for (const r of held) if (!worst || csRank(r.status) >= csRank(worst.status)) worst = r;
  if (!worst || csRank(ours.status) > csRank(worst.status)) return 'ours';
  return csRank(held.at(-1)!.status) < csRank(worst.status) ? worst : undefined;
}

export interface Reconciled {
  /** Test id -> its latest result in the CI build's build once corrected. */
  shown: Map<string, string>;
  /** Tests whose result was posted again. */
  corrected: number;
  problems: string[];
}

/**
 * Worst wins across every process of one CI build, at the end: one list of the environment's builds (a
 * process that opened the build at the same moment settles on the lowest id) and one read of the build with
 * its results; then, for every test of this process's keys whose latest result there is better than the worst
 * the build holds (from any process), the worst is posted again — one post per corrected test. A process that
 * ends later does the same, so whichever ends last leaves the worst on top. Only this CI build's build is read:
 * an earlier build's results never count.
 */
export async function reconcileBuild(o: {
  runId: number;
  place: BuildPlace;
  builds: EnvironmentBuilds;
  client: CucumberStudioClient;
  sent: readonly PlanItem[];
  testsOf: (scenarioId: number) => string[];
  /** Key -> tests this process's result went to (confirmed): only those get ours again (a refused row stays refused). */
  posted: ReadonlyMap<string, readonly string[]>;
  post: (testId: string, input: ResultInput & { stepStatuses?: string[] }, buildId: string) => Promise<void>;
  /**
   * Split mode: a test of a sent key with no result at all in the build gets ours (a row generated after its
   * result went out). Merge mode finds those rows by the run's listing first (fillNewRows), but there a test's
   * latest result may be another project's environment's.
   */
  fillUnheld?: boolean;
}): Promise<Reconciled> {
  const shown = new Map<string, string>();
  const problems: string[] = [];
  const buildId = await o.builds.current(o.runId, o.place);
  if (buildId === undefined) {
    const problem = `build "${o.place.buildName}" of environment "${o.place.environmentName}" in test run ${o.runId} is closed or gone: results of other processes of this CI build were not compared`;
    return { shown, corrected: 0, problems: [problem] };
  }
  const held = heldResults(await o.client.getBuildResults(o.runId, buildId));
  let corrected = 0;
  await Promise.all(
    o.sent.flatMap((item) =>
      o.testsOf(Number(item.key)).map(async (testId) => {
        const list = held.get(testId) ?? [];
        const fixed = correction({ status: String(item.status) }, list);
        const ours = o.posted.get(String(item.key))?.includes(testId) || (o.fillUnheld && !list.length);
        const fix = fixed === 'ours' && !ours ? undefined : fixed;
        const latest = list.at(-1)?.status;
        if (!fix) return latest !== undefined && shown.set(testId, latest);
        const input =
          fix === 'ours'
            ? { status: String(item.status), description: item.comment, steps: item.steps, key: String(item.key) }
            : { status: fix.status, description: fix.description, stepStatuses: fix.stepStatuses ?? [] };
        try {
          await o.post(testId, input, buildId);
          shown.set(testId, input.status);
          corrected++;
        } catch (error) {
          if (latest !== undefined) shown.set(testId, latest);
          problems.push(
            `scenario ${item.key}: test ${testId} could not be given the build's worst result (${input.status}): ${(error as Error).message}`,
          );
        }
      }),
    ),
  );
  return { shown, corrected, problems };
}
