import { openLane } from '../../kit/lanes';
import type { TargetDefinition } from '../../kit/target';
import { annotationValues, tagValues, unique, type TestLike } from '../../shared/mapping';
import { ZephyrClient } from './client';
import { OPTION_KEYS, readZephyrConfig, zephyrSecrets, type ZephyrConfig } from './config';
import type { JobWaitOptions } from './jobs';
import { ZephyrTarget } from './publisher';
import { zephyrPriority } from './batching';

/** A Jira key as Jira writes it (upper case); tags and annotations are read in any case and upper-cased. */
const JIRA_KEY = /^[A-Z][A-Z0-9_]*-\d+$/;
const KEY_TAG = /^@([A-Za-z][A-Za-z0-9_]*-\d+)$/;
/** `@cs-<id>` in lower case is CucumberStudio's scenario tag, never a Jira key (`@CS-12` is one). */
const SCENARIO_TAG = /^@cs-\d+$/;

/** An annotation's key: `proj-1` as `PROJ-1`, and a Jira issue link (`…/browse/PROJ-1`) as its key. */
function annotationKey(value: string): string {
  return (/\/browse\/([A-Za-z][A-Za-z0-9_]*-\d+)\/?(?:[?#].*)?$/.exec(value)?.[1] ?? value).toUpperCase();
}

/** Jira keys of a test's tags (`@PROJ-1`, `@proj-1`), upper case; `@cs-<id>` is left to CucumberStudio. */
function tagKeys(test: Pick<TestLike, 'tags'>): string[] {
  return tagValues(test, KEY_TAG)
    .filter((k) => !SCENARIO_TAG.test(`@${k}`))
    .map((k) => k.toUpperCase());
}

/** Zephyr Squad Cloud: Jira test issues by key (`@PROJ-1` or a `zephyr` annotation) in a test cycle. */
export const zephyr: TargetDefinition<ZephyrConfig> = {
  id: 'zephyr',
  label: 'Zephyr Squad',
  containerKind: 'cycle',
  optionsKey: 'zephyr',
  envPrefix: 'ZEPHYR',
  enableHint: 'ZEPHYR_ACCESS_KEY/ZEPHYR_SECRET_KEY',
  command: 'cycle',
  optionKeys: OPTION_KEYS,
  readConfig: readZephyrConfig,
  secrets: zephyrSecrets,
  keysOf: (test) =>
    unique([
      ...annotationValues(test, 'zephyr')
        .map(annotationKey)
        .filter((k) => JIRA_KEY.test(k)),
      ...tagKeys(test),
    ]),
  notKeys: (test) => [
    ...unique(annotationValues(test, 'zephyr').filter((v) => !JIRA_KEY.test(annotationKey(v)))).map((value) => ({
      value,
      from: 'annotation' as const,
    })),
    // Said when CucumberStudio is not configured to take it: the user may have meant the Jira project CS.
    ...unique(tagValues(test, SCENARIO_TAG)).map((value) => ({
      value,
      from: 'tag' as const,
      hint: `lower-case @cs-<id> is a CucumberStudio scenario; a key of the Jira project CS is tagged ${value.toUpperCase()}`,
    })),
  ],
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
