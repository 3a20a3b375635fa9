/** Plain-JSON view of the CucumberStudio stand-in's state (`snapshot()`), for tests, the demo and the bench. */
import type { CucumberStudioStore, Scenario } from './store';

export interface CucumberStudioStateView {
  projects: Array<{ id: number; name: string }>;
  /** Results stored with no build (neither a build nor an environment sent): this project never posts one. */
  resultsWithoutBuild: number;
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
    /** Execution environments (`Default` first) with their builds, oldest first. */
    environments: Array<{
      id: number;
      name: string;
      builds: Array<{ id: number; name: string; running: boolean; closedAt: string | null; resultIds: number[] }>;
    }>;
    /** Tests that exist now (not those still being generated). */
    snapshots: Array<{
      id: number;
      scenarioId: number;
      datasetId: number | null;
      datasetName: string | null;
      name: string;
      /** Steps of the test (`definition-json.steps`). */
      stepCount: number;
      results: Array<{
        id: number;
        /** The build it was posted into; null when none (see `resultsWithoutBuild`). */
        buildId: number | null;
        status: string;
        statusAuthor: string;
        description: string | null;
        createdAt: string;
        /** `step-statuses` as the service shows them. */
        stepStatuses: string[];
        /** `step-statuses` exactly as the client sent them (absent when not sent). */
        stepStatusesSent?: unknown;
        /** `test-level` (one per step, extra dropped), `scenario-level` (shorter: expanded, rest undefined) or `none`. */
        stepReading: string;
        /** Sent values that are not statuses (shown as `undefined`). */
        unknownStepStatuses: unknown[];
        /** Files uploaded to the result (bytes: `module.attachmentBytes(id)`). */
        attachments: Array<{ id: number; fileName: string; size: number; contentType: string; sha256: string; bytesSource: string }>;
      }>;
    }>;
  }>;
}

export function stateView(store: CucumberStudioStore): CucumberStudioStateView {
  const now = store.now();
  return {
    projects: [{ id: store.config.projectId, name: store.config.projectName }],
    resultsWithoutBuild: store.builds.noBuildResults,
    testRuns: [...store.runs.values()].map((run) => ({
      id: run.id,
      name: run.name,
      description: run.description,
      descriptionHistory: run.descriptionHistory.slice(),
      archived: run.archived,
      generating: store.isGenerating(run, now),
      scenarioIds: run.scenarioIds.slice(),
      statuses: store.statuses(run, now),
      environments: store.builds.environmentsOf(run).map((e) => ({
        id: e.id,
        name: e.name,
        builds: store.builds.buildsOf(e).map((b) => ({
          id: b.id,
          name: b.name,
          running: b.closedAt === null,
          closedAt: b.closedAt === null ? null : new Date(b.closedAt).toISOString(),
          resultIds: b.resultIds.slice(),
        })),
      })),
      snapshots: run.snapshots
        .filter((s) => store.isReady(s, now))
        .map((s) => ({
          id: s.id,
          scenarioId: s.scenarioId,
          datasetId: s.dataset?.id ?? null,
          datasetName: s.dataset?.name ?? null,
          name: s.name,
          stepCount: store.steps(store.scenario(s.scenarioId) as Scenario, s.dataset).length,
          results: s.results.map((r) => ({
            id: r.id,
            buildId: store.builds.buildOf(r)?.id ?? null,
            status: r.status,
            statusAuthor: r.statusAuthor,
            description: r.description,
            createdAt: new Date(r.createdAt).toISOString(),
            stepStatuses: r.stepStatuses.slice(),
            ...(r.stepStatusesSent === undefined ? {} : { stepStatusesSent: structuredClone(r.stepStatusesSent) }),
            stepReading: r.stepReading,
            unknownStepStatuses: structuredClone(r.unknownStepStatuses),
            attachments: r.attachments.map(({ id, fileName, size, contentType, sha256, bytesSource }) => ({
              id,
              fileName,
              size,
              contentType,
              sha256,
              bytesSource,
            })),
          })),
        })),
    })),
  };
}
