import type { RequestLane } from '../../kit/lane';
import type { UploadFile } from '../../kit/target';
import { fitSteps, StepCountNotes } from '../../shared/mapping';
import type { StepStatus } from '../../shared/model';
import { asArray, type CucumberStudioClient } from './client';

export const STATUS_AUTHOR = 'playwright-tms-reporter';

/**
 * How far the service's clock may be behind ours before our own result would look older than our run (CI
 * machines without time sync drift by seconds to tens of seconds). An earlier run's result alike, posted
 * less than this before the run began, is taken for ours: its twin already stands, so that costs little.
 */
const CLOCK_LEEWAY_MS = 60_000;

/** The id a to-one linkage names (none: undefined). */
function linkedId(data: { id: string } | Array<{ id: string }> | null | undefined): string | undefined {
  return data && !Array.isArray(data) ? String(data.id) : undefined;
}

/** A result's `created-at` from before `since` (with the clock leeway): an earlier run's result. */
export function olderThan(createdAt: unknown, since: number | undefined): boolean {
  const at = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN;
  return since !== undefined && !Number.isNaN(at) && at < since - CLOCK_LEEWAY_MS;
}

export interface ResultInput {
  status: string;
  description: string;
  /** The Playwright test's top-level steps that ran (absent = none). */
  steps?: readonly StepStatus[];
  /** The scenario id (the key): named when its step count differs from the Playwright test's. */
  key?: string;
}

/**
 * One status per step of the CucumberStudio test: the service reads a shorter list as scenario-level
 * (spread over action words) and drops extra entries, so steps the Playwright test never reached are
 * sent as `skipped` and extra ones are left out — a failure among those extra ones fails the last step
 * (fitSteps). Unknown step count: sent as they are.
 */
export function stepStatusesFor(steps: readonly StepStatus[] | undefined, stepCount: number | undefined): string[] | undefined {
  if (!steps?.length) return undefined;
  if (stepCount === undefined) return [...steps];
  const fitted = fitSteps(steps, stepCount);
  return Array.from({ length: stepCount }, (_, i) => fitted[i] ?? 'skipped');
}

/**
 * Results and their files. Posting a result and uploading a file are not idempotent, so an ambiguous
 * failure (500 after being applied, reset) is followed by a look before the request is repeated; a
 * replay looks first.
 */
/**
 * A test in one build: in split mode one test of the run gets a result in each project's environment (its build),
 * and each project's result is corrected, and gets its files, on its own.
 */
const inBuild = (buildId: string, testId: string) => `${buildId} ${testId}`;

export class ResultWriter {
  /** Test in a build (`inBuild`) -> id of the result this process posted there (files attach to it). */
  private readonly resultIds = new Map<string, string>();
  /** Test id -> number of steps of its scenario (from the run's test list). */
  readonly stepCounts = new Map<string, number>();
  /**
   * Test in a build (`inBuild`) -> the result this process last posted to it there. A scenario with datasets has several tests: when
   * one of their posts fails the item is sent again, and the tests that already have it must not get it twice.
   */
  private readonly posted = new Map<string, { print: string; steps: string; runId: number; buildId: string }>();
  /** Scenarios whose test has another number of steps than the Playwright test (said once, at the end). */
  readonly stepNotes = new StepCountNotes();

  constructor(
    private readonly client: CucumberStudioClient,
    private readonly lane: RequestLane,
    private readonly replay: boolean,
    /** When this publication began: a result created before it is an earlier run's (a reused run), not ours. */
    private readonly since?: number,
  ) {}

  /** Posts into build `buildId` (the CI build's build of the test's environment: never none). */
  async post(runId: number, testId: string, input: ResultInput, buildId: string): Promise<void> {
    const count = this.stepCounts.get(testId);
    const stepStatuses = stepStatusesFor(input.steps, count);
    if (input.key !== undefined && count !== undefined && input.steps?.length)
      this.stepNotes.saw(`scenario ${input.key}`, count, input.steps);
    const print = JSON.stringify([runId, buildId, input.status, input.description, stepStatuses ?? []]);
    const steps = JSON.stringify(stepStatuses ?? []);
    const at = inBuild(buildId, testId);
    const before = this.posted.get(at);
    if (before?.print === print) return;
    // A correction of the result this process posted (a key corrected, a serial group's retry ran the test
    // again): the test gets no second result, its own is edited — unless its steps changed, which an edit cannot.
    const mine = this.resultIds.get(at);
    if (before && mine !== undefined && before.steps === steps && before.runId === runId && before.buildId === buildId) {
      await this.client.patchResult(runId, testId, mine, input);
      this.posted.set(at, { print, steps, runId, buildId });
      return;
    }
    await this.create(runId, testId, { ...input, stepStatuses }, buildId);
    this.posted.set(at, { print, steps, runId, buildId });
  }

