import { labelled } from '../shared/output';
import { classify } from '../kit/classify';
import { UnreachableError } from '../kit/reachability';
import { ready, waitFor, WaitTimeoutError } from '../kit/wait';
import { SettingsRefusedError, type ContainerInfo, type StatusTable, type Target, type TargetDefinition } from '../kit/target';
import { emptySummary, keysOf, unplaced, type PlanItem, type TargetSummary, type TestRecord } from '../shared/model';
import { ResultLedger } from './ledger';
import { sendTheRest } from './end-sends';
import type { EndProgress, EndStage } from './end-of-run';
import { KeyCompleteness } from './key-completeness';
import type { SessionOptions } from './session-options';
import { ResultStream } from './stream';
import { publishCall } from './publish-call';
import { UploadQueue } from './uploads';

/**
 * Where a session is. `idle`: made, not started (replay and dry run never start one). `awaiting-key`: started,
 * and no test maps here yet (the container waits for the first result that does: a run that never maps here
 * leaves no empty cycle or run). `beginning`: statuses and container under way. `streaming`: results go as their
 * keys complete. `ending`: the end of the run, which alone sends from then on. `cut`: publishTimeout or a signal
 * ended the publishing: what still runs is abandoned, and its failures are not news.
 */
export type SessionPhase = 'idle' | 'awaiting-key' | 'beginning' | 'streaming' | 'ending' | 'cut';

/**
 * Drives one target: begin while the tests run, stream each key's result once all its tests are
 * final, then at the end send what is left (re-planned over every record, so late corrections win)
 * and read back. Every failure becomes a summary line: nothing here throws, and one target failing
 * never touches another.
 */
export class TargetSession {
  private phase: SessionPhase = 'idle';
  private begun?: Promise<{ container: ContainerInfo; statuses: StatusTable }>;
  /** The preparation the last `begin` started (registering keys, generated tests); settles, never rejects. */
  private preparation?: Promise<void>;
  private beginError?: unknown;
  /** The cycle / run, once found or made (a summary cut short by publishTimeout still names it). */
  private container?: ContainerInfo;
  private readonly started = Date.now();
  private warnings: string[] = [];
  private readonly completeness: KeyCompleteness;
  private stream?: ResultStream;
  private testsAreOver = false;
  private statuses?: StatusTable;
  private endTotal = 0;
  /** What the end of the run is doing once the results are out: progress lines say so, not "0 s left". */
  private endStage: EndStage = 'results';
  private readonly ledger: ResultLedger;
  private readonly uploads: UploadQueue;
  private followerWaitMs = 0;

  constructor(
    readonly definition: TargetDefinition,
    readonly target: Target,
    private readonly o: SessionOptions,
  ) {
    this.completeness = new KeyCompleteness(definition.id);
    this.uploads = new UploadQueue({
      target,
      maxBytes: o.maxAttachmentBytes,
      attached: o.attached,
      check: o.replay,
      onDone: (key, file) => this.o.outbox?.attached(definition.id, key, file),
      secrets: o.secrets,
      // Not on a replay nor in a shared build: another process may have put files on these keys (attach looks first).
      inline: o.replay || o.sharedBuild ? undefined : target.inlineEvidence,
    });
    this.ledger = new ResultLedger({
      target: definition.id,
      outbox: o.outbox,
      alreadyDone: o.alreadyDone,
      refused: o.refused,
      onConfirmed: (items) => items.forEach((item) => this.uploads.enqueue(item)),
    });
  }

  get id(): string {
    return this.definition.id;
  }

  /**
   * Starts the preflight and the container (not awaited by Playwright: keep the promise); results stream
   * once it is ready. A target no test maps to yet waits for the first result that does (a run-time
   * annotation): a run that never maps to it leaves no empty cycle or run behind.
   */
  start(tests: readonly Pick<TestRecord, 'testId' | 'keys' | 'place'>[], followerWaitMs = 0): void {
    this.completeness.expect(tests);
    const keys = [...new Set(tests.flatMap((t) => keysOf(t, this.id)))];
    this.followerWaitMs = followerWaitMs;
    this.phase = 'awaiting-key';
    if (keys.length) this.launch(keys);
  }

