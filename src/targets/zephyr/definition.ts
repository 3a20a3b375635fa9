import { openLane } from '../../kit/lanes';
import type { TargetDefinition } from '../../kit/target';
import { jiraKeysOf, jiraNotKeys } from '../jira-keys';
import { ZephyrClient } from './client';
import { OPTION_KEYS, readZephyrConfig, zephyrSecrets, type ZephyrConfig } from './config';
import type { JobWaitOptions } from './jobs';
import { ZephyrTarget } from './publisher';
import { zephyrPriority } from './batching';

/** Zephyr Squad Cloud: Jira test issues by key (`@PROJ-1` or a `zephyr` annotation) in a test cycle. */
export const zephyr: TargetDefinition<ZephyrConfig> = {
  id: 'zephyr',
  label: 'Zephyr Squad',
  containerKind: 'cycle',
  containerSetting: { env: 'ZEPHYR_CYCLE_ID', what: 'id' },
  optionsKey: 'zephyr',
  envPrefix: 'ZEPHYR',
  enableHint: 'ZEPHYR_ACCESS_KEY/ZEPHYR_SECRET_KEY',
  command: 'cycle',
  optionKeys: OPTION_KEYS,
  readConfig: readZephyrConfig,
  // Split mode: a folder per Playwright project in the cycle (see folder-places).
  places: true,
  secrets: zephyrSecrets,
  // A Jira-key tag goes to every enabled Jira target (Xray too); a `zephyr` annotation to Zephyr only.
  keysOf: (test) => jiraKeysOf(test, 'zephyr'),
  notKeys: (test) => jiraNotKeys(test, 'zephyr'),
  // Where results go, and the statusMap (it has no env var; a replay sees only the env): a replay maps outcomes as the run did.
  journalMeta: (c) => ({
    settings: {
      projectId: c.projectId,
      versionId: c.versionId,
      statusMap: c.statusMap,
      failureComments: c.failureComments,
      commentLimit: c.commentLimit,
      stepResults: c.stepResults,
    },
    containerName: c.cycleName,
    containerId: c.cycleId,
  }),
  create(config, deps) {
    const rate = zephyrPacing(config, deps.processes ?? 1);
    const lane = openLane(deps, { name: 'Zephyr', concurrency: 4, rateLimit: rate, priorityOf: zephyrPriority });
    const client = new ZephyrClient(config, lane, deps.send, deps.secrets);
    const tuning = (deps.tuning?.zephyr ?? {}) as JobWaitOptions;
    const jobs = { ...tuning, ...jobPolling(rate, tuning), signal: deps.deadline?.expired, reachability: deps.reachability };
    return new ZephyrTarget(config, client, lane, jobs, {
      runInfo: deps.runInfo,
      runMark: deps.runMark,
      replay: deps.replay,
      // When the window has room for them, a job's looks come at the unpaced first delay, then every 2.5 of it
      // (500 ms by default): a job done between two looks is seen within half a second (see ZephyrBudget.polling).
      roomyJobs: { ...tuning, ...roomyPolling(tuning), signal: deps.deadline?.expired },
    });
  },
};

/**
 * How often a job is looked at. Under a small budget (a shard's few calls a minute) a poll is a call
 * taken from the results: no more often than the budget allows one call, not every 200 ms. The first
 * look comes when a job is usually done (a few seconds), not a whole share later: at the end of a run
 * that wait is the tail.
 */
export function jobPolling(
  rate: { count: number; windowMs: number } | null,
  tuning: JobWaitOptions = {},
): { firstPollMs: number; maxPollMs: number } {
  const share = rate ? rate.windowMs / rate.count : 0;
  const firstPollMs = Math.max(tuning.firstPollMs ?? 200, rate ? (tuning.pacedFirstPollMs ?? 3_000) : 0);
  return { firstPollMs, maxPollMs: Math.max(tuning.maxPollMs ?? 2_000, share, firstPollMs) };
}

/** Job polling when the pacing window has the looks free: the unpaced first look, then a look every 2.5 of it. */
export function roomyPolling(tuning: JobWaitOptions = {}): { firstPollMs: number; maxPollMs: number } {
  const { firstPollMs } = jobPolling(null, tuning);
  return { firstPollMs, maxPollMs: firstPollMs * 2.5 };
}

/**
 * About 30 calls per minute per user, counted across every process on the key (field evidence). Every
 * process paces itself below it, shards sharing the budget: a 429 costs the service's whole wait (34 s
 * was measured), and left to 429s alone the end of a run often begins with the window still full.
 */
export function zephyrPacing(config: ZephyrConfig, processes: number): { count: number; windowMs: number } | null {
  if (config.rateLimit !== undefined) return config.rateLimit;
  return { count: Math.max(1, Math.floor(28 / Math.max(1, processes))), windowMs: 60_000 };
}
