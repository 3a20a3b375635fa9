import type { ResolvedConfig } from '../config';
import type { HttpSend } from '../http/client';
import { RequestLane, type LaneOptions } from '../publish/lane';
import type { Target } from '../publish/target';
import { ZephyrClient } from './zephyr/client';
import { ZephyrTarget } from './zephyr/publisher';
import type { JobWaitOptions } from './zephyr/jobs';
import { CucumberStudioClient } from './cucumberstudio/client';
import { CucumberStudioTarget, type CsTargetOptions } from './cucumberstudio/publisher';

/** Knobs for tests and benchmarks (injected, never read from env). */
export interface TargetDeps {
  send: HttpSend;
  lane?: Partial<LaneOptions>;
  zephyrJobs?: JobWaitOptions;
  cucumberstudio?: CsTargetOptions;
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
  if (config.cucumberstudio) {
    const c = config.cucumberstudio;
    // CucumberStudio counts 200/min per IP and locks out for 60 s past it: pace below the limit.
    const lane = new RequestLane({ name: 'CucumberStudio', concurrency: 8, rateLimit: c.rateLimit, onRetry: deps.onRetry, ...deps.lane });
    const client = new CucumberStudioClient(c, lane, deps.send, config.secrets);
    targets.push(new CucumberStudioTarget(c, client, lane, deps.cucumberstudio));
  }
  return targets;
}
