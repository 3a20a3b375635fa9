import { aggregate, defaultComment, ERROR_TEXT_LIMIT } from '../../shared/mapping';
import { keysOf, unplaced, type PlanItem, type TestRecord, type VerifyReport } from '../../shared/model';
import { ContainerState } from '../../kit/container-state';
import type { RequestLane } from '../../kit/lane';
import { byPlace, type PlaceGroup } from '../../kit/places';
import {
  type BeginOptions,
  type BeginResult,
  type CheckLine,
  type ContainerInfo,
  type PublishResult,
  type StatusTable,
  type Target,
  type UploadFile,
} from '../../kit/target';
import { withHint } from '../../http/errors';
import type { CucumberStudioConfig } from './config';
import { refusedProject } from './errors';
import { asArray, type CucumberStudioClient } from './client';
import { listWhenServed, TestIndex, waitForTests, type ReadyOptions } from './linkage';
import { listedTests, type ListedTest } from './read-back';
import { RunLifecycle } from './run-lifecycle';
import { ResultWriter, type ResultInput } from './results';
import { toSnapshot } from './snapshots';
import { EnvironmentBuilds, environmentFor } from './build-place';
import { checkEnvironments } from './end-check';
import { checkSettings } from './check';
import type { PushClient } from './push-client';
import { batchingFor, carriesFailureText, PushWriter } from './push-writer';
import { csRank, resolveCsStatusMap, type CsStatus } from './statuses';

export { STATUS_AUTHOR } from './results';

export interface CsTargetOptions {
  /** Polling of the test list (tests and benchmarks shorten it); the timeout defaults to snapshotTimeoutMs. */
  wait?: Partial<ReadyOptions>;
  /** Replay: check each test's last result before posting, in case an earlier run sent it but died before journaling. */
  replay?: boolean;
  /** When this publication began (see TargetDeps.since): an older result is never taken for ours. */
  since?: number;
  /** Description of a run this process creates (CI run link, branch, commit). */
  description?: string;
  /** The CI build this publish belongs to (RunInfo.buildId): the name of the build every result goes into. */
  buildName?: string;
  /** The token routes, when the project secret token is set: results go by bulk push. */
  push?: PushClient;
}

/**
 * Find or create the run with the mapped scenario ids (RunLifecycle), wait until its tests exist and
 * know which scenario each belongs to (waitForTests, TestIndex), add the scenarios a reused run lacks,
 * then post one result per test.
 */
export class CucumberStudioTarget implements Target {
  readonly id = 'cucumberstudio';
  readonly batching: Target['batching'];
  private readonly pushWriter?: PushWriter;
  private readonly byOutcome: Record<TestRecord['outcome'], CsStatus>;
  private readonly run = new ContainerState('CucumberStudio test run');
  private readonly lifecycle: RunLifecycle;
  private readonly index: TestIndex;
  /** Scenario id -> its tests in the run, once settled. */
  private readonly bySnapshot = new Map<number, string[]>();
  /** Engine key (placed in split mode) -> the tests its result went to. */
  private readonly posted = new Map<string, string[]>();
  private readonly results: ResultWriter;
  /** The CI build's build per execution environment (merge mode: `Default` only; split mode: one per project). */
  private readonly builds: EnvironmentBuilds;
  /** Why awaited scenarios still had no tests when the wait ended (the timeout), for their items. */
  private unready?: string;

  constructor(
    private readonly cfg: CucumberStudioConfig,
    private readonly client: CucumberStudioClient,
    private readonly lane: RequestLane,
    private readonly o: CsTargetOptions = {},
  ) {
    this.byOutcome = resolveCsStatusMap(cfg.statusMap);
    this.batching = batchingFor(!!o.push);
    if (o.push) this.pushWriter = new PushWriter(o.push, client, lane, !!o.replay, o.since);
    this.lifecycle = new RunLifecycle(client, lane, o.description ?? 'Published by playwright-tms-reporter');
    this.results = new ResultWriter(client, lane, !!o.replay, o.since);
    this.builds = new EnvironmentBuilds(client, lane, o.buildName ?? `local ${process.pid}`);
    this.index = new TestIndex({
      loadNames: async () =>
        new Map(asArray((await client.listScenarios()).data).map((r) => [Number(r.id), String(r.attributes?.name ?? '')])),
      lookup: async (testId) => {
        const doc = await client.getSnapshot(Number(this.run.require().id), testId, 'scenario');
        const data = asArray(doc.data)[0]?.relationships?.scenario?.data;
        return data && !Array.isArray(data) ? Number(data.id) : undefined;
      },
    });
  }

