/** Views on the sandbox state for the integration tests (shapes documented in src/sandbox/<service>/index.ts). */
import type { RunningSandbox } from '../../src/sandbox';

export interface ZExecution {
  id: string;
  issueKey: string;
  statusId: number;
  comment: string;
  statusChanges: number;
  /** Each status set by PUT or bulk job, in order. */
  statusHistory: number[];
}
export interface ZCycle {
  id: string;
  name: string;
  executions: ZExecution[];
}

export function zephyrCycles(sandbox: RunningSandbox): ZCycle[] {
  return (sandbox.state().zephyr as { cycles: ZCycle[] }).cycles.filter((c) => c.id !== '-1');
}

/** issueKey -> statusId of the one cycle with that name; asserts that keys are unique in it. */
export function zephyrStatuses(sandbox: RunningSandbox, cycleName: string): Record<string, number> {
  const cycles = zephyrCycles(sandbox).filter((c) => c.name === cycleName);
  if (cycles.length !== 1) throw new Error(`expected one cycle "${cycleName}", found ${cycles.length}`);
  const out: Record<string, number> = {};
  for (const e of cycles[0].executions) {
    if (e.issueKey in out) throw new Error(`duplicate execution for ${e.issueKey}`);
    out[e.issueKey] = e.statusId;
  }
  return out;
}

export interface CsSnapshot {
  id: number;
  scenarioId: number;
  name: string;
  results: Array<{ status: string; description: string; statusAuthor: string; buildId: number | null }>;
}
export interface CsRun {
  id: number;
  name: string;
  description: string;
  scenarioIds: number[];
  statuses: Record<string, number>;
  snapshots: CsSnapshot[];
}

export function csRuns(sandbox: RunningSandbox, name?: string): CsRun[] {
  const runs = (sandbox.state().cucumberstudio as { testRuns: CsRun[] }).testRuns;
  return name === undefined ? runs : runs.filter((r) => r.name === name);
}

/** The one run with that name. */
export function csRun(sandbox: RunningSandbox, name: string): CsRun {
  const runs = csRuns(sandbox, name);
  if (runs.length !== 1) throw new Error(`expected one test run "${name}", found ${runs.length}`);
  return runs[0];
}

/** scenario id -> statuses of the LAST result of each of its tests (throws on a test with ≠ expected result count). */
export function csLastStatuses(run: CsRun, resultsPerTest = 1): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const s of run.snapshots) {
    if (!s.results.length) continue;
    if (s.results.length !== resultsPerTest)
      throw new Error(`test ${s.id} (scenario ${s.scenarioId}) has ${s.results.length} results, expected ${resultsPerTest}`);
    (out[s.scenarioId] ??= []).push(s.results[s.results.length - 1].status);
  }
  return out;
}
