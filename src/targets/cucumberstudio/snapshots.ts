import { HttpError } from '../../http/errors';
import { asArray, type CucumberStudioClient, type JsonApiResource } from './client';

export interface Snapshot {
  id: string;
  scenarioName: string;
}

export interface WaitOptions {
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  firstDelayMs?: number;
}

/**
 * The service builds a run's tests asynchronously: the list answers 423 until they exist. Waits with
 * bounded backoff; the timeout message says what happens to the results and what to change.
 */
export async function waitForSnapshots(client: CucumberStudioClient, runId: number, o: WaitOptions): Promise<Snapshot[]> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + o.timeoutMs;
  let delay = o.firstDelayMs ?? 250;
  for (;;) {
    try {
      const doc = await client.listSnapshotsOnce(runId);
      return asArray(doc.data).map(toSnapshot);
    } catch (error) {
      const retryable = error instanceof HttpError ? error.status === 423 || error.status >= 500 || error.status === 429 : true;
      if (!retryable) throw error;
      if (Date.now() + delay > deadline) {
        throw new Error(
          `test run ${runId}: its tests were still being generated after ${Math.round(o.timeoutMs / 1000)} s (423); ` +
            `the results stay in the outbox for \`npx playwright-tms-reporter replay\`, or raise cucumberstudio.snapshotTimeoutMs (CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS)`,
        );
      }
      const retryAfter = error instanceof HttpError ? Number(error.headers['retry-after']) * 1000 : NaN;
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : delay);
      delay = Math.min(5_000, Math.round(delay * 1.5));
    }
  }
}

function toSnapshot(r: JsonApiResource): Snapshot {
  const def = (r.attributes?.['definition-json'] ?? {}) as { scenario_name?: string };
  return { id: String(r.id), scenarioName: String(def.scenario_name ?? r.attributes?.name ?? '') };
}

/** Scenario names of the project, from one listing: id -> name and name -> ids. */
export class ScenarioNames {
  readonly nameById = new Map<number, string>();
  readonly idsByName = new Map<string, number[]>();

  constructor(resources: readonly JsonApiResource[]) {
    for (const r of resources) {
      const id = Number(r.id);
      const name = String(r.attributes?.name ?? '');
      this.nameById.set(id, name);
      this.idsByName.set(name, [...(this.idsByName.get(name) ?? []), id]);
    }
  }
}

/**
 * Attributes snapshots to scenario ids without guessing. The snapshot list carries only the scenario's
 * name: a name that belongs to exactly one scenario of the project settles it; a shared (ambiguous) or
 * unknown name is looked up per snapshot with `include=scenario`. Only snapshots whose name could be
 * one of the wanted scenarios are considered, so the cost stays at one listing plus the ambiguous ones.
 */
export async function attribute(
  snapshots: readonly Snapshot[],
  wanted: ReadonlySet<number>,
  names: ScenarioNames,
  lookup: (snapshotId: string) => Promise<number | undefined>,
  alsoLookUp: ReadonlySet<string> = new Set(),
): Promise<Map<number, string[]>> {
  const wantedNames = new Set([...wanted].map((id) => names.nameById.get(id)).filter((n): n is string => n !== undefined));
  const bySnapshot = new Map<string, number>();
  const ambiguous: Snapshot[] = [];
  for (const s of snapshots) {
    const ids = names.idsByName.get(s.scenarioName) ?? [];
    if (alsoLookUp.has(s.id)) ambiguous.push(s);
    else if (!wantedNames.has(s.scenarioName)) continue;
    else if (ids.length === 1) bySnapshot.set(s.id, ids[0]);
    else ambiguous.push(s);
  }
  const looked = await Promise.all(ambiguous.map(async (s) => [s.id, await lookup(s.id)] as const));
  for (const [sid, id] of looked) if (id !== undefined) bySnapshot.set(sid, id);
  const byScenario = new Map<number, string[]>();
  for (const [sid, id] of bySnapshot) if (wanted.has(id)) byScenario.set(id, [...(byScenario.get(id) ?? []), sid]);
  return byScenario;
}
