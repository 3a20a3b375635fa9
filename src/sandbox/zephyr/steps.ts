import type { Issue, StatusDef } from './entities';

/**
 * Test steps of the virtual issues (a Zephyr Squad test is a Jira issue whose steps live in Zephyr, §3.7).
 * Steps are not stored: they are derived from the issue, so their ids are stable across resets and restarts.
 */
export interface TestStepsOption {
  /** Steps of every issue not listed in `byKey`. Default 3. */
  perIssue?: number;
  /** Step count per issue key, e.g. `{ 'PROJ-7': 0, 'PROJ-8': 5 }` (0 = a test without steps). */
  byKey?: Record<string, number>;
  /** Tenant step statuses listed after the 5 built-ins (type 1). Default none. */
  customStatuses?: { id: number; name: string; color?: string; description?: string }[];
}

/** A test step as `GET {api}/teststep/{issueId}` lists it (§3.7). */
export interface TestStep {
  id: string;
  orderId: number;
  step: string;
  data: string;
  result: string;
  issueId: number;
}

/** More would only make the state view unwieldy; production's own limit is not known. */
export const MAX_STEPS_PER_ISSUE = 100;

/**
 * Step statuses: the same ids, names and colours as execution statuses (§3.2: "step-result statuses use the same
 * five defaults" [I]); the descriptions are the step wording of Zephyr Squad Server [I]. Tenants configure step
 * statuses separately from execution statuses, so the execution's custom statuses are not step statuses here.
 */
export const BUILTIN_STEP_STATUSES: readonly StatusDef[] = [
  { id: -1, name: 'UNEXECUTED', description: 'The test step has not yet been executed.', color: '#A0A0A0', type: 0 },
  { id: 1, name: 'PASS', description: 'Test step was executed and passed successfully.', color: '#75B000', type: 0 },
  { id: 2, name: 'FAIL', description: 'Test step was executed and failed.', color: '#CC3300', type: 0 },
  { id: 3, name: 'WIP', description: 'Test step execution is a work-in-progress.', color: '#F2B000', type: 0 },
  { id: 4, name: 'BLOCKED', description: 'The test step execution of this test was blocked for some reason.', color: '#6693B0', type: 0 },
];

/** Which steps each issue has, and the step statuses; validated once when the module is created. */
export class StepCatalog {
  readonly statuses: StatusDef[];
  private readonly perIssue: number;
  private readonly byKey: Map<string, number>;

  constructor(option: TestStepsOption = {}, projectKey: string) {
    this.perIssue = stepCount(option.perIssue ?? 3, 'testSteps.perIssue');
    this.byKey = new Map();
    for (const [key, n] of Object.entries(option.byKey ?? {})) {
      if (!key.startsWith(`${projectKey}-`))
        throw new Error(`zephyr sandbox: testSteps.byKey: ${key} is not a key of project ${projectKey}`);
      this.byKey.set(key, stepCount(n, `testSteps.byKey['${key}']`));
    }
    this.statuses = BUILTIN_STEP_STATUSES.map((s) => ({ ...s }));
    for (const c of option.customStatuses ?? []) {
      if (this.statuses.some((s) => s.id === c.id)) throw new Error(`zephyr sandbox: step status id ${c.id} is already used`);
      this.statuses.push({ id: c.id, name: c.name, description: c.description ?? '', color: c.color ?? '#FF8000', type: 1 });
    }
  }

  status(id: number): StatusDef | undefined {
    return this.statuses.find((s) => s.id === id);
  }

  /** The issue's steps in `orderId` order (1..n); ids are `step-<issueId>-<orderId>`, unique and stable. */
  stepsOf(issue: Issue): TestStep[] {
    const n = this.byKey.get(issue.key) ?? this.perIssue;
    return Array.from({ length: n }, (_, i) => ({
      id: `step-${issue.id}-${i + 1}`,
      orderId: i + 1,
      step: `Step ${i + 1} of ${issue.key}`,
      data: '',
      result: `Step ${i + 1} of ${issue.key} passes`,
      issueId: issue.id,
    }));
  }
}

function stepCount(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_STEPS_PER_ISSUE) {
    throw new Error(`zephyr sandbox: ${name} must be an integer 0..${MAX_STEPS_PER_ISSUE}, got ${JSON.stringify(value)}`);
  }
  return value;
}
