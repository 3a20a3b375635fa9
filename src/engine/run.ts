import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config/config';
import { createHttp } from '../http/client';
import { safeDelay } from '../kit/clock';
import { Deadline } from '../kit/deadline';
import { LaneSet } from '../kit/lanes';
import { Reachability } from '../kit/reachability';
import type { TargetDeps } from '../kit/target';
import { emptySummary, keyLabel, keysOf, type RunSummary, type TargetSummary, type TestRecord } from '../shared/model';
import { replayCommand, type Printer } from '../shared/output';
import { Outbox, type Journal } from './outbox';
import { dryRun } from './dry-run';
import { EndEstimate, markDeadlineCut, timeLeftText } from './end-of-run';
import { OfferBatch } from './offer-batch';
import { RecordKeeper } from './record-keeper';
import { journalMeta, publishingSince, runMark } from './run-identity';
import { TargetSession } from './session';

/** How long a non-leader shard waits for shard 1's cycle / run (shard 1 may have no tests at all). */
export const FOLLOWER_WAIT_MS = 30_000;

export interface PublishRunOptions {
  printer: Printer;
  /** Replay: the journal being re-sent (appended to, and its done items skipped). */
  journal?: Journal;
  /** Test and benchmark knobs; `send` replaces the HTTP client. */
  deps?: Partial<TargetDeps>;
  /** This process's CI shard (live shards share the services' limits and the container). */
  shard?: { current: number; total: number } | null;
  /**
   * Aborted when the user stops the end of the run (the reporter's Ctrl+C / SIGTERM, its reason the signal's
   * name): the end is cut short at once, as at publishTimeout, and what is left stays in the outbox.
   */
  stop?: AbortSignal;
  /** Progress line cadence at the end of the run (ms), and how long the end stays quiet first; tests shorten both. */
  progressEveryMs?: number;
  /** How long results journaled during the run wait to be offered to the targets together (ms); see OFFER_EVERY_MS. */
  offerEveryMs?: number;
  quietEndMs?: number;
  /** The stream's batching window, for every target (tests shorten Zephyr's 3 s); each target's own when absent. */
  batchWaitMs?: number;
  /** The waits between tries of a service that gives no answer (UNREACHABLE.delaysMs when absent; tests shorten them). */
  unreachableDelaysMs?: readonly number[];
}

/** Waits for `work`, or `ms` at most (no bound when `ms` is not finite). */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  if (!Number.isFinite(ms)) return void (await work);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, safeDelay(ms))))]);
  clearTimeout(timer);
}

/** The end of a run prints progress only when it lasts longer than this. */
const QUIET_END_MS = 5_000;

/**
 * One publish of one Playwright run (or of one journal, on replay): owns the HTTP pool, the outbox and
 * a session per target it is handed (in the config). Used by the reporter and by `replay`, so both
 * take the same path.
 */
