import { aggregate, defaultComment, ERROR_TEXT_LIMIT } from '../../shared/mapping';
import { keysOf, type PlanItem, type TestRecord, type VerifyReport } from '../../shared/model';
import { ContainerState } from '../../kit/container-state';
import type { RequestLane } from '../../kit/lane';
import type { BeginOptions, BeginResult, CheckLine, PublishResult, StatusTable, Target } from '../../kit/target';
import type { RunInfo } from '../../shared/options';
import { GraphQLCallError, type XrayClient } from './client';
import type { XrayConfig } from './config';
import { linkPlan, resolveExecution } from './executions';
import { runs, statuses, tests, PAGE, type ExecutionRef, type RunRef } from './queries';
import { chunks, keptWorse, testResult } from './results';
import { BUILT_IN_STATUSES, resolveXrayStatuses, xrayRank } from './statuses';
import { checkXray } from './check';

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
  private readonly container = new ContainerState('Xray Test Execution');
  private execution?: ExecutionRef;
  /** Key -> Test issue id; null: not a Test (or no such issue). */
  private readonly ids = new Map<string, string | null>();
  /** What the execution should hold per key after this process: what it sent, or the worse result it left. */
  private readonly expected = new Map<string, string>();
  private kept = 0;

  constructor(
    private readonly cfg: XrayConfig,
    private readonly client: XrayClient,
    private readonly lane: RequestLane,
    private readonly o: XrayTargetOptions = {},
  ) {}

  async resolveStatuses(mode: 'offline' | 'service'): Promise<StatusTable> {
    const known = mode === 'service' ? await statuses(this.client) : BUILT_IN_STATUSES;
    return resolveXrayStatuses(this.cfg.statusMap, known, mode === 'offline');
  }

  async begin({ knownKeys, followerWaitMs }: BeginOptions): Promise<BeginResult> {
    const { execution, reused } = await resolveExecution(this.cfg, this.client, this.lane, {
      description: this.o.runInfo?.description,
      environments: [],
      followerWaitMs,
      signal: this.o.signal,
    });
    if (this.cfg.testPlanKey) await linkPlan(this.client, this.cfg.testPlanKey, execution);
    this.execution = execution;
    this.container.set({ id: execution.key, name: execution.summary || execution.key, reused });
    // Keys known before the tests run are mapped to Tests meanwhile, so the batches carry imports only.
    if (knownKeys.length) this.container.prepareInBackground(() => this.mapKeys(knownKeys));
    return this.container.begun();
  }

  plan(records: readonly TestRecord[], statuses: StatusTable): PlanItem[] {
    return aggregate(records, (r) => keysOf(r, this.id), {
      statusFor: (o) => String(statuses.byOutcome[o]),
      rank: (s, o) => xrayRank(s, o),
      comment: (item) => defaultComment(item, ERROR_TEXT_LIMIT),
    });
  }

  async publish(items: readonly PlanItem[], onDone?: (items: readonly PlanItem[]) => void): Promise<PublishResult> {
    const execution = this.requireExecution();
    await this.container.preparation();
    const result: PublishResult = { done: [], failed: [] };
    try {
      await this.mapKeys(items.map((i) => i.key));
    } catch (error) {
      for (const item of items) result.failed.push({ item, reason: (error as Error).message });
      return result;
    }
    const mapped: PlanItem[] = [];
    for (const item of items) {
      const id = this.ids.get(item.key);
      if (id) mapped.push(item);
      else
        result.failed.push({
          item,
          reason: `${item.key} is not a Test in Xray (no such issue, or an issue of another type)`,
          refused: true,
        });
    }
    const send = await this.worstWins(execution, mapped, result, onDone);
    const buildId = this.o.runInfo?.buildId;
    const entries = send.map((item) => ({ item, result: testResult(item, buildId) }));
    await Promise.all(
      chunks(entries).map(async (chunk) => {
        try {
          await this.client.importExecution({ testExecutionKey: execution.key, tests: chunk.map((e) => e.result) });
          const done = chunk.map((e) => e.item);
          for (const item of done) this.expected.set(item.key, String(item.status));
          result.done.push(...done);
          onDone?.(done);
        } catch (error) {
          for (const e of chunk) result.failed.push({ item: e.item, reason: (error as Error).message });
        }
      }),
    );
    return result;
  }

  link(): string | undefined {
    const key = this.container.peek()?.id;
    return this.cfg.jiraUrl && key ? `${this.cfg.jiraUrl}/browse/${key}` : undefined;
  }

  /** Reads every run of the execution back (paged by 100) and compares each key's status with what it should hold. */
  async verify(sent: readonly PlanItem[]): Promise<VerifyReport> {
    const execution = this.requireExecution();
    const held = new Map((await runs(this.client, execution.issueId)).map((r) => [r.testKey, r]));
    const details: string[] = [];
    for (const item of sent) {
      const want = this.expected.get(item.key) ?? String(item.status);
      const got = held.get(item.key)?.status;
      if (got !== want) details.push(`${item.key}: Test Execution ${execution.key} holds ${got ?? 'no run'}, expected ${want}`);
    }
    const shown = details.slice(0, 10);
    if (details.length > shown.length) shown.push(`… and ${details.length - shown.length} more`);
    return {
      ok: details.length === 0,
      details: details.length
        ? shown
        : [
            `Test Execution ${execution.key} holds the ${sent.length} published results` +
              (this.kept ? ` (${this.kept} kept a worse result of this build sent by another process)` : ''),
          ],
    };
  }

  check(): Promise<CheckLine[]> {
    return checkXray(this.cfg, this.client);
  }

  private requireExecution(): ExecutionRef {
    this.container.require();
    return this.execution!;
  }

  /** Keys not mapped yet -> Test issue ids, 100 per call. A JQL Xray refuses (one bad key) is split to find the key. */
  private async mapKeys(keys: readonly string[]): Promise<void> {
    const unknown = [...new Set(keys)].filter((k) => !this.ids.has(k));
    for (let i = 0; i < unknown.length; i += PAGE) await this.mapChunk(unknown.slice(i, i + PAGE));
  }

  private async mapChunk(keys: string[]): Promise<void> {
    try {
      const found = new Map((await tests(this.client, keys)).map((t) => [t.key, t.issueId]));
      for (const k of keys) this.ids.set(k, found.get(k) ?? null);
    } catch (error) {
      if (!(error instanceof GraphQLCallError)) throw error;
      if (keys.length === 1) return void this.ids.set(keys[0], null);
      const half = Math.ceil(keys.length / 2);
      await this.mapChunk(keys.slice(0, half));
      await this.mapChunk(keys.slice(half));
    }
  }

  /**
   * Worst wins across the processes of one CI build (shards, merge-reports, a replay): when another process may
   * have sent these keys (a CI build, or a replay), their runs are read first (one call per 100 keys) and a worse
   * result this build stored is kept. A local run is a build of its own: nothing to read.
   */
  private async worstWins(
    execution: ExecutionRef,
    items: PlanItem[],
    result: PublishResult,
    onDone?: (items: readonly PlanItem[]) => void,
  ): Promise<PlanItem[]> {
    const buildId = this.o.runInfo?.buildId;
    const shared = !!buildId && (this.o.replay === true || !buildId.startsWith('local '));
    if (!shared || !items.length) return items;
    const held = new Map<string, RunRef>();
    for (let i = 0; i < items.length; i += PAGE) {
      const ids = items.slice(i, i + PAGE).map((item) => this.ids.get(item.key)!);
      for (const r of await runs(this.client, execution.issueId, ids)) held.set(r.testKey, r);
    }
    const kept = keptWorse(items, held, buildId, (s, item) => xrayRank(s, item.outcome));
    if (!kept.size) return items;
    const done = [...kept];
    for (const item of done) this.expected.set(item.key, held.get(item.key)!.status);
    this.kept += done.length;
    result.done.push(...done);
    onDone?.(done);
    return items.filter((item) => !kept.has(item));
  }
}
