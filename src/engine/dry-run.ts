import type { JournalTargetMeta } from '../kit/target';
import { emptySummary, keyLabel, keysOf, unplaced, type TargetSummary, type TestRecord } from '../shared/model';
import type { Printer } from '../shared/output';
import type { TargetSession } from './session';

/**
 * A dry run of one target: maps and prints, with statuses resolved offline, so nothing is sent. The
 * summary names where the results would go, as configured (a name is found or created, an id used).
 */
export async function dryRun(
  s: TargetSession,
  where: JournalTargetMeta | undefined,
  records: readonly TestRecord[],
  notRun: number,
  printer: Printer,
): Promise<TargetSummary> {
  const statuses = await s.target.resolveStatuses('offline');
  for (const w of statuses.warnings) printer.error(w);
  const plan = s.target.plan(records, statuses);
  const counts: Record<string, number> = {};
  for (const item of plan) {
    const name = statuses.name(item.status);
    counts[name] = (counts[name] ?? 0) + 1;
    printer.info(`dry run: ${s.definition.label} ${keyLabel(item.key)} -> ${name}${item.comment ? ' (with comment)' : ''}`);
  }
  // Inside the container (e.g. CucumberStudio's build of the CI build).
  if (plan.length)
    for (const place of s.target.wouldPublishInto?.(plan) ?? []) printer.info(`dry run: ${s.definition.label} would publish into ${place}`);
  const unmapped = records.filter((r) => keysOf(r, s.id).length === 0).length;
  const { containerId: id, containerName } = where ?? {};
  // Split mode with a container per project (Xray): none has the configured name; the lines above name each.
  const perPlace = s.definition.containerPerPlace && plan.some((i) => unplaced(i.key).place !== undefined);
  return {
    ...emptySummary(s.id, s.definition.label, unmapped, notRun),
    dryRun: true,
    container: where && !perPlace ? { kind: s.definition.containerKind, id, name: id ? undefined : containerName } : undefined,
    published: plan.length,
    countsByStatus: counts,
  };
}
