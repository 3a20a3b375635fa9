/**
 * In-memory model of one CucumberStudio (Hiptest) account: the seeded fixtures (`fixtures.ts`) plus everything
 * the API creates (test runs, test snapshots, test results).
 *
 * Generation of a run's tests is time-based: a snapshot exists (is visible) from `readyAt` on, and the run is
 * "generating" while the clock is before `generatingUntil`. Nothing is scheduled; every read compares with the
 * clock, so the state is deterministic for a given clock.
 */
import { CucumberStudioFixtures, type FixtureConfig } from './fixtures';
import { normaliseStatus, STATUSES, type Dataset, type Scenario, type Status, type TestResult, type TestRun, type TestSnapshot } from './model';

export * from './model';

export interface StoreConfig extends FixtureConfig {
  generationDelayMs: number;
  /** Monotonic clock (ms) for generation state. */
  now: () => number;
}

export class CucumberStudioStore extends CucumberStudioFixtures {
  readonly runs = new Map<number, TestRun>();
  readonly snapshots = new Map<number, TestSnapshot>();
  readonly results = new Map<number, TestResult>();
  private seq = { run: 0, snapshot: 0, scenarioSnapshot: 0, folderSnapshot: 0, result: 0 };

  constructor(override readonly config: StoreConfig) {
    super(config);
  }

  now(): number {
    return this.config.now();
  }

  reset(): void {
    this.runs.clear();
    this.snapshots.clear();
    this.results.clear();
    this.seq = { run: 0, snapshot: 0, scenarioSnapshot: 0, folderSnapshot: 0, result: 0 };
  }

  // ---- test runs ----

  isGenerating(run: TestRun, now = this.now()): boolean {
    return now < run.generatingUntil;
  }

  isReady(snapshot: TestSnapshot, now = this.now()): boolean {
    return now >= snapshot.readyAt;
  }

  /** `{}` while the run's tests are generated; else all seven counters, each test under its latest result. */
  statuses(run: TestRun, now = this.now()): Record<string, number> {
    if (this.isGenerating(run, now)) return {};
    const counts: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    for (const s of run.snapshots) if (this.isReady(s, now)) counts[this.latestStatus(s)]++;
    return counts;
  }

  latestResult(snapshot: TestSnapshot): TestResult | undefined {
    return snapshot.results[snapshot.results.length - 1];
  }

  latestStatus(snapshot: TestSnapshot): Status {
    return this.latestResult(snapshot)?.status ?? 'undefined';
  }

  createRun(input: { name: string; description: string; external: boolean; scenarioIds: number[] }): TestRun {
    const wall = Date.now();
    const now = this.now();
    const run: TestRun = {
      id: ++this.seq.run,
      projectId: this.config.projectId,
      name: input.name,
      description: input.description,
      archived: false,
      external: input.external,
      createdAt: wall,
      updatedAt: wall,
      generatingUntil: now + this.config.generationDelayMs,
      scenarioIds: [],
      folderSnapshotId: 4 * this.base + ++this.seq.folderSnapshot,
      snapshots: [],
    };
    this.runs.set(run.id, run);
    this.addScenarios(run, input.scenarioIds);
    run.updatedAt = run.createdAt;
    return run;
  }

  /**
   * Adds tests for the scenarios not yet in the run (no duplicates). When anything was added the run
   * re-enters the generating state. Returns the scenario ids actually added.
   */
  addScenarios(run: TestRun, scenarioIds: number[]): number[] {
    const present = new Set(run.scenarioIds);
    const added: number[] = [];
    const now = this.now();
    const readyAt = now + this.config.generationDelayMs;
    for (const sid of scenarioIds) {
      if (present.has(sid)) continue;
      const scenario = this.scenario(sid);
      if (!scenario) continue;
      present.add(sid);
      added.push(sid);
      run.scenarioIds.push(sid);
      const scenarioSnapshotId = 2 * this.base + ++this.seq.scenarioSnapshot;
      const rows: Array<Dataset | null> = scenario.datasets.length > 0 ? scenario.datasets : [null];
      for (const dataset of rows) {
        const snapshot: TestSnapshot = {
          id: 3 * this.base + ++this.seq.snapshot,
          runId: run.id,
          scenarioId: sid,
          scenarioSnapshotId,
          folderSnapshotId: run.folderSnapshotId,
          dataset,
          name: dataset ? `${scenario.name} (${dataset.name})` : scenario.name,
          createdAt: Date.now(),
          readyAt,
          results: [],
        };
        run.snapshots.push(snapshot);
        this.snapshots.set(snapshot.id, snapshot);
      }
    }
    if (added.length > 0) {
      run.generatingUntil = Math.max(run.generatingUntil, readyAt);
      run.updatedAt = Date.now();
    }
    return added;
  }

  /** Archives the runs created before `limit` (wall-clock ms); returns the ids that changed state. */
  archiveOlderThan(limit: number): number[] {
    const changed: number[] = [];
    for (const run of this.runs.values()) {
      if (!run.archived && run.createdAt < limit) {
        run.archived = true;
        run.updatedAt = Date.now();
        changed.push(run.id);
      }
    }
    return changed;
  }

  // ---- test results ----

  /** Step statuses, sanitised as in spec §3.13 (no action words here: one test step per scenario step). */
  sanitiseStepStatuses(snapshot: TestSnapshot, value: unknown): Status[] {
    if (!Array.isArray(value)) return [];
    const scenario = this.scenario(snapshot.scenarioId) as Scenario;
    const total = this.steps(scenario, snapshot.dataset).length;
    return value.slice(0, total).map(normaliseStatus);
  }

  addResult(snapshot: TestSnapshot, input: { status: unknown; statusAuthor: string; description: string | null; stepStatuses: unknown }): TestResult {
    const wall = Date.now();
    const result: TestResult = {
      id: 5 * this.base + ++this.seq.result,
      snapshotId: snapshot.id,
      status: normaliseStatus(input.status),
      statusAuthor: input.statusAuthor,
      description: input.description,
      stepStatuses: this.sanitiseStepStatuses(snapshot, input.stepStatuses),
      createdAt: wall,
      updatedAt: wall,
    };
    snapshot.results.push(result);
    this.results.set(result.id, result);
    const run = this.runs.get(snapshot.runId);
    if (run) run.updatedAt = wall;
    return result;
  }
}
