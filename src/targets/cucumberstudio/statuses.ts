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

/**
 * The statusMap over the default rows; `timedOut` follows `failed` unless mapped itself. Its names were checked
 * when the config was read (a name the service lacks is refused there), in any case.
 */
export function resolveCsStatusMap(map: StatusMapOption): Record<Outcome, CsStatus> {
  const given = map.failed !== undefined && map.timedOut === undefined ? { ...map, timedOut: map.failed } : map;
  const names = Object.entries(given).map(([outcome, ref]) => [outcome, String(ref).trim().toLowerCase()]);
  return { ...DEFAULT_CS_STATUS, ...(Object.fromEntries(names) as Partial<Record<Outcome, CsStatus>>) };
}