  /** The service's status vocabulary is fixed: no call needed, online or not. */
  async resolveStatuses(): Promise<StatusTable> {
    return { byOutcome: this.byOutcome, warnings: [], name: String };
  }

  async begin({ knownKeys, followerWaitMs }: BeginOptions): Promise<BeginResult> {
    await this.client.getProject().catch(refusedProject); // credentials + project id
    // No scenario list here: mapped ids are sent as they are, and checked one by one only if refused.
    // In split mode a key carries its project (`placedKey`): the scenario id is the key without it.
    const known = [...new Set(knownKeys.map((k) => Number(unplaced(k).key)))];
    const runId = this.cfg.testRunId;
    if (runId !== undefined) {
      const run = asArray(
        (await withHint(this.client.getRun(runId), `CUCUMBERSTUDIO_TEST_RUN_ID (cucumberstudio.testRunId) = ${runId}`)).data,
      )[0];
      // The service takes results into an archived run, but nobody looks there: said, not refused.
      const warning = run?.attributes?.archived
        ? `test run ${runId} is archived; its results go there all the same (CUCUMBERSTUDIO_TEST_RUN_ID, cucumberstudio.testRunId)`
        : undefined;
      this.run.set({ id: String(runId), name: String(run?.attributes?.name ?? runId), reused: true, warning });
    } else {
      this.run.set(await this.lifecycle.findOrCreate(this.cfg.testRunName, known, followerWaitMs));
    }
    // Wait for the generated tests while Playwright runs; publish() repeats what is still missing.
    this.run.prepareInBackground(() => this.prepare(known));
    return this.run.begun();
  }

  plan(records: readonly TestRecord[], statuses: StatusTable): PlanItem[] {
    return aggregate(records, (r) => keysOf(r, this.id), {
      statusFor: (o) => String(statuses.byOutcome[o]),
      rank: (s) => csRank(s),
      comment: (item) => defaultComment(item, ERROR_TEXT_LIMIT),
    });
  }

  async publish(items: readonly PlanItem[], onDone?: (items: readonly PlanItem[]) => void): Promise<PublishResult> {
    const runId = Number(this.run.require().id);
    await this.run.preparation();
    await this.prepare(items.map((i) => Number(unplaced(i.key).key)));
    const result: PublishResult = { done: [], failed: [] };
    await Promise.all(byPlace(items).map((group) => this.publishInto(runId, group, result, onDone)));
    return result;
  }

