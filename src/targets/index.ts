import type { ResolvedConfig } from '../config';
import type { HttpSend } from '../http/client';
import { RequestLane, type LaneOptions } from '../publish/lane';
import type { Target } from '../publish/target';
import { ZephyrClient } from './zephyr/client';
import { ZephyrTarget } from './zephyr/publisher';
import type { JobWaitOptions } from './zephyr/jobs';

/** Knobs for tests and benchmarks (injected, never read from env). */
export interface TargetDeps {
  send: HttpSend;
  lane?: Partial<LaneOptions>;
  zephyrJobs?: JobWaitOptions;
  onRetry?: LaneOptions['onRetry'];
}

/** The enabled targets of a config. The only file that knows every service folder. */
export function createTargets(config: ResolvedConfig, deps: TargetDeps): Target[] {
  const targets: Target[] = [];
  if (config.zephyr) {
    const z = config.zephyr;
    const lane = new RequestLane({ name: 'Zephyr', concurrency: 4, rateLimit: z.rateLimit, onRetry: deps.onRetry, ...deps.lane });
    const client = new ZephyrClient(z, lane, deps.send, config.secrets);
    targets.push(new ZephyrTarget(z, client, lane, deps.zephyrJobs));
  }
  return targets;
}
