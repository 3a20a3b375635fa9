/** Plain-JSON view of the CucumberStudio stand-in's state (`snapshot()`), for tests, the demo and the bench. */
import type { CucumberStudioStore } from './store';

export interface CucumberStudioStateView {
  projects: Array<{ id: number; name: string }>;
  testRuns: Array<{
    id: number;
    name: string;
    description: string;
    /** Every description the run had, creation first (one entry per PATCH that sent `description`). */
    descriptionHistory: string[];
    archived: boolean;
    /** True while the run's tests are generated (test list answers 423). */
    generating: boolean;
    scenarioIds: number[];
    /** `{}` while generating, else the seven counters. */
    statuses: Record<string, number>;
    /** Tests that exist now (not those still being generated). */
    snapshots: Array<{
      id: number;
      scenarioId: number;
      datasetId: number | null;
      datasetName: string | null;
      name: string;
      results: Array<{ id: number; status: string; statusAuthor: string; description: string | null; createdAt: string }>;
    }>;
  }>;
}

export function stateView(store: CucumberStudioStore): CucumberStudioStateView {
  const now = store.now();
  return {
    projects: [{ id: store.config.projectId, name: store.config.projectName }],
    testRuns: [...store.runs.values()].map((run) => ({
      id: run.id,
      name: run.name,
      description: run.description,
      descriptionHistory: run.descriptionHistory.slice(),
      archived: run.archived,
      generating: store.isGenerating(run, now),
      scenarioIds: run.scenarioIds.slice(),
      statuses: store.statuses(run, now),
      snapshots: run.snapshots
        .filter((s) => store.isReady(s, now))
        .map((s) => ({
          id: s.id,
          scenarioId: s.scenarioId,
          datasetId: s.dataset?.id ?? null,
          datasetName: s.dataset?.name ?? null,
          name: s.name,
          results: s.results.map((r) => ({
            id: r.id,
            status: r.status,
            statusAuthor: r.statusAuthor,
            description: r.description,
            createdAt: new Date(r.createdAt).toISOString(),
          })),
        })),
    })),
  };
}