  /** One environment's items (merge mode: every item, `Default`) into the CI build's build there. */
  private async publishInto(
    runId: number,
    group: PlaceGroup,
    result: PublishResult,
    onDone?: (items: readonly PlanItem[]) => void,
  ): Promise<void> {
    const engineItem = (item: PlanItem) => group.original.get(item)!;
    // Never posted with no build: the items wait (outbox, replay) until the build can be found or opened.
    const buildId = await this.builds.placeOrWhy(runId, environmentFor(group.place));
    if (typeof buildId !== 'string') {
      for (const item of group.items) result.failed.push({ item: engineItem(item), reason: buildId.why });
      return;
    }
    // The bulk push (what has a uid and no failure text) beside the per-result posts of the rest; what the push did
    // not import goes by the per-result path after it. A test pushed, then corrected to a failure (a serial group's
    // retry), gets a post: the build's latest, as the per-result path does when the steps changed (an edit keeps them).
    const pushable = (item: PlanItem) =>
      this.lifecycle.absent.has(Number(item.key)) || carriesFailureText(item) ? [] : (this.bySnapshot.get(Number(item.key)) ?? []);
    const pushing = this.pushWriter
      ?.pushItems(runId, buildId, environmentFor(group.place), group.items, pushable, this.results.stepCounts)
      .catch((error: Error) => error);
    await Promise.all(
      group.items.map(async (item) => {
        const scenarioId = Number(item.key);
        const targets = this.bySnapshot.get(scenarioId);
        const pushed = pushable(item).length ? await pushing : undefined;
        if (pushed instanceof Error) return result.failed.push({ item: engineItem(item), reason: pushed.message });
        const unsettled = pushed?.unsettled;
        if (unsettled && pushable(item).some((t) => unsettled.tests.has(t)))
          return result.failed.push({ item: engineItem(item), reason: unsettled.reason });
        if (this.lifecycle.absent.has(scenarioId))
          return result.failed.push({
            item: engineItem(item),
            reason: `scenario ${scenarioId} does not exist in project ${this.cfg.projectId}`,
            refused: true,
          });
        if (!targets?.length)
          return result.failed.push({
            item: engineItem(item),
            reason: `scenario ${scenarioId} has no test in test run ${runId}${this.unready ? ` yet: ${this.unready}` : ''}`,
          });
        try {
          const input = { status: String(item.status), description: item.comment, steps: item.steps, key: String(item.key) };
          const rest = targets.filter((sid) => !pushed?.landed.get(item)?.has(sid));
          // Every test's post settles before the item is called failed: one still under way (a 429's wait) would
          // otherwise post again beside the item's next send (a second result on that test).
          const posts = await Promise.allSettled(rest.map((sid) => this.results.post(runId, sid, input, buildId)));
          const failed = posts.find((p): p is PromiseRejectedResult => p.status === 'rejected');
          if (failed) throw failed.reason;
          this.posted.set(engineItem(item).key, targets);
          result.done.push(engineItem(item));
          onDone?.([engineItem(item)]);
        } catch (error) {
          result.failed.push({ item: engineItem(item), reason: (error as Error).message });
        }
      }),
    );
  }

  /** Files go to the result of the item's environment (its project's, in split mode). */
  async attach(item: PlanItem, file: UploadFile, { check }: { check: boolean }): Promise<'uploaded' | 'present'> {
    const runId = Number(this.run.require().id);
    const { key, place } = unplaced(item.key);
    if (!this.bySnapshot.has(Number(key))) await this.prepare([Number(key)]);
    const tests = this.posted.get(item.key) ?? this.bySnapshot.get(Number(key)) ?? [];
    if (!tests.length) throw new Error(`scenario ${key} has no test in test run ${runId}`);
    const { buildId } = await this.builds.place(runId, environmentFor(place));
    return this.results.attach(runId, tests, file, check, buildId);
  }

  /** The dry run's lines: the environment and build each project's results would go to. */
  wouldPublishInto(items: readonly PlanItem[]): string[] {
    const how = this.pushWriter ? ', by bulk push (project secret token)' : '';
    return byPlace(items).map((group) => this.builds.describe(environmentFor(group.place)) + how);
  }

  /** The run in the web app (same site as the API). */
  link(): string | undefined {
    const run = this.run.peek();
    return run ? `${this.cfg.baseUrl}/projects/${this.cfg.projectId}/test-runs/${run.id}` : undefined;
  }

  /**
   * The end's fresh look: one listing of the run (rows the service generated after their scenario's result went
   * out get it now), then per environment used (checkEnvironments) worst wins across the CI build's processes
   * (one list of the environment's builds, one read of the build, one post per corrected test), and the build
   * as read, corrected, is compared with what was sent (never with what was posted: a row nobody posted to must show).
   */
  async verify(sent: readonly PlanItem[]): Promise<VerifyReport> {
    const runId = Number(this.run.require().id);
    const wanted = new Set(sent.map((i) => Number(unplaced(i.key).key)));
    const testsOf = (id: number) => this.index.testsOf(id);
    const tests = await this.freshListing(runId, wanted);
    for (const id of wanted) if (testsOf(id).length) this.bySnapshot.set(id, testsOf(id));
    return checkEnvironments({
      ...{ runId, sent, tests, testsOf, since: this.o.since, posted: this.posted, builds: this.builds, client: this.client },
      post: (testId, input, buildId) => this.results.post(runId, testId, input, buildId),
      repost: (testId, input, buildId) => this.results.repost(runId, testId, input, buildId),
    });
  }

