import { checkStep, type CheckLine } from '../../kit/target';
import type { XrayClient } from './client';
import type { XrayConfig } from './config';
import { executionByKey, executionsNamed, PLAN_HINT } from './executions';
import { statuses, testPlan } from './queries';
import { resolveXrayStatuses } from './statuses';

/**
 * The `check` command for Xray: read-only. Authentication and one data call (a tenant in another region
 * authenticates and then refuses data calls, §0.1), statuses, the execution, the plan; it names the host it used.
 */
export async function checkXray(cfg: XrayConfig, client: XrayClient): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  let known: string[] = [];
  const ok = await checkStep(lines, async () => {
    known = await statuses(client);
    return `credentials accepted and data readable at ${cfg.baseUrl}`;
  });
  if (!ok) return lines;
  await checkStep(lines, async () => {
    const t = resolveXrayStatuses(cfg.statusMap, known, false);
    return `statuses: ${Object.entries(t.byOutcome)
      .map(([o, s]) => `${o} → ${s}`)
      .join(', ')}`;
  });
  if (cfg.testExecutionKey) {
    await checkStep(lines, async () => {
      const e = await executionByKey(client, cfg.testExecutionKey!);
      return `Test Execution ${e.key} ("${e.summary}") found (XRAY_TEST_EXECUTION_KEY)`;
    });
  } else {
    await checkStep(lines, async () => {
      const found = (await executionsNamed(client, cfg.projectKey!, cfg.testExecutionSummary))[0];
      return found
        ? `Test Execution "${cfg.testExecutionSummary}" exists in project ${cfg.projectKey} (${found.key}) and will be reused`
        : `project ${cfg.projectKey} readable; Test Execution "${cfg.testExecutionSummary}" does not exist yet and will be created`;
    });
  }
  if (cfg.testPlanKey) {
    const plan = cfg.testPlanKey;
    await checkStep(lines, async () => {
      if (!(await testPlan(client, plan))) throw new Error(`Xray has no Test Plan ${plan}: check ${PLAN_HINT(plan)}.`);
      return `Test Plan ${plan} found`;
    });
  }
  return lines;
}
