import type { ZephyrClient, ZephyrCycle } from './client';
import type { BuildMarks } from './build-marks';

const projectsOf = (text: unknown): string[] =>
  String(text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/**
 * What the cycle says of the CI build, read where this process found or created it (no call of its own).
 * A cycle this process created is this build's. A reused one whose `build` names another build held an earlier
 * build's results: this process says so on the cycle (its `build`, and `environment` as this process's projects),
 * and a status with no mark in it is taken as stale (see BuildMarks.stale). A reused one of this build gets the
 * projects of this process added to its `environment` when they are missing. One cycle update at most, only then;
 * a local run (a build of its own) changes nothing and pays nothing.
 * Two processes of a new build beginning at once both update: the later one's projects are what `environment`
 * shows (a read before write would not close that window either; a later process of the build adds its own).
 */
export async function adoptCycle(
  client: ZephyrClient,
  where: { projectId: number; versionId: number },
  cycle: ZephyrCycle,
  reused: boolean,
  marks: BuildMarks,
  environment: string | undefined,
): Promise<void> {
  if (!marks.shared) return;
  if (!reused) return void (marks.earlierBuild = false);
  marks.earlierBuild = String(cycle.build ?? '').trim() !== marks.build;
  const shown = marks.earlierBuild ? [] : projectsOf(cycle.environment);
  const ours = projectsOf(environment).filter((p) => !shown.includes(p));
  if (!marks.earlierBuild && !ours.length) return;
  await client.updateCycle(cycle, where.projectId, where.versionId, { build: marks.build, environment: [...shown, ...ours].join(', ') });
}
