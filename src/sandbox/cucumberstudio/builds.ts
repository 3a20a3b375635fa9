/**
 * Execution environments and builds of test runs (spec §3.13–3.15 and the field evidence in
 * /work/shared/spec/README.md): result → build → execution environment → test run.
 *
 * - Every run has a `Default` environment from the start (made here on first use, which no client can tell apart).
 * - "Current build" of an environment = its most recently created build.
 * - A result remembers its build (or none). Results posted with no build are stored as production does, and
 *   counted (`noBuildResults`): this project never posts one, and its tests assert the counter is 0.
 * - Build names may repeat (`buildNames`), environment names are unique within their run (`environmentNames`).
 */
import type { CucumberStudioSettings } from './settings';
import { STATUSES, type TestResult, type TestRun, type TestSnapshot } from './model';

export const DEFAULT_ENVIRONMENT = 'Default';
/** Environment names are checked by the vendor's publisher against this length (field evidence). */
export const MAX_ENVIRONMENT_NAME = 255;

export interface ExecutionEnvironment {
  id: number;
  runId: number;
  name: string;
  createdAt: number;
  updatedAt: number;
}

export interface Build {
  id: number;
  runId: number;
  environmentId: number;
  name: string;
  createdAt: number;
  /** Null while the build runs (`is-running: true`). */
  closedAt: number | null;
  /** Results stored in the build, in arrival order. */
  resultIds: number[];
}

export class BuildBook {
  private readonly environments = new Map<number, ExecutionEnvironment[]>();
  readonly builds = new Map<number, Build>();
  private readonly buildOfResult = new Map<number, number>();
  /** Results stored with no build (neither a build nor an environment sent). */
  noBuildResults = 0;
  private seq = { environment: 0, build: 0 };

  /** `base` keeps the ids of environments and builds apart from the other id spaces of the store. */
  constructor(private readonly base: number) {}

  reset(): void {
    this.environments.clear();
    this.builds.clear();
    this.buildOfResult.clear();
    this.noBuildResults = 0;
    this.seq = { environment: 0, build: 0 };
  }

  // ---- environments ----

  /** The run's environments in creation order, `Default` first. */
  environmentsOf(run: TestRun): ExecutionEnvironment[] {
    let list = this.environments.get(run.id);
    if (!list) {
      list = [];
      this.environments.set(run.id, list);
      this.addEnvironment(run, DEFAULT_ENVIRONMENT, run.createdAt);
    }
    return list;
  }

  environment(run: TestRun, id: number): ExecutionEnvironment | undefined {
    return this.environmentsOf(run).find((e) => e.id === id);
  }

  /** An environment of the run whose name clashes with `name` under the `environmentNames` rule. */
  environmentNamed(run: TestRun, name: string, rule: CucumberStudioSettings['environmentNames'], except?: ExecutionEnvironment) {
    return this.environmentsOf(run).find((e) => e !== except && sameName(e.name, name, rule));
  }

  addEnvironment(run: TestRun, name: string, now = Date.now()): ExecutionEnvironment {
    const list = this.environmentsOf(run);
    const environment: ExecutionEnvironment = {
      id: 7 * this.base + ++this.seq.environment,
      runId: run.id,
      name,
      createdAt: now,
      updatedAt: now,
    };
    list.push(environment);
    return environment;
  }

  // ---- builds ----

  buildsOf(environment: ExecutionEnvironment): Build[] {
    return [...this.builds.values()].filter((b) => b.environmentId === environment.id);
  }

  buildsOfRun(run: TestRun): Build[] {
    return [...this.builds.values()].filter((b) => b.runId === run.id);
  }

  currentBuild(environment: ExecutionEnvironment): Build | undefined {
    return this.buildsOf(environment).at(-1);
  }

  build(run: TestRun, id: number): Build | undefined {
    const b = this.builds.get(id);
    return b && b.runId === run.id ? b : undefined;
  }

  /** A build of the environment with exactly that name besides `except`, for the `buildNames: 'unique'` rule. */
  buildNamed(environment: ExecutionEnvironment, name: string, except?: Build): Build | undefined {
    return this.buildsOf(environment).find((b) => b !== except && b.name === name);
  }

  /** A new running build; without a name it is called `Build N` (N = its rank in the environment). */
  addBuild(environment: ExecutionEnvironment, name: string | undefined): Build {
    const build: Build = {
      id: 8 * this.base + ++this.seq.build,
      runId: environment.runId,
      environmentId: environment.id,
      name: name ?? `Build ${this.buildsOf(environment).length + 1}`,
      createdAt: Date.now(),
      closedAt: null,
      resultIds: [],
    };
    this.builds.set(build.id, build);
    return build;
  }

  // ---- results ----

  /** Records where a stored result went: into `build`, or nowhere (counted). */
  attach(result: TestResult, build: Build | undefined): void {
    if (!build) {
      this.noBuildResults++;
      return;
    }
    build.resultIds.push(result.id);
    this.buildOfResult.set(result.id, build.id);
  }

  buildOf(result: TestResult): Build | undefined {
    const id = this.buildOfResult.get(result.id);
    return id === undefined ? undefined : this.builds.get(id);
  }

  /**
   * #65 — newest build first: per build, each test counted once under its latest result in that build (tests of
   * the run with no result there count as `undefined`), `platform` = the environment's name.
   */
  history(run: TestRun, results: ReadonlyMap<number, TestResult>, ready: (s: TestSnapshot) => boolean, limit: number) {
    const tests = run.snapshots.filter(ready);
    return this.buildsOfRun(run)
      .reverse()
      .slice(0, limit)
      .map((b) => {
        const latest = new Map<number, TestResult>();
        for (const id of b.resultIds) {
          const r = results.get(id);
          if (r) latest.set(r.snapshotId, r);
        }
        const values: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
        for (const t of tests) values[latest.get(t.id)?.status ?? 'undefined']++;
        const platform = this.environment(run, b.environmentId)?.name ?? DEFAULT_ENVIRONMENT;
        return { id: b.id, date: new Date(b.closedAt ?? b.createdAt).toISOString(), values, platform };
      });
  }
}

function sameName(a: string, b: string, rule: CucumberStudioSettings['environmentNames']): boolean {
  return rule === 'exact' ? a === b : a.trim().toLowerCase() === b.trim().toLowerCase();
}
