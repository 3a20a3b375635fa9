import { aggregate, defaultComment, ERROR_TEXT_LIMIT } from '../../shared/mapping';
import { keysOf, unplaced, type Outcome, type PlanItem, type TestRecord, type VerifyReport } from '../../shared/model';
import { ContainerState } from '../../kit/container-state';
import type { RequestLane } from '../../kit/lane';
import { byPlace, type PlaceGroup } from '../../kit/places';
import type { BeginOptions, BeginResult, CheckLine, PublishResult, StatusTable, Target, UploadFile } from '../../kit/target';
import type { RunInfo } from '../../shared/options';
import type { XrayClient } from './client';
import type { XrayConfig } from './config';
import { browseLink, ExecutionPlaces, importInfo } from './execution-places';
import { resendWorse } from './resend-worse';
import { runs, statuses, PAGE, type ExecutionRef, type RunRef } from './queries';
import { chunks, INLINE_EVIDENCE, keptWorse, testResult } from './results';
import { BUILT_IN_STATUSES, resolveXrayStatuses, xrayRank } from './statuses';
import { checkXray } from './check';
import { attachEvidence } from './evidence';
import { judgeRun, ReadBack, type ReadKey } from './read-back';
import { TestIds } from './test-ids';

export interface XrayTargetOptions {
  runInfo?: RunInfo;
  /** A replay: an earlier process of this run may have sent results unjournaled (read before overwriting). */
  replay?: boolean;
  signal?: AbortSignal;
}

/**
 * The Xray Test Execution lifecycle: find or create the execution once (its key is journaled as the container,
 * so a replay imports into the same one), map keys to Tests (a key that is not a Test would fail a whole import),
 * then import results in small batches with `testExecutionKey` — an upsert per Test, safe to repeat.
 */
export class XrayTarget implements Target {
  readonly id = 'xray';
  /**
   * Up to 100 results per import; a batch waits up to 30 s for more while the tests run, since every import is one
   * request of the 300 per 5 minutes (2,000 tests over 10 minutes: about 20 imports), and goes at once at the end.
   */
  readonly batching = { maxItems: 100, maxWaitMs: 30_000, spaced: false };
  /** Small files go in the import (results.ts); larger ones by `attach`, 2 calls each. */
  readonly inlineEvidence = INLINE_EVIDENCE;
  private readonly container = new ContainerState('Xray Test Execution');
  /** The execution per place: merge mode's one, or one per Playwright project (split mode). */
  private readonly executions: ExecutionPlaces;
  /** Key -> Test issue id; null: not a Test (or no such issue). */
  private readonly ids: TestIds;
  /** What the execution should hold per key after this process: what it sent, or the worse result it left. */
  private readonly expected = new Map<string, string>();
  /** Keys whose run keeps another process's worse result of this build (seen before our import, or at the end). */
  private readonly kept = new Set<string>();
  /** The status map as resolved (resolveStatuses): what a custom status name means, for worst wins. */
  private byOutcome?: Record<Outcome, string>;
  /** The runs of confirmed imports, read while the tests run (read-back.ts): the end reads only the rest. */
  private readonly readBack: ReadBack;

  constructor(
    private readonly cfg: XrayConfig,
    private readonly client: XrayClient,
    private readonly lane: RequestLane,
    private readonly o: XrayTargetOptions = {},
  ) {
    this.readBack = new ReadBack(client);
    this.ids = new TestIds(client);
    this.executions = new ExecutionPlaces(cfg, client, lane, { description: o.runInfo?.description, signal: o.signal });
  }

  async resolveStatuses(mode: 'offline' | 'service'): Promise<StatusTable> {
    const known = mode === 'service' ? await statuses(this.client) : BUILT_IN_STATUSES;
    const table = resolveXrayStatuses(this.cfg.statusMap, known, mode === 'offline');
    this.byOutcome = table.byOutcome as Record<Outcome, string>;
    return table;
  }

  /** Worst-wins rank, a custom status name by what the status map makes it mean (statuses.ts). */
  private readonly rank = (status: string, outcome: Outcome): number => xrayRank(status, outcome, this.byOutcome);

  /**
   * Merge mode: the one execution. Split mode (the engine's keys are placed): every project's execution known so
   * far, each found or created once; the container is then only the run's summary, for the journal (a replay finds
   * them by it), and the summary names each execution (`placeContainers`). See ExecutionPlaces.begin.
   */
  async begin({ knownKeys, followerWaitMs }: BeginOptions): Promise<BeginResult> {
    this.executions.followerWaitMs = followerWaitMs ?? 0;
    this.container.set(await this.executions.begin(knownKeys.map((k) => unplaced(k).place)));
    // Keys known before the tests run are mapped to Tests meanwhile, so the batches carry imports only.
    const keys = knownKeys.map((k) => unplaced(k).key);
    if (keys.length) this.container.prepareInBackground(() => this.ids.map(keys));
    return this.container.begun();
  }

