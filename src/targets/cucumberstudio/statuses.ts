import type { StatusMapOption } from '../../kit/config-fields';
import type { Outcome } from '../../shared/model';

/** The service's one status vocabulary (results, tests, counters). */
export const CS_STATUSES = ['passed', 'failed', 'retest', 'undefined', 'blocked', 'skipped', 'wip'] as const;
export type CsStatus = (typeof CS_STATUSES)[number];

export const DEFAULT_CS_STATUS: Record<Outcome, CsStatus> = {
  passed: 'passed',
  flaky: 'passed',
  failed: 'failed',
  timedOut: 'failed',
  skipped: 'skipped',
  interrupted: 'blocked',
};

/** failed > blocked > wip > retest > passed > skipped > undefined. */
const RANK: Record<CsStatus, number> = { failed: 7, blocked: 6, wip: 5, retest: 4, passed: 3, skipped: 2, undefined: 1 };

export function csRank(status: string): number {
  return RANK[status as CsStatus] ?? 0;
}

/** statusMap values must be one of the seven names; anything else warns and keeps the default row. */
export function resolveCsStatusMap(map: StatusMapOption): { byOutcome: Record<Outcome, CsStatus>; warnings: string[] } {
  const byOutcome = { ...DEFAULT_CS_STATUS };
  const warnings: string[] = [];
  if (map.failed !== undefined && map.timedOut === undefined) map = { ...map, timedOut: map.failed };
  for (const [outcome, ref] of Object.entries(map) as Array<[Outcome, number | string]>) {
    const name = String(ref).trim().toLowerCase();
    if ((CS_STATUSES as readonly string[]).includes(name)) byOutcome[outcome] = name as CsStatus;
    else
      warnings.push(
        `cucumberstudio.statusMap.${outcome}: CucumberStudio has no status ${JSON.stringify(ref)} (use one of ${CS_STATUSES.join(', ')}); using ${DEFAULT_CS_STATUS[outcome]}`,
      );
  }
  return { byOutcome, warnings };
}
