import { checkStep, type CheckLine } from '../../kit/target';
import type { TestRecord } from '../../shared/model';
import { asArray, type CucumberStudioClient } from './client';
import type { CucumberStudioConfig } from './config';
import type { RunLifecycle } from './run-lifecycle';
import type { CsStatus } from './statuses';
import type { PushClient } from './push-client';

/** The `check` command: credentials, project and run, read-only; and the status table in use. */
export async function checkSettings(
  cfg: CucumberStudioConfig,
  client: CucumberStudioClient,
  lifecycle: RunLifecycle,
  byOutcome: Record<TestRecord['outcome'], CsStatus>,
  push?: PushClient,
): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const step = (fn: () => Promise<string>) => checkStep(lines, fn);
  const ok = await step(async () => {
    const project = asArray((await client.getProject()).data)[0];
    return `credentials accepted; project ${cfg.projectId} ("${String(project?.attributes?.name ?? '')}") found`;
  });
  if (!ok) return lines;
  if (cfg.testRunId !== undefined) {
    await step(async () => {
      const run = asArray((await client.getRun(cfg.testRunId!)).data)[0];
      if (run?.attributes?.archived) throw new Error(`test run ${cfg.testRunId} is archived (CUCUMBERSTUDIO_TEST_RUN_ID)`);
      return `test run ${cfg.testRunId} ("${String(run?.attributes?.name ?? '')}") found (CUCUMBERSTUDIO_TEST_RUN_ID)`;
    });
  } else {
    await step(async () => {
      // The lowest id, as begin picks it: a parallel shard's duplicate keeps the name (marked in its description).
      const found = (await lifecycle.activeRuns(cfg.testRunName))[0];
      return found
        ? `test run "${cfg.testRunName}" exists (id ${found.id}) and will be reused`
        : `test run "${cfg.testRunName}" does not exist yet and will be created`;
    });
  }
  // Read-only: the token route that lists the project's runs (the push itself is never tried here).
  if (push)
    await step(async () => {
      const runs = await push.runCount();
      return `project secret token accepted (CUCUMBERSTUDIO_SECRET_TOKEN; ${runs} test runs readable): results go by bulk push`;
    });
  lines.push({
    ok: true,
    text: `statuses: ${Object.entries(byOutcome)
      .map(([o, s]) => `${o} → ${s}`)
      .join(', ')}`,
  });
  return lines;
}
