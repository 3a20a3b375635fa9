import { openLane } from '../../kit/lanes';
import { FilePacingPeers, machinePacingDir } from '../../kit/pacing-peers';
import type { TargetDefinition } from '../../kit/target';
import { annotationValues, tagValues, unique } from '../../shared/mapping';
import { CucumberStudioClient } from './client';
import { OPTION_KEYS, cucumberStudioSecrets, readCucumberStudioConfig, type CucumberStudioConfig } from './config';
import { CucumberStudioTarget, type CsTargetOptions } from './publisher';
import { PushClient } from './push-client';

/** Lower case: `@CS-712` is a Jira key (project CS), not a scenario. */
const SCENARIO_TAG = /^@cs-(\d+)$/;

/** CucumberStudio: scenarios by id (`@cs-123` or a `cucumberstudio` annotation) in a test run. */
export const cucumberstudio: TargetDefinition<CucumberStudioConfig> = {
  id: 'cucumberstudio',
  label: 'CucumberStudio',
  containerKind: 'test run',
  containerSetting: { env: 'CUCUMBERSTUDIO_TEST_RUN_ID', what: 'id' },
  optionsKey: 'cucumberstudio',
  envPrefix: 'CUCUMBERSTUDIO',
  enableHint: 'CUCUMBERSTUDIO_UID/CUCUMBERSTUDIO_ACCESS_TOKEN',
  command: 'test-run',
  // Split mode: one execution environment per Playwright project, each with the CI build's build.
  places: true,
  optionKeys: OPTION_KEYS,
  readConfig: readCucumberStudioConfig,
  secrets: cucumberStudioSecrets,
  // Ids are kept as their decimal text: every key is a string to the engine and the journal.
  keysOf: (test) =>
    unique(
      [...annotationValues(test, 'cucumberstudio').filter((s) => /^\d+$/.test(s)), ...tagValues(test, SCENARIO_TAG)].map((s) =>
        String(Number(s)),
      ),
    ),
  notKeys: (test) => [
    ...unique(annotationValues(test, 'cucumberstudio').filter((s) => !/^\d+$/.test(s))).map((value) => ({
      value,
      from: 'annotation' as const,
    })),
    // A scenario tag in a wrong form (`@cs-12a`, `@cs_12`, `@cs12`): `@cs-<id>` with the id's digits only.
    ...unique(tagValues(test, /^@cs[-_]?\d\S*$/).filter((t) => !SCENARIO_TAG.test(t))).map((value) => ({
      value,
      from: 'tag' as const,
      hint: 'a scenario tag is @cs-<id>, the id in digits',
    })),
  ],
  // Where results go, and the statusMap (it has no env var; a replay sees only the env): a replay maps outcomes as the run did.
  journalMeta: (c) => ({
    settings: { projectId: c.projectId, statusMap: c.statusMap },
    containerName: c.testRunName,
    containerId: c.testRunId === undefined ? undefined : String(c.testRunId),
  }),
  create(config, deps) {
    const lane = openLane(deps, {
      name: 'CucumberStudio',
      concurrency: 8,
      rateLimit: config.rateLimit,
      // 200 calls a minute per IP: parallel jobs on this machine share it, so they pace together.
      peers: config.rateLimit
        ? new FilePacingPeers(machinePacingDir(new URL(config.baseUrl).origin), config.rateLimit.windowMs)
        : undefined,
      // One result per call: the results themselves are the statuses; files (and the look before one) trail them.
      priorityOf: (label) => (label.startsWith('attachments/') ? 'file' : 'status'),
    });
    const client = new CucumberStudioClient(config, lane, deps.send, deps.secrets);
    const tuning = (deps.tuning?.cucumberstudio ?? {}) as CsTargetOptions;
    const wait = { ...tuning.wait, signal: deps.deadline?.expired, reachability: deps.reachability };
    return new CucumberStudioTarget(config, client, lane, {
      ...tuning,
      wait,
      replay: deps.replay ?? tuning.replay,
      since: deps.since,
      description: deps.runInfo?.description,
      buildName: deps.runInfo?.buildId,
      // The token routes share the lane: the service's 200 calls a minute count every call.
      push: config.secretToken ? new PushClient({ ...config, secretToken: config.secretToken }, lane, deps.send, deps.secrets) : undefined,
    });
  },
};
