import { RequestLane, type LaneOptions } from './lane';

/** What of a target's deps a lane takes (TargetDeps has them all). */
export interface LaneDeps {
  onRetry?: LaneOptions['onRetry'];
  deadline?: LaneOptions['deadline'];
  reachability?: LaneOptions['reachability'];
  /** The tests' knobs, applied last. */
  lane?: Partial<LaneOptions>;
  lanes?: LaneSet;
}

/**
 * The lanes one target opened, as the engine sees them: it counts their calls for the summary and closes
 * them at the end (a lane that paces with other processes leaves them then), so no service does either.
 */
export class LaneSet {
  private readonly lanes: RequestLane[] = [];

  add(lane: RequestLane): RequestLane {
    this.lanes.push(lane);
    return lane;
  }

  /** Requests made so far through every lane. */
  calls(): number {
    return this.lanes.reduce((sum, lane) => sum + lane.stats.calls, 0);
  }

  close(): void {
    for (const lane of this.lanes) lane.close();
  }
}

/**
 * A target's lane: the service's own options (name, concurrency, pacing, worth of calls), with the run's
 * deadline, reachability and retry hook, and the tests' knobs (`deps.lane`) last. Handed to the engine's
 * LaneSet (`deps.lanes`), which counts its calls and closes it.
 */
export function openLane(deps: LaneDeps, options: LaneOptions): RequestLane {
  const lane = new RequestLane({
    onRetry: deps.onRetry,
    deadline: deps.deadline,
    reachability: deps.reachability,
    ...options,
    ...deps.lane,
  });
  deps.lanes?.add(lane);
  return lane;
}
