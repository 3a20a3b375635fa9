import type { PublishResult, Target } from '../kit/target';
import type { PlanItem } from '../shared/model';
import type { UploadQueue } from './uploads';

/**
 * One status call (the stream's or the end's), carrying the files the target takes inline (Target.inlineEvidence):
 * the items it confirmed are recorded first (a file is journaled after its result), then the files it carried are
 * done and the others go to the upload queue. Rejects as `publish` does.
 */
export async function publishCall(
  target: Target,
  uploads: UploadQueue,
  items: readonly PlanItem[],
  onDone: (items: readonly PlanItem[]) => void,
): Promise<PublishResult> {
  const offer = uploads.offerInline(items);
  let result: PublishResult | undefined;
  try {
    result = await target.publish(items, onDone, offer?.files);
    onDone(result.done);
    return result;
  } finally {
    uploads.settleInline(offer, result?.carried, result?.done ?? []);
  }
}
