/**
 * The end of the run, seen from before it: when it will come (`EndEstimate`) and how far it is
 * (`EndProgress`); and what the summary says of what it sent, could not send, and read back.
 */
import { DeadlineError } from '../kit/deadline';
import type { PublishResult, StatusTable } from '../kit/target';
import { keyLabel, unplaced, type PlanItem, type TargetSummary, type VerifyReport } from '../shared/model';

/** Tests finished before the pace is trusted: the first ones include the workers' start. */
const MIN_FINISHED = 5;

/**
 * When the last test of the run will finish, from how fast tests have finished so far. Targets use it to
 * keep optional calls out of the last window before the end (what they make then still holds its pacing
 * slot when the end's own calls come); a wrong guess only moves such work to the end, never loses it.
 */
export class EndEstimate {
  /** Tests with a final result: a test may come again (a serial group's retry runs one that had passed). */
  private readonly ended = new Set<string>();
  private get finished(): number {
    return this.ended.size;
  }

  constructor(
    private readonly total: number,
    private readonly now: () => number = Date.now,
    private readonly startedAt = now(),
  ) {}

  /** A test has its final result (counted once, however often it comes). */
  finishedOne(testId: string): void {
    this.ended.add(testId);
  }

  /** Every test has its final result: nothing more will come before the end. */
  over(): boolean {
    return this.total > 0 && this.finished >= this.total;
  }

  /** Milliseconds until the last test finishes at the pace so far; Infinity while too few have finished. */
  msLeft(): number {
    if (this.finished < MIN_FINISHED || this.total <= 0) return Infinity;
    const left = Math.max(0, this.total - this.finished);
    return (left * Math.max(0, this.now() - this.startedAt)) / this.finished;
  }
}

/** The end of the run: statuses (and comments), then the files of the confirmed results, then the read-back check. */
export type EndStage = 'results' | 'attachments' | 'read-back';

export interface EndProgress {
  sent: number;
  total: number;
  stage: EndStage;
  /** Files queued and not yet tried. */
  filesLeft: number;
  /**
   * The service answers nothing: for how long and why ("no answer for 12 s: connection refused at …"), or that
   * it is given up for this run ("Zephyr unreachable: connection refused at … ; the rest stays in the outbox").
   */
  service?: string;
}

/**
 * How long the rest of the results should take, for a progress line: from what is left at the rate of the
 * end so far, but never past what publishTimeout leaves (`budgetMs`): a rate measured over a stall (a 429's
 * wait, a job polled) says hours for what is done seconds later, and the end stops at publishTimeout anyway.
 * `sentInEnd` / `elapsedMs`: results confirmed since the end began, and how long ago it began.
 */
export function timeLeftText(p: { sent: number; total: number; sentInEnd: number; elapsedMs: number; budgetMs: number }): string {
  const left = p.total - p.sent;
  if (left <= 0) return '';
  const atRate = p.sentInEnd > 0 ? (left * p.elapsedMs) / p.sentInEnd : Infinity;
  if (Number.isFinite(atRate) && atRate <= p.budgetMs) return `, about ${Math.max(1, Math.ceil(atRate / 1000))} s left at the current rate`;
  if (!Number.isFinite(p.budgetMs) || p.budgetMs <= 0) return '';
  return `, at most ${Math.ceil(p.budgetMs / 1000)} s left (publishTimeout; what is not sent by then stays in the outbox)`;
}

/** One summary line per reason a result was not sent, naming the first few keys it held back. */
export function notSentLines(failed: PublishResult['failed']): string[] {
  const keysBy = new Map<string, string[]>();
  for (const f of failed) {
    const keys = keysBy.get(f.reason);
    if (keys) keys.push(keyLabel(f.item.key));
    else keysBy.set(f.reason, [keyLabel(f.item.key)]);
  }
  return [...keysBy].map(([reason, keys]) =>
    keys.length > 1 ? `${keys.length} results not sent (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}): ${reason}` : reason,
  );
}

/** The results the service confirmed, counted by status name. */
export function countSent(summary: TargetSummary, sent: readonly PlanItem[], statuses: StatusTable): void {
  summary.published = sent.length;
  for (const item of sent) {
    const name = statuses.name(item.status);
    summary.countsByStatus[name] = (summary.countsByStatus[name] ?? 0) + 1;
    // Split mode: each project's own counts too.
    const { place } = unplaced(item.key);
    if (place === undefined) continue;
    const p = ((summary.byPlace ??= {})[place] ??= { published: 0, countsByStatus: {} });
    p.published++;
    p.countsByStatus[name] = (p.countsByStatus[name] ?? 0) + 1;
  }
}

/** The read-back check: its report, and an error line when it failed or could not be made. */
export function addReadBack(summary: TargetSummary, read: { verify: VerifyReport } | { error: Error }): void {
  // No time left to read back: the end was cut short, not the check failed.
  if ('error' in read && read.error instanceof DeadlineError) return void (summary.cutShort = true);
  if ('error' in read) return void summary.errors.push(`read-back check failed: ${read.error?.message}`);
  summary.verify = read.verify;
  if (!read.verify.ok) summary.errors.push(`read-back check failed: ${read.verify.details.join('; ')}`);
}

/**
 * A service whose sends were refused a wait by publishTimeout (a 429's "wait N s", a backoff) was cut
 * short by it, as one the timeout stopped mid-call: the summary line says so (its errors say which wait).
 */
export function markDeadlineCut(summary: TargetSummary): void {
  if ((summary.unsent > 0 || summary.attachments?.failed.length) && summary.errors.some((e) => DEADLINE_WORDS.test(e)))
    summary.cutShort = true;
}
const DEADLINE_WORDS = /would pass publishTimeout|publishTimeout \(\d+ s\) reached/;

/** Results not sent (kept for replay) and results whose key the service refused (not kept: the key must be fixed). */
export function addNotSent(summary: TargetSummary, failed: PublishResult['failed'], refused: PublishResult['failed']): void {
  summary.unsent += failed.length;
  summary.errors.push(...notSentLines(failed));
  if (refused.length) summary.refused = refused.length;
  summary.errors.push(...notSentLines(refused).map((line) => `${line} — fix the test's key (tag or annotation); not kept for replay`));
}

/** The files' outcome, when there were files; those not uploaded are an error line. */
export function addFiles(summary: TargetSummary, files: NonNullable<TargetSummary['attachments']>): void {
  if (files.uploaded + files.present + files.skipped.length + files.failed.length) summary.attachments = { ...files };
  if (files.failed.length)
    summary.errors.push(
      `${files.failed.length} attachment${files.failed.length === 1 ? '' : 's'} not uploaded: ${files.failed.slice(0, 3).join('; ')}`,
    );
}
