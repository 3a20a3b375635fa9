import type { JsonApiResource } from './client';

/** One test of a run ("test snapshot"), as the list gives it. */
export interface Snapshot {
  id: string;
  scenarioName: string;
  /** From `relationships.scenario.data.id` when the list carries the linkage (`include=scenario`); else absent. */
  scenarioId?: number;
  /** Steps of the test (`definition-json.steps`), when the list gives them: what step statuses are padded to. */
  stepCount?: number;
  /** The data-table row's name (`definition-json.dataset_name`); absent for a scenario without datasets. */
  datasetName?: string;
}

export function toSnapshot(r: JsonApiResource): Snapshot {
  const def = (r.attributes?.['definition-json'] ?? {}) as { scenario_name?: string; steps?: unknown; dataset_name?: unknown };
  const link = r.relationships?.scenario?.data;
  // Documented lists answer `scenario: {}`; only an identifier object counts as linkage.
  const scenarioId = link && !Array.isArray(link) && /^\d+$/.test(String(link.id)) ? Number(link.id) : undefined;
  return {
    id: String(r.id),
    scenarioName: String(def.scenario_name ?? r.attributes?.name ?? ''),
    ...(scenarioId === undefined ? {} : { scenarioId }),
    ...(Array.isArray(def.steps) ? { stepCount: def.steps.length } : {}),
    ...(typeof def.dataset_name === 'string' && def.dataset_name !== '' ? { datasetName: def.dataset_name } : {}),
  };
}

/** Scenario names of the project, from one listing (id -> name). Only the fallback needs them. */
export type ScenarioNames = ReadonlyMap<number, string>;

/**
 * Fallback attribution, for a list without linkage (older service): the list carries only the scenario's
 * name. A name that belongs to exactly one scenario of the project settles it; a shared (ambiguous) or
 * unknown name is looked up per test with `include=scenario`. Only tests whose name could be one of the
 * wanted scenarios are considered (plus `alsoLookUp`), so the cost stays at one listing plus the ambiguous ones.
 * Returns test id -> scenario id.
 */
export async function attributeByName(
  snapshots: readonly Snapshot[],
  wanted: ReadonlySet<number>,
  names: ScenarioNames,
  lookup: (snapshotId: string) => Promise<number | undefined>,
  alsoLookUp: ReadonlySet<string> = new Set(),
): Promise<Map<string, number>> {
  const wantedNames = new Set([...wanted].map((id) => names.get(id)).filter((n): n is string => n !== undefined));
  const idsByName = new Map<string, number[]>();
  for (const [id, name] of names)
    idsByName
      .set(name, idsByName.get(name) ?? [])
      .get(name)!
      .push(id);
  const byTest = new Map<string, number>();
  const ambiguous: Snapshot[] = [];
  for (const s of snapshots) {
    const ids = idsByName.get(s.scenarioName) ?? [];
    if (alsoLookUp.has(s.id)) ambiguous.push(s);
    else if (!wantedNames.has(s.scenarioName)) continue;
    else if (ids.length === 1) byTest.set(s.id, ids[0]);
    else ambiguous.push(s);
  }
  const looked = await Promise.all(ambiguous.map(async (s) => [s.id, await lookup(s.id)] as const));
  for (const [sid, id] of looked) if (id !== undefined) byTest.set(sid, id);
  return byTest;
}
