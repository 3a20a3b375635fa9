import { aggregate, defaultComment } from '../../shared/mapping';
import { head } from '../../shared/comment';
import { keysOf, unplaced, type PlanItem, type TestRecord, type VerifyReport } from '../../shared/model';
import { ContainerState } from '../../kit/container-state';
import type { RequestLane } from '../../kit/lane';
import { byPlace, type PlaceGroup } from '../../kit/places';
import type { RunInfo } from '../../shared/options';
import {
  type BeginOptions,
  type BeginResult,
  type CheckLine,
  type ContainerInfo,
  type PublishResult,
  SettingsRefusedError,
  type StatusTable,
  type Target,
  type UploadFile,
} from '../../kit/target';
import { findOrCreate } from '../../kit/find-or-create';
import { withHint } from '../../http/errors';
import { refusedProjectOrVersion } from './errors';
import type { ZephyrConfig } from './config';
import type { ZephyrClient, ZephyrCycle, ZephyrExecution, ZephyrStatus } from './client';
import { BUILT_IN_STATUSES, resolveStatusMap, statusName, zephyrRank } from './statuses';
import type { Outcome } from '../../shared/model';
import { BuildMarks } from './build-marks';
import { adoptCycle } from './cycle-build';
import { reconcile } from './reconcile';
import type { JobWaitOptions } from './jobs';
import { checkZephyr } from './check';
import { ExecutionEvidence } from './evidence';
import { FolderPlaces } from './folder-places';
import { folderNameFor } from './folders';
import { StatusWriter } from './status-writer';
import { ZephyrBudget, zephyrBatching } from './batching';

export interface ZephyrTargetOptions {
  /** What a cycle this process creates carries (build, environment, description). */
  runInfo?: RunInfo;
  /** This run's mark (TargetDeps.runMark), carried by the files it uploads. */
  runMark?: string;
  /** A replay: the cycle's executions are read just before its sends, so what they say is taken as current. */
  replay?: boolean;
  /** Job polling when the pacing window has room for quick looks (default: `jobs`). */
  roomyJobs?: JobWaitOptions;
}

/**
 * The Zephyr cycle lifecycle: find or create the cycle, get the keys in it as executions (CycleMembers),
 * then set statuses absolutely (bulk per status; one PUT per test that carries a comment), so every step is
 * safe to repeat after an ambiguous failure.
 */
export class ZephyrTarget implements Target {
  readonly id = 'zephyr';
  /** See zephyrBatching: bulk statuses by the budget, comments as they come while few wait. */
  readonly batching: Target['batching'];
  private statuses: ZephyrStatus[] = [];
  private byOutcome: Partial<Record<Outcome, number>> = {};
  /** This publish's CI build, as comments carry it (worst wins across its processes, see build-marks). */
  private readonly marks: BuildMarks;
  private readonly cycle = new ContainerState('Zephyr cycle');
  /** The cycle root's executions, and (split mode) each project's folder's. */
  private readonly places: FolderPlaces;
  private readonly evidence: ExecutionEvidence;
  private readonly writer: StatusWriter;

  constructor(
    private readonly cfg: ZephyrConfig,
    private readonly client: ZephyrClient,
    private readonly lane: RequestLane,
    private readonly jobs: JobWaitOptions = {},
    private readonly o: ZephyrTargetOptions = {},
  ) {
    this.evidence = new ExecutionEvidence(client, lane, o.runMark);
    const buildId = o.runInfo?.buildId;
    this.marks = new BuildMarks(
      buildId ?? 'local',
      !!buildId && !buildId.startsWith('local '),
      {
        name: (id) => statusName(this.statuses, id),
        id: (name) => [...this.statuses, ...BUILT_IN_STATUSES].find((s) => s.name.trim().toLowerCase() === name.toLowerCase())?.id,
      },
      // A custom status ranks like the outcome it is mapped from.
      (id) => zephyrRank(id, (Object.keys(this.byOutcome) as Outcome[]).find((o) => this.byOutcome[o] === id) ?? 'passed'),
    );
    this.places = new FolderPlaces(cfg, client, lane, jobs, () => this.cycle.require());
    const budget = new ZephyrBudget(lane, { paced: jobs, roomy: o.roomyJobs ?? jobs });
    this.writer = new StatusWriter(
      cfg,
      client,
      this.evidence,
      budget,
      o.replay === true,
      (key, e) => this.places.forget(key, e),
      this.marks,
    );
    this.batching = zephyrBatching(lane, budget, (item) => this.writer.needsOwnCall(item));
  }

