import type { StatusMapOption } from '../../kit/config-fields';
import type { Outcome } from '../../shared/model';
import type { ZephyrStatus } from './client';

/** interface.md status table. `timedOut` follows `failed` unless mapped itself. */
export const DEFAULT_ZEPHYR_STATUS: Record<Outcome, number> = {
  passed: 1,
  flaky: 1,
  failed: 2,
  timedOut: 2,
  skipped: -1,
  interrupted: 4,
};

/** FAIL > BLOCKED > WIP > PASS > UNEXECUTED. */
const RANK: Record<number, number> = { 2: 5, 4: 4, 3: 3, 1: 2, [-1]: 1 };

export const UNEXECUTED = -1;

/** Built-in statuses, the same on every tenant (used before the tenant's list is loaded, e.g. dry run). */
export const BUILT_IN_STATUSES: ReadonlyArray<{ id: number; name: string }> = [
  { id: -1, name: 'UNEXECUTED' },
  { id: 1, name: 'PASS' },
  { id: 2, name: 'FAIL' },
  { id: 3, name: 'WIP' },
  { id: 4, name: 'BLOCKED' },
];

/** A status id's name: the tenant's statuses first, then the built-in ones (no list copied per lookup). */
export function statusName(tenant: ReadonlyArray<{ id: number; name: string }>, status: number | string): string {
  const id = Number(status);
  return (tenant.find((s) => s.id === id) ?? BUILT_IN_STATUSES.find((s) => s.id === id))?.name ?? String(status);
}

/**
 * Resolves the user's statusMap (ids or names, tenant custom statuses included) against the
 * statuses the service returned. An unknown entry is a warning here (the default row stands in for it);
 * the publisher refuses to send with one (a result must not go out as a status nobody chose).
 * `offline` (dry run, built-in statuses only): an unknown entry may be a tenant status, so it is
 * reported as such rather than as an error.
 */
export function resolveStatusMap(
  map: StatusMapOption,
  statuses: readonly ZephyrStatus[],
  offline = false,
): { byOutcome: Record<Outcome, number>; warnings: string[] } {
  const warnings: string[] = [];
  const byOutcome = { ...DEFAULT_ZEPHYR_STATUS };
  const follows = map.failed !== undefined && map.timedOut === undefined;
  if (follows) map = { ...map, timedOut: map.failed };
  const names = statuses.map((s) => s.name).join(', ');
  for (const [outcome, ref] of Object.entries(map) as Array<[Outcome, number | string]>) {
    const byId = statuses.find((s) => s.id === Number(ref) && String(ref).trim() !== '');
    const byName = statuses.find((s) => s.name.trim().toLowerCase() === String(ref).trim().toLowerCase());
    const found = typeof ref === 'number' ? byId : (byName ?? byId);
    if (found) byOutcome[outcome] = found.id;
    // A `timedOut` that follows `failed` is not an option the user set: `failed`'s line says the one mistake.
    else if (outcome === 'timedOut' && follows) continue;
    else if (offline)
      warnings.push(
        `zephyr.statusMap.${outcome}: ${JSON.stringify(ref)} is not a built-in status; a dry run cannot ask the tenant, so it shows ${DEFAULT_ZEPHYR_STATUS[outcome]}`,
      );
    else
      warnings.push(
        `zephyr.statusMap.${outcome}: Zephyr has no status ${JSON.stringify(ref)} (known: ${names}); nothing is sent to Zephyr, its results are kept for replay`,
      );
  }
  return { byOutcome, warnings };
}

/** Worst-wins rank of a status id; custom statuses rank like the default status of their outcome. */
export function zephyrRank(statusId: number, outcome: Outcome): number {
  return RANK[statusId] ?? RANK[DEFAULT_ZEPHYR_STATUS[outcome]] ?? 0;
}