  private launch(keys: readonly string[]): void {
    this.phase = 'beginning';
    this.begun = this.begin(keys, this.followerWaitMs);
    this.begun.then(
      ({ statuses }) => {
        if (this.phase !== 'beginning') return;
        this.phase = 'streaming';
        this.statuses = statuses;
        this.stream = new ResultStream({
          batching: this.o.batchWaitMs === undefined ? this.target.batching : { ...this.target.batching, maxWaitMs: this.o.batchWaitMs },
          preparation: this.preparation,
          publish: async (items) =>
            this.ledger.refuse(await publishCall(this.target, this.uploads, items, (done) => this.ledger.confirm(done))),
          onDone: (items) => this.ledger.confirm(items),
          endInMs: this.o.endInMs,
        });
        this.offerComplete(this.completeness.keys());
        if (this.testsAreOver) this.stream.sendAllNow();
      },
      // Report a bad preflight as soon as it is known, not only at the end of the run.
      (error: unknown) => {
        this.beginError = error;
        if (this.phase !== 'cut') this.o.log.error(labelled(this.definition.label, (error as Error).message));
      },
    );
  }

  /** Every test has its final result: the stream sends what it holds now, not at the end. */
  testsOver(): void {
    this.testsAreOver = true;
    this.stream?.sendAllNow();
  }

  /** Tests' final results: their keys that are now complete go out with the stream's next batch. */
  offer(records: readonly TestRecord[]): void {
    const keys = new Set(records.flatMap((record) => this.completeness.add(record)));
    if (!keys.size) return;
    if (this.phase === 'awaiting-key') this.launch([...keys]);
    if (this.stream) this.offerComplete(keys);
  }

  /** Results confirmed so far / results the end of the run has to account for, and what it is doing (progress lines). */
  progress(): EndProgress {
    return {
      sent: Math.min(this.ledger.heldCount, this.endTotal),
      total: this.endTotal,
      stage: this.endStage,
      filesLeft: this.uploads.waiting,
      ...(this.o.reachability?.describe() ? { service: this.o.reachability.describe() } : {}),
    };
  }

  private offerComplete(keys: Iterable<string>): void {
    const complete = this.completeness.complete(keys);
    if (!complete.keys.size || !this.statuses) return;
    const items = this.target
      .plan(complete.records, this.statuses)
      .filter((i) => complete.keys.has(i.key) && !this.ledger.nothingToSend(i));
    this.stream!.enqueue(items);
  }

  /** Statuses first (an explicit step), then the container. */
  private async begin(knownKeys: readonly string[], followerWaitMs = 0): Promise<{ container: ContainerInfo; statuses: StatusTable }> {
    const statuses = await this.target.resolveStatuses('service').catch((error: unknown) => {
      // The journal says so: a replay takes these settings from the config it is given, not from this run.
      if (error instanceof SettingsRefusedError) this.o.outbox?.unresolved(this.id, error.settings);
      throw error;
    });
    if (!this.warnings.length) {
      this.warnings = [...statuses.warnings];
      if (this.phase !== 'cut') for (const w of statuses.warnings) this.o.log.error(w);
    }
    // A setting refused there too (an Xray Test Plan that is not one): journaled alike.
    const { preparation, ...container } = await this.target.begin({ knownKeys, followerWaitMs }).catch((error: unknown) => {
      if (error instanceof SettingsRefusedError) this.o.outbox?.unresolved(this.id, error.settings);
      throw error;
    });
    this.container = container;
    this.preparation = preparation;
    if (container.warning && !this.warnings.includes(container.warning)) {
      this.warnings.push(container.warning);
      if (this.phase !== 'cut') this.o.log.error(`${this.definition.label}: ${container.warning}`);
    }
    this.o.outbox?.container(this.id, container.id, container.name);
    return { container, statuses };
  }