  /**
   * The tenant's statuses are needed only to resolve a statusMap (names, custom ids); the defaults are
   * built-in ids on every tenant. Offline (dry run), names resolve against the built-in statuses.
   */
  async resolveStatuses(mode: 'offline' | 'service'): Promise<StatusTable> {
    const mapped = Object.keys(this.cfg.statusMap).length > 0;
    if (mapped && mode === 'service') this.statuses = await this.client.statuses();
    const known = mode === 'service' && mapped ? this.statuses : BUILT_IN_STATUSES;
    const { byOutcome, warnings } = resolveStatusMap(this.cfg.statusMap, known, mode === 'offline');
    // A status the tenant does not have is refused, not sent as the default (results kept for replay).
    if (mode === 'service' && warnings.length) throw new SettingsRefusedError(['statusMap'], warnings.join('; '));
    this.byOutcome = byOutcome;
    return { byOutcome, warnings, name: (s) => statusName(this.statuses, s) };
  }

  async begin({ knownKeys, followerWaitMs }: BeginOptions): Promise<BeginResult> {
    const { projectId, versionId, cycleId } = this.cfg;
    if (cycleId) {
      const c = await withHint(
        this.client.getCycle(cycleId, projectId, versionId),
        `ZEPHYR_CYCLE_ID (zephyr.cycleId) = ${cycleId} in project ${projectId}, version ${versionId}`,
      );
      this.cycle.set({ id: String(c.id ?? cycleId), name: c.name ?? cycleId, reused: true });
      await adoptCycle(this.client, this.cfg, c, true, this.marks, this.o.runInfo?.environment);
    } else {
      this.cycle.set(await this.findOrCreateCycle(this.cfg.cycleName, followerWaitMs));
    }
    // Register the keys known before the tests run while they run, so onEnd only sets statuses.
    if (knownKeys.length) this.cycle.prepareInBackground(() => this.ensureInCycle(knownKeys));
    return this.cycle.begun();
  }

  plan(records: readonly TestRecord[], statuses: StatusTable): PlanItem[] {
    return aggregate(records, (r) => keysOf(r, this.id), {
      statusFor: (o) => Number(statuses.byOutcome[o]),
      rank: (s, o) => zephyrRank(s, o),
      // Room is left for the build's mark at the end (see StatusWriter.commentOf).
      comment: (item) =>
        defaultComment(item, Math.max(60, this.cfg.commentLimit - this.marks.room(Number(statuses.byOutcome[item.outcome])))),
    });
  }

  async publish(items: readonly PlanItem[], onDone?: (items: readonly PlanItem[]) => void): Promise<PublishResult> {
    const cycleId = this.cycle.require().id;
    await this.cycle.preparation();
    const result: PublishResult = { done: [], failed: [] };
    await Promise.all(byPlace(items).map((group) => this.publishInto(cycleId, group, result, onDone)));
    return result;
  }

  /** One place's items (merge mode: every item, the cycle root; split mode: a project's folder). */
  private async publishInto(cycleId: string, group: PlaceGroup, result: PublishResult, onDone?: (items: readonly PlanItem[]) => void) {
    const engineItem = (item: PlanItem) => group.original.get(item)!;
    let members;
    try {
      members = await this.places.of(group.place);
      await members.ensure(
        this.cycle.require(),
        group.items.map((i) => i.key),
      );
    } catch (error) {
      // The folder could not be found or made: the items wait (outbox, replay), the next send tries again.
      const folder = folderNameFor(group.place);
      const message = (error as Error).message;
      const reason = folder === undefined ? message : `folder "${folder}" of the cycle could not be found or created: ${message}`;
      for (const item of group.items) result.failed.push({ item: engineItem(item), reason });
      return;
    }
    const found: Array<{ item: PlanItem; e: ZephyrExecution }> = [];
    const here: PublishResult = { done: [], failed: [] };
    for (const item of group.items) {
      const e = members.get(item.key);
      if (e) found.push({ item, e });
      else {
        const why = members.rejection(item.key);
        here.failed.push({
          item,
          reason: why?.reason ?? `${item.key} is not in the cycle (Zephyr did not add it)`,
          refused: why?.refused,
        });
      }
    }
    await this.writer.write(cycleId, found, here, onDone && ((done) => onDone(done.map(engineItem))));
    result.done.push(...here.done.map(engineItem));
    result.failed.push(...here.failed.map((f) => ({ ...f, item: engineItem(f.item) })));
  }

  async attach(item: PlanItem, file: UploadFile, { check }: { check: boolean }): Promise<'uploaded' | 'present'> {
    const cycleId = this.cycle.require().id;
    const { key, place } = unplaced(item.key);
    const members = await this.places.of(place);
    if (!members.get(key)) await members.ensure(this.cycle.require(), [key]);
    const e = members.get(key);
    if (!e) throw new Error(members.rejection(key)?.reason ?? `${key} is not in the cycle`);
    const { projectId, versionId } = this.cfg;
    return this.evidence.attach(e, { cycleId, projectId, versionId }, file, head(file.test ?? item.tests[0] ?? item.key, 200), check);
  }

  /** The cycle in the project's Zephyr view, when the Jira site is configured (the project key comes from a mapped issue). */
  link(): string | undefined {
    const cycle = this.cycle.peek();
    const projectKey = this.places.anyKey()?.replace(/-\d+$/, '');
    if (!this.cfg.jiraUrl || !cycle || !projectKey) return undefined;
    const { projectId, versionId } = this.cfg;
    return `${this.cfg.jiraUrl}/projects/${projectKey}?selectedItem=com.thed.zephyr.je__project-centric-view-tvm#?projectId=${projectId}&versionId=${versionId}&cycleId=${cycle.id}`;
  }