  /**
   * Posts a result as it is (steps as the service holds them), whatever this process posted before: the end's
   * worst-wins correction, which must become the test's latest result in the build (an edit would keep the
   * steps of the result it edits).
   */
  async repost(runId: number, testId: string, input: ResultInput & { stepStatuses?: string[] }, buildId: string): Promise<void> {
    this.posted.delete(inBuild(buildId, testId));
    // Without the steps as held: this process's own result (its steps fitted to the test, as `post` does).
    if (input.stepStatuses === undefined) return this.post(runId, testId, input, buildId);
    await this.create(runId, testId, input, buildId);
  }

  private async create(runId: number, testId: string, input: ResultInput & { stepStatuses?: string[] }, buildId: string): Promise<void> {
    const { stepStatuses } = input;
    await this.lane.retry(
      'test_results/create',
      async (attempt, mayHaveApplied) => {
        if (mayHaveApplied || (attempt === 1 && this.replay)) {
          const last = await this.lastResult(runId, testId);
          const a = last?.attributes ?? {};
          const ours =
            last &&
            a.status === input.status &&
            (a.description ?? '') === input.description &&
            a['status-author'] === STATUS_AUTHOR &&
            // Created before this publication began (with the clock leeway): an earlier run's result in a reused run.
            !olderThan(a['created-at'], this.since) &&
            // Another CI build's result alike (posted meanwhile) is not this one's: a build it names must be ours.
            [undefined, buildId].includes(linkedId(last.relationships?.build?.data));
          if (ours) {
            this.resultIds.set(inBuild(buildId, testId), String(last.id));
            return;
          }
        }
        const { status, description } = input;
        const doc = await this.client.postResultOnce(runId, testId, { status, description, author: STATUS_AUTHOR, stepStatuses, buildId });
        const id = asArray(doc.data)[0]?.id;
        if (id !== undefined) this.resultIds.set(inBuild(buildId, testId), String(id));
      },
      `result ${runId} ${testId}`,
    );
  }

  /**
   * Attaches the file to the result of each test (a scenario with datasets has several) in build `buildId`. A
   * result this process did not post is the test's latest, when it is in that build (split mode: another
   * project's environment may hold the latest).
   */
  async attach(
    runId: number,
    testIds: readonly string[],
    file: UploadFile,
    check: boolean,
    buildId: string,
  ): Promise<'uploaded' | 'present'> {
    let uploaded = false;
    for (const testId of testIds) {
      const resultId = this.resultIds.get(inBuild(buildId, testId)) ?? (await this.lastResultIn(runId, testId, buildId));
      if (resultId === undefined)
        throw new Error(`test ${testId} of test run ${runId} has no result in build ${buildId} to attach ${file.fileName} to`);
      await this.lane.retry(
        'attachments/create',
        async (attempt, mayHaveApplied) => {
          if (mayHaveApplied || (attempt === 1 && check)) {
            if (await this.hasFile(runId, testId, String(resultId), file.fileName)) return;
          }
          await this.client.uploadAttachmentOnce(runId, testId, String(resultId), file);
          uploaded = true;
        },
        `attachment ${runId} ${resultId} ${file.fileName}`,
      );
    }
    return uploaded ? 'uploaded' : 'present';
  }

  private async lastResultIn(runId: number, testId: string, buildId: string): Promise<string | undefined> {
    const last = await this.lastResult(runId, testId);
    return last && [undefined, buildId].includes(linkedId(last.relationships?.build?.data)) ? String(last.id) : undefined;
  }

  private async lastResult(runId: number, testId: string) {
    const doc = await this.client.getSnapshot(runId, testId, 'last-result');
    return (doc.included ?? []).find((r) => r.type === 'test-results');
  }

  private async hasFile(runId: number, testId: string, resultId: string, fileName: string): Promise<boolean> {
    const doc = await this.client.listResultAttachments(runId, testId, resultId);
    return asArray(doc.data).some((a) => a.attributes?.['file-name'] === fileName || a.attributes?.name === fileName);
  }
}
