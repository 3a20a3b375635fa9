import { byPlace } from '../../kit/places';
import type { PlanItem, VerifyReport } from '../../shared/model';
import { environmentFor, type EnvironmentBuilds } from './build-place';
import type { CucumberStudioClient } from './client';
import { fillNewRows, readBack, type ListedTest } from './read-back';
import type { ResultInput } from './results';
import { reconcileBuild } from './worst-wins';

export interface EndCheck {
  runId: number;
  /** What this process sent, keys as the engine has them (placed in split mode). */
  sent: readonly PlanItem[];
  /** The end's fresh listing of the run. */
  tests: readonly ListedTest[];
  testsOf: (scenarioId: number) => string[];
  since?: number;
  /** Engine key -> tests this process's result went to. */
  posted: Map<string, string[]>;
  builds: EnvironmentBuilds;
  client: CucumberStudioClient;
  post: (testId: string, input: ResultInput, buildId: string) => Promise<void>;
  repost: (testId: string, input: ResultInput & { stepStatuses?: string[] }, buildId: string) => Promise<void>;
}

/**
 * The end's check, per execution environment used (merge mode: `Default` only): worst wins across the CI build's
 * processes in the environment's build (one list of its builds, one read of the build), then the build as read,
 * corrected, is compared with what was sent there. Split mode gives one report for all, each line naming its
 * environment.
 */
export async function checkEnvironments(o: EndCheck): Promise<VerifyReport> {
  const groups = byPlace(o.sent);
  const reports = await Promise.all(groups.map((group) => checkEnvironment(o, group.items, group.place, group.original)));
  if (groups.length === 1 && groups[0].place === undefined) return reports[0];
  const named = (i: number) => `execution environment "${environmentFor(groups[i].place)}"`;
  const statuses = reports.flatMap((r, i) => (r.containerStatus ? [`${named(i)}: ${r.containerStatus}`] : []));
  return {
    ok: reports.every((r) => r.ok),
    details: reports.flatMap((r, i) => r.details.map((d) => `${named(i)}: ${d}`)),
    containerStatus: statuses.join('; ') || undefined,
    incomplete: reports.some((r) => r.incomplete) || undefined,
  };
}

async function checkEnvironment(
  o: EndCheck,
  sent: readonly PlanItem[],
  place: string | undefined,
  original: ReadonlyMap<PlanItem, PlanItem>,
): Promise<VerifyReport> {
  const { runId, testsOf } = o;
  const where = await o.builds.place(runId, environmentFor(place));
  const split = place !== undefined;
  // Split mode: this environment's items by the key the service knows; a test's latest result in the listing
  // may be another environment's, so neither the listing's rows nor its counts say anything about this one.
  const posted = split ? new Map(sent.map((i) => [i.key, o.posted.get(original.get(i)!.key) ?? []])) : o.posted;
  const tests = split ? o.tests.map(({ last: _last, ...test }) => test) : o.tests;
  const filled = split
    ? { problems: [] }
    : await fillNewRows({ runId, sent, tests, testsOf, since: o.since, posted, post: (id, input) => o.post(id, input, where.buildId) });
  const reconciled = await reconcileBuild({
    runId,
    place: where,
    builds: o.builds,
    client: o.client,
    sent,
    testsOf,
    posted,
    post: o.repost,
    fillUnheld: split,
  });
  const problems = [...filled.problems, ...reconciled.problems];
  return readBack({ runId, sent, tests, testsOf, problems, shown: reconciled.shown, buildName: where.buildName });
}