  async verify(sent: readonly PlanItem[]): Promise<VerifyReport> {
    if (this.marks.shared) return this.verifyShared(sent);
    const c = await this.client.getCycle(this.cycle.require().id, this.cfg.projectId, this.cfg.versionId, true);
    const expected = new Map<number, number>();
    for (const item of sent) {
      const s = this.places.execution(item.key)?.statusId ?? Number(item.status);
      expected.set(s, (expected.get(s) ?? 0) + 1);
    }
    const details: string[] = [];
    const total = Number(c.totalExecutions ?? NaN);
    if (!Number.isNaN(total) && total < sent.length) details.push(`cycle holds ${total} executions, ${sent.length} were published`);
    for (const [statusId, count] of expected) {
      const name = statusName(this.statuses, statusId);
      const summary = (c.executionSummaries ?? []).find((s) => s.executionStatusId === statusId || s.executionStatusName === name);
      const actual = Number(summary?.count ?? 0);
      if (actual < count) details.push(`${name}: cycle shows ${actual}, expected at least ${count}`);
    }
    return {
      ok: details.length === 0,
      details: details.length ? details : [`cycle counts match the ${sent.length} published results`],
      containerStatus: c.status,
    };
  }

  /**
   * A CI build other processes may publish too: the cycle is reconciled (see reconcile), then each key of ours
   * is compared with the worst this build sent for it (another process's results are not a failed check).
   */
  private async verifyShared(sent: readonly PlanItem[]): Promise<VerifyReport> {
    const { projectId, versionId } = this.cfg;
    const cycle = { id: this.cycle.require().id, projectId, versionId };
    const steps = this.cfg.stepResults !== 'off';
    const detailed = (item: PlanItem) => this.cfg.stepResults === 'detailed' && !!item.steps?.length;
    // Per place (merge mode: the root only): a folder is read with the folder search, the root with the cycle's.
    const perPlace = await Promise.all(
      byPlace(sent).map(async (group) => {
        const members = await this.places.of(group.place);
        const folder = members.folder?.folder;
        const read = folder && (() => this.places.calls.readAll(folder.id, { cycleId: cycle.id, projectId, versionId }));
        const ctx = { client: this.client, cycle, marks: this.marks, members, writer: this.writer, jobs: this.jobs, read };
        const lines = await reconcile({ ...ctx, steps, detailed }, group.items);
        return folder ? lines.map((line) => `folder "${folder.name}": ${line}`) : lines;
      }),
    );
    const details = perPlace.flat();
    const c = await this.client.getCycle(cycle.id, projectId, versionId);
    return {
      ok: details.length === 0,
      details: details.length ? details : [`each of the ${sent.length} published results is the worst this build sent for its key`],
      containerStatus: c.status,
    };
  }

  /** The dry run's lines in split mode: the folder (or, for an unnamed project, the root) each project's results go to. */
  wouldPublishInto(items: readonly PlanItem[]): string[] {
    const cycle = this.cfg.cycleId ? `cycle ${this.cfg.cycleId}` : `cycle "${this.cfg.cycleName}"`;
    return byPlace(items).flatMap((group) => (group.place === undefined ? [] : [this.places.describe(group.place, cycle)]));
  }

  check(): Promise<CheckLine[]> {
    return checkZephyr(this.cfg, this.client);
  }

  notes(): string[] {
    return this.evidence.stepCounts.lines();
  }

  /** Reuse by exact name, else create (safe under retries and racing shards, see findOrCreate). */
  private async findOrCreateCycle(name: string, followerWaitMs: number | undefined): Promise<ContainerInfo> {
    const { projectId, versionId } = this.cfg;
    const { description, build, environment } = this.o.runInfo ?? { description: 'Published by playwright-tms-reporter' };
    const about = { description, ...(build ? { build } : {}), ...(environment ? { environment } : {}) };
    const { value, reused } = await findOrCreate<ZephyrCycle>({
      lane: this.lane,
      label: 'cycle/create',
      find: () => this.client.cyclesNamed(name, projectId, versionId).catch(refusedProjectOrVersion),
      create: () => this.client.createCycleOnce(name, projectId, versionId, about),
      idOf: (c) => String(c.id),
      // Our duplicate is still empty: nothing was added to it yet.
      discard: async (c) => void (await this.client.deleteCycle(String(c.id), projectId, versionId)),
      followerWaitMs,
      signal: this.jobs.signal,
    });
    await adoptCycle(this.client, this.cfg, value, reused, this.marks, this.o.runInfo?.environment);
    return { id: String(value.id), name, reused };
  }

  /** Engine keys (placed in split mode) into the cycle root or their project's folder. */
  private ensureInCycle(keys: readonly string[]): Promise<void> {
    return this.places.ensure(keys);
  }
}