export class PublishRun {
  readonly outbox?: Outbox;
  private readonly sessions: TargetSession[];
  private readonly http: ReturnType<typeof createHttp>;
  private readonly startedAt = new Date();
  private readonly keeper: RecordKeeper;
  /** When the tests will be done (live runs: set by `start`). */
  private estimate?: EndEstimate;
  private readonly deadline = new Deadline();
  /** Records journaled and not yet offered to the targets. */
  private readonly toOffer: OfferBatch;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly o: PublishRunOptions,
  ) {
    this.http = createHttp({
      timeoutMs: config.requestTimeoutMs,
      onExchange: (e) =>
        o.printer.debug(
          `${e.service} ${e.method} ${e.path} -> ${e.status}${e.redirectTo ? ` to ${e.redirectTo}` : ''} (${Math.round(e.durationMs)} ms)`,
        ),
      onRedirect: (e) => {
        if (!e.permanent) return o.printer.debug(`${e.service}: ${e.from} redirects (temporarily) to ${e.to}`);
        // Said once per run; the journal keeps it so that replay goes straight to the new place.
        o.printer.info(
          `${e.service}: ${e.from} has moved permanently to ${e.to}; configure ${this.http.rewrite(e.from)} as its base URL to skip the redirect`,
        );
        this.outbox?.redirect({ from: e.from, to: e.to, service: e.service });
      },
    });
    if (o.journal?.redirects.length) {
      try {
        this.http.seedRedirects(o.journal.redirects);
      } catch (error) {
        o.printer.error(`a redirect in the journal is not followed: ${(error as Error).message}`);
      }
    }
    // The build this publish belongs to: a replay's is its run's, whatever CI job replays it.
    const buildId = o.journal?.build ?? config.runInfo.build ?? `local ${randomBytes(4).toString('hex')}`;
    if (!config.dryRun && (config.targets.length || config.invalid.length)) {
      // A replay's journal is complete when every target of the journal is, not only those configured now.
      const targets = o.journal ? o.journal.targets : journalMeta(config);
      this.outbox = new Outbox(config.outboxDir, { targets, build: buildId }, o.journal?.file, (why) =>
        o.printer.error(
          `the outbox ${config.outboxDir} cannot be written (${why}): results are still sent, but what cannot be sent is not kept for replay; set outboxDir (PW_TMS_OUTBOX_DIR) to a writable folder`,
        ),
      );
      if (o.journal) for (const t of o.journal.complete) this.outbox.complete(t);
    }
    const deps: TargetDeps = {
      send: this.http.send,
      secrets: config.secrets,
      replay: !!o.journal,
      deadline: this.deadline,
      processes: o.shard?.total ?? 1,
      since: publishingSince(o.journal, this.startedAt),
      runMark: runMark(this.outbox?.file ?? o.journal?.file),
      runInfo: { ...config.runInfo, buildId },
      ...o.deps,
    };
    this.keeper = new RecordKeeper(config.secrets, this.outbox);
    this.toOffer = new OfferBatch((batch) => this.offer(batch), o.offerEveryMs);
    const log = { info: o.printer.info, error: o.printer.error };
    this.sessions = config.targets.map(({ definition, config: c }) => {
      // Per service: one that gives no answer is given up for the run, its session stops sending and says why.
      const reachability = new Reachability(() => this.deadline.started, undefined, o.unreachableDelaysMs);
      // The target's lanes: the session counts their calls and closes them.
      const lanes = new LaneSet();
      return new TargetSession(definition, definition.create(c, { ...deps, reachability, lanes }), {
        lanes,
        outbox: this.outbox,
        log,
        alreadyDone: o.journal?.done.get(definition.id),
        attached: o.journal?.attached.get(definition.id),
        refused: o.journal?.refused.get(definition.id),
        maxAttachmentBytes: config.evidence.maxBytes,
        secrets: config.secrets,
        replay: !!o.journal,
        sharedBuild: !buildId.startsWith('local '),
        endInMs: () => this.estimate?.msLeft() ?? Infinity,
        batchWaitMs: o.batchWaitMs,
        reachability,
      });
    });
  }

  get targetIds(): string[] {
    return this.sessions.map((s) => s.id);
  }

  /**
   * Preflight + container for every target, in the background. With live shards, shard 1 creates the
   * cycle / run and the others first wait for it, so that simultaneous shards do not race to create.
   */
  start(tests: readonly Pick<TestRecord, 'testId' | 'keys' | 'place'>[]): void {
    if (this.config.dryRun) return;
    const shard = this.o.shard;
    const followerWaitMs = shard && shard.total > 1 && shard.current > 1 ? FOLLOWER_WAIT_MS : 0;
    this.estimate = new EndEstimate(tests.length);
    for (const s of this.sessions) s.start(tests, followerWaitMs);
  }

  /**
   * A test's final result: journaled at once (before anything is sent: kept if the process dies right
   * after), then offered to every target with the next batch (OFFER_EVERY_MS).
   */
  record(record: TestRecord): void {
    const r = this.keeper.kept(record);
    this.keeper.journal([r]);
    this.toOffer.add(r);
  }

  private offer(batch: readonly TestRecord[]): void {
    for (const r of batch) this.estimate?.finishedOne(r.testId);
    for (const s of this.sessions) s.offer(batch);
    if (this.estimate?.over()) for (const s of this.sessions) s.testsOver();
  }

  /** Journals records unless identical ones were journaled already (the benchmarks feed records this way). */
  journal(records: readonly TestRecord[]): void {
    this.keeper.journal(records);
  }

  /** `notRunKeys`: the keys of the tests that never started (the run stopped first), by target. */
  async finish(
    records: readonly TestRecord[],
    notRun: number,
    notRunKeys: Readonly<Record<string, readonly string[]>> = {},
  ): Promise<RunSummary> {
    const targets: RunSummary['targets'] = {};
    // What the last batch holds goes with the end's own sends (its records come again below).
    this.toOffer.flush();
    if (this.config.dryRun) {
      for (const s of this.sessions) {
        const where = this.config.targets.find((t) => t.definition.id === s.id);
        targets[s.id] = await dryRun(s, where && s.definition.journalMeta(where.config), records, notRun, this.o.printer);
      }
    } else {
      const complete = records.map((r) => this.keeper.kept(r));
      this.keeper.journal(complete);
      const done = await this.finishWithin(complete, notRun);
      // A target with bad settings is journaled for a replay once they are fixed; with nothing mapped to it, nothing waits.
      for (const d of this.config.invalid) if (!records.some((r) => keysOf(r, d.id).length)) this.outbox?.complete(d.id);
      const left = this.outbox?.finalize({ records: complete, maxBytes: this.config.evidence.maxBytes, secrets: this.config.secrets });
      for (const s of done) {
        if (left && (s.unsent || s.attachments?.failed.length)) s.outbox = left;
        // The link is on the service's site: where it has moved permanently, it points to the new place.
        if (s.link) s.link = this.http.rewrite(s.link);
        for (const p of Object.values(s.byPlace ?? {})) if (p.link) p.link = this.http.rewrite(p.link);
        targets[s.target] = s;
      }
      for (const d of this.config.invalid) {
        const unsent = records.filter((r) => keysOf(r, d.id).length).length;
        const errors = ['settings invalid (see above)'];
        targets[d.id] = { ...emptySummary(d.id, d.label, 0, notRun), enabled: false, errors, unsent, outbox: left };
      }
    }
    // After publishTimeout, nothing more is awaited: background work is abandoned (its results are in the outbox).
    const closing = Promise.all(this.sessions.map((s) => s.close().catch(() => undefined))).then(() =>
      this.http.close().catch(() => undefined),
    );
    await within(closing, Math.max(1_000, this.deadline.remaining()));
    for (const s of Object.values(targets)) {
      const partly = new Set(notRunKeys[s.target] ?? []);
      const keys = [...new Set(records.flatMap((r) => keysOf(r, s.target)))].filter((k) => partly.has(k)).sort();
      if (keys.length) s.partlyRun = keys.map(keyLabel);
    }
    return { version: 1, startedAt: this.startedAt.toISOString(), finishedAt: new Date().toISOString(), targets };
  }

  /**
   * Every session's end, bounded by publishTimeout: waits past it fail at once (the lanes share the
   * deadline), and whatever still runs then is abandoned to the outbox. While the end takes longer than
   * a few seconds, a progress line every 10 s says how far it is, so a CI log never looks hung.
   */
  private async finishWithin(records: readonly TestRecord[], notRun: number): Promise<TargetSummary[]> {
    const limitMs = this.config.publishTimeoutMs;
    this.deadline.startIn(limitMs);
    const started = Date.now();
    const every = this.o.progressEveryMs ?? 10_000;
    const before = this.sessions.map((s) => s.progress().sent);
    // A session that finished in time keeps its own summary (only the others are cut short), and its progress says done.
    const done = new Map<TargetSession, TargetSummary>();
    const progress = setInterval(() => this.printProgress(started, before, done), every);
    progress.unref?.();
    let timer: NodeJS.Timeout | undefined;
    // No limit (publishTimeout 0 / off): never cut. Clamped: a longer timer would fire at once.
    const cut = new Promise<'cut'>((resolve) => {
      if (Number.isFinite(limitMs)) timer = setTimeout(() => resolve('cut'), safeDelay(limitMs));
    });
    const stop = this.o.stop;
    let onStop: (() => void) | undefined;
    const stopped = new Promise<'stop'>((resolve) => (onStop = () => resolve('stop')));
    if (stop?.aborted) onStop!();
    else stop?.addEventListener('abort', onStop!, { once: true });
    try {
      const finishing = this.sessions.map((s) => s.finish(records, notRun).then((summary) => (done.set(s, summary), summary)));
      const outcome = await Promise.race([Promise.all(finishing), cut, stopped]);
      if (outcome !== 'cut' && outcome !== 'stop') return outcome.map((s) => (markDeadlineCut(s), s));
      // Stopped: waits under way (a backoff, the next poll) give up now, as they would at publishTimeout.
      const by = outcome === 'stop' ? String(stop?.reason ?? 'a signal') : undefined;
      if (by) this.deadline.startIn(0);
      const rest = this.outbox?.unwritable
        ? 'the rest is not kept (the outbox cannot be written)'
        : `the rest is kept in the outbox: run ${replayCommand(this.outbox ? path.dirname(this.outbox.file) : this.config.outboxDir)}`;
      const why = by ? `stopped by ${by}` : `publishTimeout (${Math.round(limitMs / 1000)} s) reached`;
      const reason = `${why} before everything was sent; ${rest}`;
      return this.sessions.map((s) => done.get(s) ?? s.cutShort(records, notRun, reason, by));
    } finally {
      clearInterval(progress);
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop!);
    }
  }

  /** `before`: what each session had sent when the end began (the rate counts the end only). */
  private printProgress(started: number, before: readonly number[], done: ReadonlyMap<TargetSession, TargetSummary>): void {
    const elapsed = Date.now() - started;
    if (elapsed < (this.o.quietEndMs ?? QUIET_END_MS)) return;
    const parts = this.sessions.map((s, i) => {
      const { sent, total, stage, filesLeft, service } = s.progress();
      const head = `${s.definition.label} ${sent}/${total} results sent`;
      if (done.has(s)) return `${head}, done`;
      // A service that answers nothing: the line says so and why, not a rate or a stage.
      if (service) return `${head}, ${service}`;
      // Once the statuses are out, the time left is the files' and the read-back's, not a rate of results.
      if (stage === 'attachments') return `${head}, uploading attachments (${filesLeft} left)`;
      if (stage === 'read-back') return `${head}, reading them back`;
      return `${head}${timeLeftText({ sent, total, sentInEnd: sent - before[i], elapsedMs: elapsed, budgetMs: this.deadline.remaining() })}`;
    });
    this.o.printer.info(`publishing: ${parts.join('; ')}`);
  }
}
