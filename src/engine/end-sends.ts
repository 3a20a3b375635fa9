/**
 * What a session's end sends once its container is there: the results not confirmed (beside the stream's
 * batch in flight), then the files of the confirmed ones alongside the read-back. A service given up for
 * the run (no answer, see UNREACHABLE) gets nothing more: what it has not confirmed stays in the outbox,
 * and the summary names why.
 */
import type { Reachability } from '../kit/reachability';
import type { PublishResult, StatusTable, Target } from '../kit/target';
import type { PlanItem, TargetSummary, TestRecord } from '../shared/model';
import { addFiles, addNotSent, addReadBack, countSent, type EndStage } from './end-of-run';
import type { ResultLedger } from './ledger';
import type { Outbox } from './outbox';
import { publishCall } from './publish-call';
import type { UploadQueue } from './uploads';

export interface EndSends {
  id: string;
  target: Target;
  ledger: ResultLedger;
  uploads: UploadQueue;
  outbox?: Outbox;
  reachability?: Reachability;
  /** The plan's size (the progress line's total) and the stage the end is at. */
  onTotal: (total: number) => void;
  onStage: (stage: EndStage) => void;
}

/**
 * Sends what is not confirmed, alongside the stream's batch in flight (its keys are left out, so no key
 * is ever sent twice at once); once that batch is done, its keys it did not get confirmed go too.
 */
export async function sendTheRest(
  e: EndSends,
  records: readonly TestRecord[],
  mappedCount: number,
  statuses: StatusTable,
  summary: TargetSummary,
  stream: { inFlight: ReadonlyMap<string, PlanItem>; drained: Promise<void> },
): Promise<void> {
  const t = e.target;
  const plan = t.plan(records, statuses);
  e.onTotal(plan.length);
  const unconfirmed = () => plan.filter((item) => !e.ledger.nothingToSend(item));
  const failed: PublishResult['failed'] = [];
  const send = async (items: PlanItem[]): Promise<void> => {
    if (!items.length || mappedCount === 0) return;
    try {
      const result = e.ledger.refuse(await publishCall(t, e.uploads, items, (done) => e.ledger.confirm(done)));
      e.ledger.confirm(result.done);
      failed.push(...result.failed.filter((f) => !f.refused));
    } catch (error) {
      summary.unsent += items.length;
      summary.errors.push((error as Error).message);
    }
  };
  await Promise.all([send(unconfirmed().filter((item) => !stream.inFlight.has(item.key))), stream.drained]);
  if (!e.reachability?.down) await send(unconfirmed().filter((item) => stream.inFlight.has(item.key)));
  const sent = e.ledger.sent(plan);
  countSent(summary, sent, statuses);
  const lost = e.reachability?.down;
  if (lost) {
    // Given up (no answer): no file and no read-back would get one either. One line names the cause (each
    // result's own line would only repeat it), and every result not confirmed stays in the outbox.
    addNotSent(
      summary,
      failed.filter((f) => f.reason !== lost.message),
      e.ledger.refusedIn(plan),
    );
    summary.unsent = unconfirmed().length;
    summary.errors = [`${lost.message}; gave up on it for this run`, ...summary.errors.filter((m) => m !== lost.message)];
    return;
  }
  addNotSent(summary, failed, e.ledger.refusedIn(plan));
  // Files of results confirmed earlier (streamed, or by an earlier process) too: each goes up once. The
  // read-back goes alongside: it reads statuses, which files do not change.
  e.onStage('attachments');
  const readBack = sent.length
    ? t.verify(sent).then(
        (verify) => ({ verify }),
        (error: Error) => ({ error }),
      )
    : undefined;
  const files = await e.uploads.finish(sent);
  addFiles(summary, files);
  const complete = summary.unsent === 0 && !files.failed.length;
  if (complete && !readBack) e.outbox?.complete(e.id);
  if (readBack) {
    e.onStage('read-back');
    const read = await readBack;
    addReadBack(summary, read);
    // Results the read-back found missing and could not send itself stay journaled: a replay's read-back sends them.
    if (complete && !('verify' in read && read.verify.incomplete)) e.outbox?.complete(e.id);
  }
}