  plan(records: readonly TestRecord[], statuses: StatusTable): PlanItem[] {
    return aggregate(records, (r) => keysOf(r, this.id), {
      statusFor: (o) => String(statuses.byOutcome[o]),
      rank: this.rank,
      comment: (item) => defaultComment(item, ERROR_TEXT_LIMIT),
    });
  }

  async publish(
    items: readonly PlanItem[],
    onDone?: (items: readonly PlanItem[]) => void,
    files?: ReadonlyMap<PlanItem, readonly UploadFile[]>,
  ): Promise<PublishResult> {
    this.container.require();
    await this.container.preparation();
    const result: PublishResult = { done: [], failed: [] };
    try {
      await this.ids.map(items.map((i) => unplaced(i.key).key));
    } catch (error) {
      for (const item of items) result.failed.push({ item, reason: (error as Error).message });
      return result;
    }
    await Promise.all(byPlace(items).map((group) => this.publishInto(group, result, onDone, files)));
    return result;
  }

  /** One place's items (merge mode: all) into its execution; items reach `result` and `onDone` as the engine's. */
  private async publishInto(
    group: PlaceGroup,
    result: PublishResult,
    onDone?: (items: readonly PlanItem[]) => void,
    files?: ReadonlyMap<PlanItem, readonly UploadFile[]>,
  ): Promise<void> {
    const engine = (item: PlanItem) => group.original.get(item)!;
    const fail = (list: readonly PlanItem[], error: unknown) => {
      for (const item of list) result.failed.push({ item: engine(item), reason: (error as Error).message });
    };
    const confirmed = (list: readonly PlanItem[]) => {
      const done = list.map(engine);
      result.done.push(...done);
      onDone?.(done);
    };
    const mapped: PlanItem[] = [];
    for (const item of group.items) {
      if (this.ids.get(item.key)) mapped.push(item);
      else
        result.failed.push({
          item: engine(item),
          reason: `${item.key} is not a Test in Xray (no such issue, or an issue of another type)`,
          refused: true,
        });
    }
    if (!mapped.length) return;
    let execution: ExecutionRef;
    let send: PlanItem[];
    try {
      execution = await this.executions.of(group.place);
      send = await this.worstWins(execution, mapped, engine, confirmed);
    } catch (error) {
      return fail(mapped, error);
    }
    const buildId = this.o.runInfo?.buildId;
    const info = importInfo(group.place);
    const entries = send.map((item) => {
      const carried = files?.get(engine(item)) ?? [];
      return { item, carried, result: testResult(item, buildId, carried), bare: testResult(item, buildId) };
    });
    await Promise.all(
      chunks(entries).map(async (chunk) => {
        // Files go with the first attempt only: after one that may have been applied (Xray may keep or replace a
        // run's files on re-import, §8.1 rule 2), the rest goes without them and `attach` looks before sending.
        let withFiles = chunk.some((e) => e.carried.length);
        const body = (mayHaveApplied: boolean) => {
          if (mayHaveApplied) withFiles = false;
          return { testExecutionKey: execution.key, ...info, tests: chunk.map((e) => (withFiles ? e.result : e.bare)) };
        };
        for (const e of chunk) this.readBack.sending(engine(e.item).key);
        try {
          await this.client.importExecution(body);
          for (const e of chunk) {
            this.expected.set(engine(e.item).key, String(e.item.status));
            this.kept.delete(engine(e.item).key);
          }
          // A local run's runs are read back now, behind its statuses in the lane; a build's wait for the end.
          if (!this.shared)
            this.readBack.confirmed(
              execution,
              chunk.map((e) => this.readKey(engine(e.item).key, e.item.key)),
            );
          if (withFiles)
            for (const e of chunk) for (const f of e.carried) (result.carried ??= []).push({ item: engine(e.item), fileName: f.fileName });
          confirmed(chunk.map((e) => e.item));
        } catch (error) {
          fail(
            chunk.map((e) => e.item),
            error,
          );
        }
      }),
    );
  }

  /** A file on the item's run, in its project's execution (split mode), added to the run (evidence.ts). */
  async attach(item: PlanItem, file: UploadFile): Promise<'uploaded' | 'present'> {
    this.container.require();
    const { key, place } = unplaced(item.key);
    const execution = await this.executions.of(place);
    await this.ids.map([key]);
    const testIssueId = this.ids.get(key);
    if (!testIssueId) throw new Error(`${key} is not a Test in Xray: its files have no run to go to`);
    return attachEvidence(this.client, this.lane, { execution, testIssueId, testKey: key }, file);
  }

  /** Merge mode's execution in Jira (split mode: each project's, in `placeContainers`). */
  link(): string | undefined {
    const key = this.container.peek()?.id;
    return this.cfg.jiraUrl && key ? browseLink(this.cfg.jiraUrl, key) : undefined;
  }

