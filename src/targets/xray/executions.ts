/**
 * The Test Execution a run publishes into (§8.2 steps 3-4): the configured key looked up for its issue id, or
 * the project's execution whose summary is exactly the configured one (JQL `~` is a text search: exact matches
 * are kept here, the lowest issue id first, so every process settles on the same one), else created once — a
 * create that failed ambiguously is looked for before it is tried again (kit/find-or-create). Then linked to the
 * Test Plan when one is configured.
 */
import { withHint } from '../../http/errors';
import { findOrCreate } from '../../kit/find-or-create';
import { SettingsRefusedError } from '../../kit/target';
import type { RequestLane } from '../../kit/lane';
import type { XrayClient } from './client';
import type { XrayConfig } from './config';
import { createExecutionOnce, executions, jqlString, linkToPlan, testPlan, type ExecutionRef } from './queries';

export const KEY_HINT = (key: string) => `XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey) = ${key}`;
export const PLAN_HINT = (key: string) => `XRAY_TEST_PLAN_KEY (xray.testPlanKey) = ${key}`;
/** A replay's key from the run's journal: the env var may be unset, or name another (README "Commands"). */
const JOURNAL_KEY_HINT = (key: string) =>
  `Test Execution ${key}, named by the run's journal; to replay into another, set XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey)`;

/** The configured execution (or, in a replay, the journal's: `fromJournal`, said so rather than blaming the env var). */
export async function executionByKey(client: XrayClient, key: string, fromJournal = false): Promise<ExecutionRef> {
  const hint = fromJournal ? JOURNAL_KEY_HINT(key) : KEY_HINT(key);
  const found = (await withHint(executions(client, `key = ${jqlString(key)}`), hint)).find((e) => e.key === key);
  if (!found) throw new Error(`Xray has no Test Execution ${key}: check ${hint}.`);
  return found;
}

/** The project's executions with exactly this summary, lowest issue id first. */
export async function executionsNamed(client: XrayClient, project: string, summary: string): Promise<ExecutionRef[]> {
  const jql = `project = ${jqlString(project)} AND summary ~ ${jqlString(`"${summary}"`)}`;
  const found = await withHint(executions(client, jql), `XRAY_PROJECT_KEY (xray.projectKey) = ${project}`);
  return found.filter((e) => e.summary === summary).sort((a, b) => Number(a.issueId) - Number(b.issueId));
}

export interface ExecutionChoice {
  execution: ExecutionRef;
  reused: boolean;
}

export async function resolveExecution(
  cfg: XrayConfig,
  client: XrayClient,
  lane: RequestLane,
  about: {
    description?: string;
    /** Split mode: the project's execution has a summary of its own (default: the configured one). */
    summary?: string;
    environments: readonly string[];
    followerWaitMs?: number;
    signal?: AbortSignal;
  },
): Promise<ExecutionChoice> {
  if (cfg.testExecutionKey) return { execution: await executionByKey(client, cfg.testExecutionKey, cfg.keyFromJournal), reused: true };
  const project = cfg.projectKey!;
  const summary = about.summary ?? cfg.testExecutionSummary;
  const { value, reused } = await findOrCreate<ExecutionRef>({
    lane,
    label: 'createTestExecution',
    find: () => executionsNamed(client, project, summary),
    create: () => createExecutionOnce(client, { summary, project, description: about.description }, about.environments),
    idOf: (e) => e.issueId,
    // Xray's API deletes no issue: a duplicate this process made stays empty, and every process uses the lowest id.
    discard: async () => undefined,
    followerWaitMs: about.followerWaitMs,
    signal: about.signal,
  });
  return { execution: value, reused };
}

/**
 * Links the execution to the configured Test Plan (§6.7): a plan that does not exist is one clear line, and a setting
 * the service refused (like a status name it does not have): the journal says so, and a replay takes the plan from
 * the config of then rather than from the run (which never resolved it).
 */
export async function linkPlan(client: XrayClient, planKey: string, execution: ExecutionRef): Promise<void> {
  const plan = await withHint(testPlan(client, planKey), PLAN_HINT(planKey));
  if (!plan) throw new SettingsRefusedError(['testPlanKey'], `Xray has no Test Plan ${planKey}: check ${PLAN_HINT(planKey)}.`);
  await linkToPlan(client, plan.issueId, execution.issueId);
}
