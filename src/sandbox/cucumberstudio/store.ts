/**
 * In-memory model of one CucumberStudio (Hiptest) account: the seeded fixtures (`fixtures.ts`) plus everything
 * the API creates (test runs, test snapshots, test results).
 *
 * Generation of a run's tests is time-based: a snapshot exists (is visible) from `readyAt` on, and the run is
 * "generating" while the clock is before `generatingUntil`. Nothing is scheduled; every read compares with the
 * clock, so the state is deterministic for a given clock.
 */
import { createHash } from 'node:crypto';
import { seededRandom } from '../limits';
import { BuildBook } from './builds';
import { CucumberStudioFixtures, type FixtureConfig } from './fixtures';
import { checkSettings, type CucumberStudioSettings, type PushFaultWhen } from './settings';
import { mapStepStatuses } from './step-statuses';
import {
  normaliseStatus,
  STATUSES,
  type Attachment,
  type Dataset,
  type Scenario,
  type Status,
  type TestResult,
  type TestRun,
  type TestSnapshot,
} from './model';

export * from './model';

export interface StoreConfig extends FixtureConfig {
  /** Monotonic clock (ms) for generation state. */
  now: () => number;
}

export class CucumberStudioStore extends CucumberStudioFixtures {
  readonly runs = new Map<number, TestRun>();
  readonly snapshots = new Map<number, TestSnapshot>();
  readonly results = new Map<number, TestResult>();
  readonly attachments = new Map<number, Attachment>();
  /** Execution environments and builds of the runs, and which build each result went to. */
  readonly builds: BuildBook;
  /** Resets so far: part of every uid (`publication.ts`), so a uid never names two tests of one sandbox's life. */
  uidEpoch = 0;
  /** Faults answered by pushes since `pushFault` was last set (it applies to its first `times` pushes). */
  private pushFaultsAnswered = 0;
  private seq = { run: 0, snapshot: 0, scenarioSnapshot: 0, folderSnapshot: 0, result: 0, attachment: 0 };

  /** Drawn once per gated request in `mixed` mode; re-seeded on reset so a scenario replays the same answers. */
  private random: () => number;

  constructor(
    override readonly config: StoreConfig,
    readonly settings: CucumberStudioSettings,
  ) {
    super(config);
    this.random = seededRandom(settings.seed);
    this.builds = new BuildBook(this.base);
  }

  /** Applies a checked settings patch (throws on a bad key or value, leaving the settings unchanged). */
  configure(patch: object): void {
    const checked = checkSettings(patch);
    Object.assign(this.settings, checked);
    if (checked.seed !== undefined) this.random = seededRandom(checked.seed);
    if (checked.pushFault !== undefined) this.pushFaultsAnswered = 0;
  }

  /** Whether this push meets the `pushFault` switch, and when; counts it. Call once per push. */
  takePushFault(): PushFaultWhen | null {
    const fault = this.settings.pushFault;
    if (!fault || (fault.times !== undefined && this.pushFaultsAnswered >= fault.times)) return null;
    this.pushFaultsAnswered++;
    return fault.when;
  }

  now(): number {
    return this.config.now();
  }

  reset(): void {
    this.runs.clear();
    this.snapshots.clear();
    this.results.clear();
    this.attachments.clear();
    this.builds.reset();
    this.seq = { run: 0, snapshot: 0, scenarioSnapshot: 0, folderSnapshot: 0, result: 0, attachment: 0 };
    this.random = seededRandom(this.settings.seed);
    this.uidEpoch++;
    this.pushFaultsAnswered = 0;
  }

  // ---- test runs ----

  isGenerating(run: TestRun, now = this.now()): boolean {
    return now < run.generatingUntil;
  }

  isReady(snapshot: TestSnapshot, now = this.now()): boolean {
    return now >= snapshot.readyAt;
  }

  /**
   * Whether this request meets the documented 423 (true) or may see the tests that exist so far (false).
   * Draws from the seeded generator in `mixed` mode, so call it once per request.
   */
  answersLocked(run: TestRun): boolean {
    if (!this.isGenerating(run)) return false;
    const mode = this.settings.generationAnswer;
    return mode === '423' || (mode === 'mixed' && this.random() < 0.5);
  }

  /** How long `statuses` stays `{}` after generation or a description update (see `statusesLagMs`). */
  statusesLag(): number {
    const { statusesLagMs, generationAnswer, generationDelayMs } = this.settings;
    return statusesLagMs ?? (generationAnswer === '423' ? 0 : generationDelayMs);
  }