  /** Split mode: each project's execution, by key and summary (the run's summary is none's; see `begin`). */
  placeContainers() {
    return this.executions.split ? this.executions.containers() : undefined;
  }

  /** Dry run: the execution each place's results would go to. */
  wouldPublishInto(items: readonly PlanItem[]): string[] {
    return byPlace(items).map((group) => this.executions.describe(group.place));
  }

  /**
   * Compares each sent key's run with what it should hold: read during the run after its last send (a local run,
   * read-back.ts), else read now (100 Test ids a call, together). A worse result of this build there is another
   * process's, kept (worst wins; `judgeRun`): it may have come after our import, so it is judged here too, not only
   * before the import; a better one in a shared build gets ours again first (resend-worse.ts). Split mode: one
   * report, each line naming its execution and project.
   */
  async verify(sent: readonly PlanItem[]): Promise<VerifyReport> {
    this.container.require();
    await this.readBack.settled();
    await this.ids.map(sent.map((i) => unplaced(i.key).key));
    const details: string[] = [];
    const held: string[] = [];
    for (const group of byPlace(sent)) {
      const execution = await this.executions.of(group.place);
      const where =
        group.place === undefined
          ? `Test Execution ${execution.key}`
          : `Test Execution ${execution.key} (${group.place || 'unnamed project'})`;
      const key = (item: PlanItem) => group.original.get(item)!.key;
      const runsHeld = await this.readBack.held(
        execution,
        group.items.map((item) => this.readKey(key(item), item.key)),
      );
      // A shared build: ours again where the run holds a better result (resend-worse.ts: a read before an import
      // cannot see another process's import after it); the runs are judged as that leaves them.
      const items = group.items.map((item) => ({ key: key(item), item }));
      const ctx = { client: this.client, execution, place: group.place, buildId: this.o.runInfo?.buildId, items };
      const unsent = this.shared
        ? await resendWorse({ ...ctx, held: runsHeld, sending: (k) => this.readBack.sending(k), rank: this.rank })
        : new Map();
      for (const item of group.items) {
        const want = this.expected.get(key(item)) ?? String(item.status);
        const got = judgeRun(runsHeld.get(key(item)), want, this.o.runInfo?.buildId, (s) => this.rank(s, item.outcome));
        if (got === 'kept') this.kept.add(key(item));
        else if (got !== 'same') details.push(`${item.key}: ${where} holds ${got.holds}, expected ${want}${unsent.get(key(item)) ?? ''}`);
      }
      held.push(`${where} holds the ${group.items.length} published results`);
    }
    const shown = details.slice(0, 10);
    if (details.length > shown.length) shown.push(`… and ${details.length - shown.length} more`);
    const kept = this.kept.size ? ` (${this.kept.size} kept a worse result of this build sent by another process)` : '';
    return { ok: details.length === 0, details: details.length ? shown : [`${held.join('; ')}${kept}`] };
  }

  check(): Promise<CheckLine[]> {
    return checkXray(this.cfg, this.client);
  }

  /** Another process may write these keys too (a CI build, a replay): worst wins, and only the end sees what stayed. */
  private get shared(): boolean {
    const buildId = this.o.runInfo?.buildId;
    return !!buildId && (this.o.replay === true || !buildId.startsWith('local '));
  }

  private readKey(key: string, testKey: string): ReadKey {
    return { key, testKey, testIssueId: this.ids.get(testKey)! };
  }

  /**
   * Worst wins across the processes of one CI build (shards, merge-reports, a replay): when another process may
   * have sent these keys (a CI build, or a replay), their runs are read first (one call per 100 keys) and a worse
   * result this build stored is kept. A local run is a build of its own: nothing to read.
   */
  private async worstWins(
    execution: ExecutionRef,
    items: PlanItem[],
    engine: (item: PlanItem) => PlanItem,
    confirmed: (items: readonly PlanItem[]) => void,
  ): Promise<PlanItem[]> {
    const buildId = this.o.runInfo?.buildId;
    if (!buildId || !this.shared || !items.length) return items;
    const held = new Map<string, RunRef>();
    for (let i = 0; i < items.length; i += PAGE) {
      const ids = items.slice(i, i + PAGE).map((item) => this.ids.get(item.key)!);
      for (const r of await runs(this.client, execution.issueId, ids)) held.set(r.testKey, r);
    }
    const kept = keptWorse(items, held, buildId, (s, item) => this.rank(s, item.outcome));
    if (!kept.size) return items;
    const done = [...kept];
    for (const item of done) {
      this.expected.set(engine(item).key, held.get(item.key)!.status);
      this.kept.add(engine(item).key);
    }
    confirmed(done);
    return items.filter((item) => !kept.has(item));
  }
}