  check(): Promise<CheckLine[]> {
    return checkSettings(this.cfg, this.client, this.lifecycle, this.byOutcome, this.o.push);
  }

  notes(): string[] {
    return [...this.results.stepNotes.lines(), ...(this.pushWriter?.problems ?? [])];
  }

  private async freshListing(runId: number, wanted: ReadonlySet<number>): Promise<ListedTest[]> {
    const doc = await listWhenServed(runId, () => this.client.listTestsOnce(runId, true), {
      timeoutMs: this.cfg.snapshotTimeoutMs,
      ...this.o.wait,
    });
    const tests = listedTests(doc);
    this.pushWriter?.saw(tests);
    for (const t of tests) if (t.stepCount !== undefined) this.results.stepCounts.set(t.id, t.stepCount);
    await this.index.update(tests, wanted);
    return tests;
  }

  /**
   * Makes sure every wanted scenario has its tests in the run and knows which tests they are: waits for
   * the run's list, adds the scenarios a reused run lacks (learned from the list), and waits again.
   */
  private async prepare(wanted: readonly number[]): Promise<void> {
    const runId = Number(this.run.require().id);
    const todo = new Set(wanted.filter((id) => !this.bySnapshot.has(id) && !this.lifecycle.absent.has(id)));
    if (!todo.size) return;
    const list = async () =>
      asArray((await this.client.listTestsOnce(runId)).data).map((r) => {
        const snapshot = toSnapshot(r);
        this.pushWriter?.saw([snapshot]);
        if (snapshot.stepCount !== undefined) this.results.stepCounts.set(snapshot.id, snapshot.stepCount);
        return snapshot;
      });
    const wait = () =>
      waitForTests(
        { runId, list, index: this.index, todo, run: this.lifecycle },
        { timeoutMs: this.cfg.snapshotTimeoutMs, ...this.o.wait },
      );
    // After an add that may have been applied: its tests are awaited; a list that settles without them means it was not.
    const stillLacking = async (ids: number[]) => {
      const awaited = new Set(ids);
      const settledWithout = new Set<number>();
      const run = {
        requested: awaited,
        absent: settledWithout,
        checkExistence: async (short: readonly number[]) => short.forEach((id) => settledWithout.add(id)),
      };
      await waitForTests({ runId, list, index: this.index, todo: awaited, run }, { timeoutMs: this.cfg.snapshotTimeoutMs, ...this.o.wait });
      return ids.filter((id) => !this.index.testsOf(id).length);
    };
    let state = await wait();
    const lacking = [...todo].filter((id) => !this.index.testsOf(id).length && !this.lifecycle.requested.has(id));
    if (lacking.length && (await this.lifecycle.add(runId, lacking, stillLacking)).length) state = await wait();
    const missing = [...todo].filter((id) => !this.index.testsOf(id).length && !this.lifecycle.absent.has(id));
    if (missing.length && this.index.fallback) {
      // Still missing by name (e.g. the scenario was renamed since the run was generated): look up every unattributed test.
      await this.index.lookUpUnattributed(new Set(missing));
    }
    for (const id of todo) if (this.index.testsOf(id).length) this.bySnapshot.set(id, this.index.testsOf(id));
    this.unready = state.ready
      ? undefined
      : `its tests were still being generated after ${Math.round(this.cfg.snapshotTimeoutMs / 1000)} s; the result stays in the outbox for \`npx playwright-tms-reporter replay\`, or raise cucumberstudio.snapshotTimeoutMs (CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS)`;
  }
}