  /**
   * `{}` while the run's tests are generated and for `statusesLag()` after that or after a description update;
   * else all seven counters, each test under its latest result.
   */
  statuses(run: TestRun, now = this.now()): Record<string, number> {
    if (this.isGenerating(run, now)) return {};
    const lag = this.statusesLag();
    if (lag > 0 && now < Math.max(run.generatingUntil, run.descriptionPatchedAt ?? -Infinity) + lag) return {};
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
      generatingUntil: now + this.settings.generationDelayMs,
      descriptionPatchedAt: null,
      descriptionHistory: [input.description],
      scenarioIds: [],
      folderSnapshotId: 4 * this.base + ++this.seq.folderSnapshot,
      snapshots: [],
    };
    this.runs.set(run.id, run);
    this.builds.environmentsOf(run); // its `Default` environment exists from the start
    this.addScenarios(run, input.scenarioIds);
    run.updatedAt = run.createdAt;
    return run;
  }

  /** Changes the description; counts as an update for the `statuses` lag. */
  setDescription(run: TestRun, description: string): void {
    run.description = description;
    run.descriptionHistory.push(description);
    run.descriptionPatchedAt = this.now();
    run.updatedAt = Date.now();
  }

  /**
   * Adds tests for the scenarios not yet in the run (no duplicates), or with `readdScenario: 'duplicate'`
   * for scenarios already in it too (a second set of tests). When anything was added the run re-enters the
   * generating state. Returns the scenario ids actually added.
   *
   * The new tests appear one by one, evenly over the generation delay (the last one at its end), the way the
   * service builds them: with `generationAnswer: 'partial'` a list read meanwhile shows a growing prefix.
   */
  addScenarios(run: TestRun, scenarioIds: number[]): number[] {
    const present = new Set(run.scenarioIds);
    const added: number[] = [];
    const fresh: TestSnapshot[] = [];
    const now = this.now();
    const delay = this.settings.generationDelayMs;
    for (const sid of scenarioIds) {
      if (present.has(sid) && this.settings.readdScenario === 'skip') continue;
      const scenario = this.scenario(sid);
      if (!scenario) continue;
      if (!present.has(sid)) run.scenarioIds.push(sid);
      present.add(sid);
      added.push(sid);
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
          readyAt: now + delay,
          results: [],
        };
        fresh.push(snapshot);
        run.snapshots.push(snapshot);
        this.snapshots.set(snapshot.id, snapshot);
      }
    }
    fresh.forEach((snapshot, i) => (snapshot.readyAt = now + (delay * (i + 1)) / fresh.length));
    if (added.length > 0) {
      run.generatingUntil = Math.max(run.generatingUntil, now + delay);
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

  addResult(
    snapshot: TestSnapshot,
    input: { status: unknown; statusAuthor: string; description: string | null; stepStatuses: unknown },
  ): TestResult {
    const wall = Date.now() + this.settings.clockOffsetMs;
    const mapped = mapStepStatuses(this.stepPlan(this.scenario(snapshot.scenarioId) as Scenario), input.stepStatuses);
    const result: TestResult = {
      id: 5 * this.base + ++this.seq.result,
      snapshotId: snapshot.id,
      status: normaliseStatus(input.status),
      statusAuthor: input.statusAuthor,
      description: input.description,
      stepStatuses: mapped.shown,
      stepStatusesSent: input.stepStatuses === undefined ? undefined : structuredClone(input.stepStatuses),
      stepReading: mapped.reading,
      unknownStepStatuses: mapped.unknown,
      attachments: [],
      createdAt: wall,
      updatedAt: wall,
    };
    snapshot.results.push(result);
    this.results.set(result.id, result);
    const run = this.runs.get(snapshot.runId);
    if (run) run.updatedAt = wall;
    return result;
  }

  /** Stores an uploaded file on a result. */
  addAttachment(result: TestResult, file: Omit<Attachment, 'id' | 'resultId' | 'size' | 'sha256' | 'createdAt'>): Attachment {
    const attachment: Attachment = {
      ...file,
      id: 6 * this.base + ++this.seq.attachment,
      resultId: result.id,
      size: file.bytes.length,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
      createdAt: Date.now(),
    };
    result.attachments.push(attachment);
    this.attachments.set(attachment.id, attachment);
    return attachment;
  }
}