  /** Sends what the stream has not, then reads back; resolves with this target's summary. */
  async finish(records: readonly TestRecord[], notRun: number): Promise<TargetSummary> {
    const mapped = records.filter((r) => keysOf(r, this.id).length > 0);
    const summary = this.summaryOf(records.length - mapped.length, notRun);
    const keys = new Set(mapped.flatMap((r) => keysOf(r, this.id)));
    this.endTotal = keys.size;
    this.phase = 'ending';
    // The batch in flight finishes on its own; the end sends every other key meanwhile (publishRest).
    const inFlight = this.stream?.inFlight() ?? new Map<string, PlanItem>();
    const drained = this.stream?.drain() ?? Promise.resolve();
    let begun: { container: ContainerInfo; statuses: StatusTable } | undefined;
    if (!this.begun && !mapped.length) {
      // Nothing maps here: no container, no call, and nothing left for replay.
      this.o.outbox?.complete(this.id);
      return summary;
    }
    try {
      begun = await (this.begun ?? this.begin([...keys]));
    } catch (error) {
      // The service may have come back since onBegin (outage at start): one more try before giving up.
      if (error instanceof UnreachableError || classify(error).kind !== 'fatal') {
        try {
          begun = await waitFor({
            label: `${this.definition.label} preflight`,
            maxAttempts: 1,
            // The run's keys (placed in split mode): a target with a container per project knows its projects by them.
            attempt: async () => ready(await this.begin([...keys])),
          });
          this.o.log.info(`${this.definition.label}: reachable again; publishing`);
        } catch (again) {
          this.beginError = again instanceof WaitTimeoutError ? (again.lastError ?? again) : again;
        }
      }
      if (!begun) summary.errors.push(((this.beginError ?? error) as Error)?.message ?? String(error));
    }
    if (begun) {
      const { container, statuses } = begun;
      await sendTheRest(
        {
          id: this.id,
          target: this.target,
          ledger: this.ledger,
          uploads: this.uploads,
          outbox: this.o.outbox,
          reachability: this.o.reachability,
          onTotal: (total) => (this.endTotal = total),
          onStage: (stage) => (this.endStage = stage),
        },
        records,
        mapped.length,
        statuses,
        summary,
        { inFlight, drained },
      );
      // After the results: a link may name what only the publish learns (Zephyr's project key, from an execution),
      // and a place's own container may be made by the publish (a project whose tests were not known at the start).
      this.describeContainer(summary, container);
      summary.link = this.target.link?.();
      for (const note of this.target.notes?.() ?? []) {
        this.warnings.push(note);
        this.o.log.info(`${this.definition.label}: ${note}`);
      }
    } else {
      await drained;
      summary.unsent = this.ledger.notHeld(keys);
    }
    summary.warnings = this.warnings.length ? [...this.warnings] : undefined;
    return { ...summary, calls: this.o.lanes?.calls() ?? 0, durationMs: Date.now() - this.started };
  }

  /** What the summary says when publishTimeout (or a signal, `stoppedBy`) cut the end short: whatever was confirmed by then. */
  cutShort(records: readonly TestRecord[], notRun: number, reason: string, stoppedBy?: string): TargetSummary {
    const unmapped = records.filter((r) => !keysOf(r, this.id).length).length;
    const sent = this.ledger.heldCount;
    this.phase = 'cut';
    const summary: TargetSummary = {
      ...this.summaryOf(unmapped, notRun),
      cutShort: true,
      ...(stoppedBy ? { stoppedBy } : {}),
      published: sent,
      errors: [reason],
      unsent: Math.max(0, this.endTotal - sent),
    };
    if (this.container) this.describeContainer(summary, this.container, this.ledger.heldKeys());
    return summary;
  }

  /**
   * The run's container, or where each place has its own (Xray split mode) each place's and its link: begin's names
   * none then. `held` (cut short: no counts made): confirmed keys, counted per place (a place's line says no 0).
   */
  private describeContainer(summary: TargetSummary, c: ContainerInfo, held?: readonly string[]): void {
    const kind = this.definition.containerKind;
    const places = this.target.placeContainers?.();
    if (!places) return void (summary.container = { kind, id: c.id, name: c.name, reused: c.reused });
    const entry = (place: string) => ((summary.byPlace ??= {})[place] ??= { published: 0, countsByStatus: {} });
    for (const key of held ?? []) {
      const { place } = unplaced(key);
      if (place !== undefined) entry(place).published++;
    }
    for (const [place, p] of Object.entries(places)) {
      entry(place).container = { kind, id: p.id, name: p.name, reused: p.reused };
      if (p.link) entry(place).link = p.link;
    }
  }

  /** Waits for the target's background preparation (Playwright does not wait for a promise a reporter forgets), then closes its lanes. */
  async close(): Promise<void> {
    try {
      await this.preparation;
    } finally {
      this.o.lanes?.close();
    }
  }

  /** The summary so far: the requests the target made, and how long it has taken. */
  private summaryOf(unmapped: number, notRun: number): TargetSummary {
    const summary = emptySummary(this.id, this.definition.label, unmapped, notRun);
    return { ...summary, calls: this.o.lanes?.calls() ?? 0, durationMs: Date.now() - this.started };
  }
}
