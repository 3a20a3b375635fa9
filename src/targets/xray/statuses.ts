import type { StatusMapOption } from '../../kit/config-fields';
import { SettingsRefusedError, type StatusTable } from '../../kit/target';
import type { Outcome } from '../../shared/model';

/** interface.md status table. `timedOut` follows `failed` unless mapped itself. */
export const DEFAULT_XRAY_STATUS: Record<Outcome, string> = {
  passed: 'PASSED',
  flaky: 'PASSED',
  failed: 'FAILED',
  timedOut: 'FAILED',
  skipped: 'TODO',
  interrupted: 'ABORTED',
};

/** Xray Cloud's built-in run statuses (§5): what a dry run can name without asking the tenant. */
export const BUILT_IN_STATUSES = ['PASSED', 'FAILED', 'TODO', 'EXECUTING', 'ABORTED'];

/** FAILED > ABORTED > EXECUTING > PASSED > TODO. */
const RANK: Record<string, number> = { FAILED: 5, ABORTED: 4, EXECUTING: 3, PASSED: 2, TODO: 1 };

/**
 * Worst-wins rank of a status name. A custom one ranks by what it means in the status map (`byOutcome`, this run's:
 * the build's processes share a config), as bad as the worst outcome mapped to it — another process's result is
 * ranked by what it says, not by the outcome of ours (its `BROKEN` for a failure must outrank our PASSED); a name
 * the map does not give, like the default status of `outcome`.
 */
export function xrayRank(status: string, outcome: Outcome, byOutcome?: Readonly<Record<Outcome, string>>): number {
  if (RANK[status] !== undefined) return RANK[status];
  const means = (Object.keys(byOutcome ?? {}) as Outcome[]).filter((o) => byOutcome![o].toLowerCase() === status.toLowerCase());
  const ranks = means.map((o) => RANK[DEFAULT_XRAY_STATUS[o]] ?? 0);
  return ranks.length ? Math.max(...ranks) : (RANK[DEFAULT_XRAY_STATUS[outcome]] ?? 0);
}

/**
 * Every name the status map can produce, checked against the tenant's statuses (`known`; offline: the built-in
 * ones). Xray stores a name it does not have as TODO with a 200 (§5), so an unknown one is refused before
 * anything is sent (`SettingsRefusedError`: the results are kept for replay), never replaced by a default.
 * Names match case-insensitively and are sent as the tenant spells them.
 */
export function resolveXrayStatuses(map: StatusMapOption, known: readonly string[], offline: boolean): StatusTable {
  const byOutcome: Record<Outcome, string> = { ...DEFAULT_XRAY_STATUS };
  // Unless mapped itself, `timedOut` follows `failed` (its default is the same): an unknown name there is `failed`'s
  // mistake, said once on `failed`'s line, never again on a `timedOut` line the user did not write.
  const follows = map.timedOut === undefined;
  if (map.failed !== undefined && follows) map = { ...map, timedOut: map.failed };
  for (const [o, ref] of Object.entries(map) as Array<[Outcome, string | number]>) byOutcome[o] = String(ref);
  const warnings: string[] = [];
  const problems: string[] = [];
  for (const [outcome, name] of Object.entries(byOutcome) as Array<[Outcome, string]>) {
    const found = known.find((k) => k.toLowerCase() === name.toLowerCase());
    if (found) byOutcome[outcome] = found;
    else if (outcome === 'timedOut' && follows) continue;
    else if (offline)
      warnings.push(
        `xray.statusMap.${outcome}: ${JSON.stringify(name)} is not a built-in Xray status; a dry run cannot ask the tenant, so it is shown as given`,
      );
    else problems.push(`xray.statusMap.${outcome}: Xray has no status ${JSON.stringify(name)}`);
  }
  if (problems.length)
    throw new SettingsRefusedError(
      ['statusMap'],
      `${problems.join('; ')} (known: ${known.join(', ')}); Xray would store it as TODO without a word, so nothing is sent to Xray and its results are kept for replay`,
    );
  return { byOutcome, warnings, name: (s) => String(s) };
}
