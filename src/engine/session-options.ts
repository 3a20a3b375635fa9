import type { LaneSet } from '../kit/lanes';
import type { Reachability } from '../kit/reachability';
import type { Printer } from '../shared/output';
import type { Outbox } from './outbox';

/** What a session is handed besides its target. */
export interface SessionOptions {
  outbox?: Outbox;
  log: Pick<Printer, 'info' | 'error'>;
  /** Items already confirmed by an earlier attempt (replay): key -> fingerprint, or status for old journals. */
  alreadyDone?: ReadonlyMap<string, string | number>;
  /** Files journaled as attached by an earlier attempt (`key \0 fileName`). */
  attached?: ReadonlySet<string>;
  /** Keys the service refused in an earlier attempt (key -> why): not sent again. */
  refused?: ReadonlyMap<string, string>;
  maxAttachmentBytes: number;
  /** Replay: look before uploading (an earlier process may have sent without journaling). */
  replay: boolean;
  /** Another process of this CI build may publish the same keys (RunInfo.buildId not `local …`): files go by `attach`. */
  sharedBuild?: boolean;
  /** Estimated ms until the last test finishes (Infinity when unknown), for the stream's batches. */
  endInMs?: () => number;
  /** Tests: no stream batch waits longer than this for more results (the target's own `maxWaitMs` otherwise). */
  batchWaitMs?: number;
  secrets?: readonly string[];
  /** Whether the service is given up for this run (no answer): the end then stops sending and says why. */
  reachability?: Reachability;
  /** The lanes the target's calls go through (TargetDeps.lanes): counted for the summary, closed by `close`. */
  lanes?: LaneSet;
}
