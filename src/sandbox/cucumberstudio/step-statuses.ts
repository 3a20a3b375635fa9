/**
 * `step-statuses` of a result as the service stores and shows them (spec §3.13, confirmed by field evidence).
 * T = the test's steps after action-word expansion, C = its top-level steps, top-level step i expands to n_i:
 * 1. not an array → `[]`; each value outside the 7 statuses → `undefined` (never an error);
 * 2. length ≥ T → read per test step: the first T are kept, extra ones dropped;
 * 3. length < T → read per scenario step: entry i (i < C) is repeated n_i times, entries beyond C dropped.
 *    Steps left without an entry are implicitly `undefined` and are not shown (the array is not padded).
 * Without action words C = T, so a short array is shown as sent: a client must send one status per step.
 */
import { isStatus, normaliseStatus, type Status } from './model';

export type StepReading = 'none' | 'test-level' | 'scenario-level';

export interface MappedStepStatuses {
  /** What the service shows in `step-statuses`. */
  shown: Status[];
  reading: StepReading;
  /** Values sent that are not one of the 7 statuses (stored as `undefined`). */
  unknown: unknown[];
}

export function mapStepStatuses(plan: readonly number[], value: unknown): MappedStepStatuses {
  if (!Array.isArray(value) || value.length === 0) return { shown: [], reading: 'none', unknown: [] };
  const unknown = value.filter((v) => !isStatus(v));
  const statuses = value.map(normaliseStatus);
  const total = plan.reduce((a, n) => a + n, 0);
  if (statuses.length >= total) return { shown: statuses.slice(0, total), reading: 'test-level', unknown };
  const shown = statuses.slice(0, plan.length).flatMap((s, i) => new Array<Status>(plan[i]).fill(s));
  return { shown, reading: 'scenario-level', unknown };
}
