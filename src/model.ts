/** Domain types shared by the reporter, the engine, the targets and replay. */

/**
 * The final outcome of one Playwright test after retries (one per test, never per attempt).
 * `passed` includes `test.fail()` tests that failed as expected.
 */
export type Outcome = 'passed' | 'flaky' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';

export const OUTCOMES: readonly Outcome[] = ['passed', 'flaky', 'failed', 'timedOut', 'skipped', 'interrupted'];

export type TargetId = 'zephyr' | 'cucumberstudio';

/** What the reporter knows of one finished test; journaled to the outbox as-is (no secrets in here). */
export interface TestRecord {
  testId: string;
  /** Project name › file › describe › title, for comments and messages. */
  title: string;
  /** Jira issue keys this test reports to (Zephyr). */
  zephyrKeys: string[];
  /** CucumberStudio scenario ids this test reports to. */
  scenarioIds: number[];
  outcome: Outcome;
  /** ANSI-stripped error text of the last failing attempt (truncated), if any. */
  error?: string;
  /** Number of attempts that ran (1 + retries used). */
  attempts: number;
}

/** One publishable result for one test in a service, after worst-wins aggregation. */
export interface PlanItem<K = string> {
  key: K;
  outcome: Outcome;
  /** Service status: Zephyr numeric id, CucumberStudio status name. */
  status: number | string;
  /** Text for the execution comment / result description ('' when none). */
  comment: string;
  /** Titles of the Playwright tests that fed this result. */
  tests: string[];
}

export interface VerifyReport {
  ok: boolean;
  /** One sentence per check that failed, or what was checked when ok. */
  details: string[];
  /** Container status as the service reports it (Zephyr cycle status, CucumberStudio counters). */
  containerStatus?: string;
}

/** Machine-readable outcome of one target's publish (goes to the summary JSON). */
export interface TargetSummary {
  target: TargetId;
  enabled: boolean;
  container?: { kind: 'cycle' | 'test run'; id?: string; name?: string; reused?: boolean };
  published: number;
  countsByStatus: Record<string, number>;
  unmapped: number;
  notRun: number;
  errors: string[];
  /** Settings that were resolved against the service with a fallback (e.g. an unknown status name). */
  warnings?: string[];
  unsent: number;
  outbox?: string;
  verify?: VerifyReport;
  calls: number;
  durationMs: number;
  dryRun?: boolean;
}

export interface RunSummary {
  version: 1;
  startedAt: string;
  finishedAt: string;
  targets: Partial<Record<TargetId, TargetSummary>>;
}
