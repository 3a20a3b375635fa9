import type { PublishedTest } from './push-client';

/** A test of the run as the JSON:API lists it: its id and what tells it apart by name. */
export interface NamedTest {
  id: string;
  scenarioName: string;
  datasetName?: string;
}

export interface UidJoin {
  /** JSON:API test id -> its uid (only tests told apart without doubt). */
  uids: Map<string, string>;
  /** Tests whose name (scenario + dataset) is shared on either side: they go by the per-result path. */
  ambiguous: Set<string>;
}

const nameOf = (t: { scenarioName: string; datasetName?: string }) => JSON.stringify([t.scenarioName, t.datasetName ?? null]);

function countBy<T>(list: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const by = new Map<string, T[]>();
  for (const t of list) by.set(key(t), [...(by.get(key(t)) ?? []), t]);
  return by;
}

/**
 * Joins the publication's uids with the JSON:API test ids (spec §5.2: the export has no numeric id, so only names
 * join them: scenario name + dataset name). Scenario names need not be unique: a name held by two tests on either
 * side is never guessed at. A test absent from the export (generated since) is neither joined nor ambiguous:
 * the caller reads the export again when tests were added.
 */
export function joinUids(published: readonly PublishedTest[], tests: readonly NamedTest[]): UidJoin {
  const byName = countBy(published, nameOf);
  const testsByName = countBy(tests, nameOf);
  const uids = new Map<string, string>();
  const ambiguous = new Set<string>();
  for (const [name, same] of testsByName) {
    const there = byName.get(name) ?? [];
    if (same.length === 1 && there.length === 1) uids.set(same[0].id, there[0].uid);
    else if (same.length > 1 || there.length > 1) for (const t of same) ambiguous.add(t.id);
  }
  return { uids, ambiguous };
}
