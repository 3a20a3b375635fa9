import type { CallPriority } from '../../kit/lane';
import { openLane } from '../../kit/lanes';
import type { TargetDefinition } from '../../kit/target';
import { jiraKeysOf, jiraNotKeys } from '../jira-keys';
import { XrayClient } from './client';
import { OPTION_KEYS, readXrayConfig, xraySecrets, type XrayConfig } from './config';
import { XrayTarget } from './publisher';
import { READ_BACK } from './read-back';

/** Xray Cloud: Jira Test issues by key (`@PROJ-1` or an `xray` annotation) in a Test Execution. */
export const xray: TargetDefinition<XrayConfig> = {
  id: 'xray',
  label: 'Xray',
  containerKind: 'Test Execution',
  containerSetting: { env: 'XRAY_TEST_EXECUTION_KEY', what: 'key' },
  optionsKey: 'xray',
  envPrefix: 'XRAY',
  enableHint: 'XRAY_CLIENT_ID/XRAY_CLIENT_SECRET',
  command: 'test-execution',
  // Split mode: one Test Execution per Playwright project (execution-places.ts).
  places: true,
  containerPerPlace: { nameSetting: 'XRAY_TEST_EXECUTION_SUMMARY (xray.testExecutionSummary)' },
  optionKeys: OPTION_KEYS,
  readConfig: readXrayConfig,
  secrets: xraySecrets,
  // A Jira-key tag goes to every enabled Jira target (Zephyr too); an `xray` annotation to Xray only.
  keysOf: (test) => jiraKeysOf(test, 'xray'),
  notKeys: (test) => jiraNotKeys(test, 'xray'),
  // Where results go and what they say; the statusMap has no env var (a replay sees only the env).
  journalMeta: (c) => ({
    settings: { projectKey: c.projectKey, testPlanKey: c.testPlanKey, statusMap: c.statusMap },
    containerName: c.testExecutionSummary,
    containerId: c.testExecutionKey,
  }),
  create(config, deps) {
    const lane = openLane(deps, {
      name: 'Xray',
      concurrency: 4,
      rateLimit: xrayPacing(config, deps.processes ?? 1),
      priorityOf: xrayPriority,
    });
    const client = new XrayClient(config, lane, deps.send, deps.secrets);
    return new XrayTarget(config, client, lane, { runInfo: deps.runInfo, replay: deps.replay, signal: deps.deadline?.expired });
  },
};

/**
 * 300 requests per 5 minutes on Standard, REST and GraphQL together, for the tenant (§7): every process paces
 * itself below it, CI shards sharing the budget, and a little is left for other tools on the tenant.
 */
export function xrayPacing(config: XrayConfig, processes: number): { count: number; windowMs: number } | null {
  if (config.rateLimit !== undefined) return config.rateLimit;
  return { count: Math.max(1, Math.floor(290 / Math.max(1, processes))), windowMs: 300_000 };
}

/**
 * Statuses first: the read-back checks statuses already sent (the end reads what it could not), and evidence
 * (a run's look-up, then its files) trails every waiting import, as the other services' uploads do.
 */
const EVIDENCE = new Set(['getTestRun', 'addEvidenceToTestRun']);
export const xrayPriority = (label: string): CallPriority => (label === READ_BACK ? 'text' : EVIDENCE.has(label) ? 'file' : 'status');
