import type { JournalTargetMeta } from '../kit/target';
import { keysOf, type TargetSummary, type TestRecord } from '../shared/model';
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
    printer.info(`dry run: ${s.definition.label} ${item.key} -> ${name}${item.comment ? ' (with comment)' : ''}`);
  }
  return {
    target: s.id,
    label: s.definition.label,
    enabled: true,
    dryRun: true,
    container: where && {
      kind: s.definition.containerKind,
      id: where.containerId,
      name: where.containerId ? undefined : where.containerName,
    },
    published: plan.length,
    countsByStatus: counts,
    unmapped: records.filter((r) => keysOf(r, s.id).length === 0).length,
    notRun,
    errors: [],
    unsent: 0,
    calls: 0,
    durationMs: 0,
  };
}
