/**
 * The seeded, read-only part of the CucumberStudio stand-in: one project, its root folder, scenarios and
 * datasets. Scenarios are computed on demand from their id, so a project of any size costs nothing until read.
 */
import type { Dataset, Scenario } from './model';

/**
 * Steps of a scenario: a number = that many plain steps; an array = its top-level steps, each entry the number of
 * test steps it expands to (1 = a plain step, n > 1 = a call to an action word of n steps).
 */
export type StepPlan = number | number[];

export interface FixtureConfig {
  uid: string;
  projectId: number;
  projectName: string;
  scenarioCount: number;
  datasetScenarios: Record<number, string[]>;
  duplicateNames: Record<number, string>;
  /** Scenario id → its steps; others get `defaultSteps`. */
  scenarioSteps: Record<number, StepPlan>;
  defaultSteps: StepPlan;
}

export type Step = { action: string } | { result: string };

/** Throws when a step plan is not a whole number >= 0 or an array of whole numbers >= 1. */
export function checkStepPlan(plan: unknown, where: string): StepPlan {
  const whole = (v: unknown, min: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= 1000;
  if (whole(plan, 0) || (Array.isArray(plan) && plan.length <= 1000 && plan.every((n) => whole(n, 1)))) return plan as StepPlan;
  throw new Error(
    `cucumberstudio sandbox: ${where} must be a step count (0..1000) or an array of per-step expansions (each >= 1), got ${JSON.stringify(plan)}`,
  );
}

// Word lists for deterministic, realistic-looking scenario descriptions (sizes are co-prime: varied combinations).
const AREAS = ['checkout', 'catalogue search', 'cart', 'payment', 'account settings', 'order history', 'returns'];
const ACTORS = ['a guest shopper', 'a returning customer', 'a customer with a saved card', 'an administrator', 'a mobile user'];
const CONCERNS = ['totals stay consistent', 'errors are shown inline', 'the page keeps its state after a reload', 'emails are sent once'];

export class CucumberStudioFixtures {
  readonly rootFolderId = 1;
  private readonly datasets = new Map<number, Dataset>();
  private readonly datasetsByScenario = new Map<number, Dataset[]>();
  /** Distinct id ranges per resource kind, so that an id used for the wrong kind never matches by chance. */
  protected readonly base: number;

  constructor(readonly config: FixtureConfig) {
    this.base = 10 ** (String(Math.max(config.scenarioCount, 1)).length + 1);
    let datasetSeq = this.base;
    const ids = Object.keys(config.datasetScenarios)
      .map(Number)
      .filter((id) => this.hasScenario(id))
      .sort((a, b) => a - b);
    for (const sid of ids) {
      const list = config.datasetScenarios[sid].map((name, index) => ({
        id: ++datasetSeq,
        scenarioId: sid,
        index,
        name,
        data: { value: name },
      }));
      this.datasetsByScenario.set(sid, list);
      for (const d of list) this.datasets.set(d.id, d);
    }
  }

  hasScenario(id: number): boolean {
    return Number.isInteger(id) && id >= 1 && id <= this.config.scenarioCount;
  }

  scenario(id: number): Scenario | undefined {
    if (!this.hasScenario(id)) return undefined;
    return { id, name: this.config.duplicateNames[id] ?? `Scenario ${id}`, datasets: this.datasetsByScenario.get(id) ?? [] };
  }

  *allScenarioIds(): Generator<number> {
    for (let id = 1; id <= this.config.scenarioCount; id++) yield id;
  }

  dataset(id: number): Dataset | undefined {
    return this.datasets.get(id);
  }

  /** Realistic-looking text so that a project of many scenarios weighs what a real one does on the wire. */
  description(scenario: Scenario): string {
    const id = scenario.id;
    return (
      `As ${ACTORS[id % ACTORS.length]}, exercise the ${AREAS[id % AREAS.length]} flow and check that ` +
      `${CONCERNS[id % CONCERNS.length]}. Covers requirement WEB-${1000 + id}; reviewed by the QA guild.`
    );
  }

  /** Per top-level step, how many test steps it expands to. */
  stepPlan(scenario: Scenario): number[] {
    const plan = this.config.scenarioSteps[scenario.id] ?? this.config.defaultSteps;
    return typeof plan === 'number' ? new Array<number>(plan).fill(1) : plan.slice();
  }

  /**
   * Test steps of a scenario, action words expanded (`definition-json.steps`), for one dataset row (the `value`
   * parameter becomes the row's value). The default plan (3) gives Given / When / Then-result.
   */
  steps(scenario: Scenario, dataset: Dataset | null): Step[] {
    const suffix = dataset ? ` with '${dataset.data.value}'` : '';
    return this.stepPlan(scenario).flatMap((n, i, plan): Step[] => {
      if (n === 1) return [topLevelStep(scenario.id, i, plan.length, suffix)];
      return Array.from({ length: n }, (_, k) => ({
        action: `${keyword(i)} ${actionWord(i)}: part ${k + 1} of ${n}${k === 0 ? suffix : ''}`,
      }));
    });
  }

  /** Hiptest-DSL-like definition text of a scenario (informational only). */
  definition(scenario: Scenario): string {
    const withDatasets = scenario.datasets.length > 0;
    const suffix = withDatasets ? " with '${value}'" : '';
    const plan = this.stepPlan(scenario);
    const lines = plan.map((n, i) => {
      if (n > 1) return `  call ${keyword(i).toLowerCase()} '${actionWord(i)}'`;
      const step = topLevelStep(scenario.id, i, plan.length, suffix);
      return 'action' in step ? `  step {action: "${step.action}"}` : `  step {result: "${step.result}"}`;
    });
    return [`scenario '${scenario.name.replace(/'/g, "\\'")}'${withDatasets ? ', value' : ''} do`, ...lines, 'end', ''].join('\n');
  }
}

function keyword(i: number): string {
  return i === 0 ? 'Given' : i === 1 ? 'When' : 'And';
}

function actionWord(i: number): string {
  return `the shopper completes stage ${i + 1}`;
}

/** A plain top-level step; the last of two or more is the expected result. */
function topLevelStep(id: number, i: number, count: number, suffix: string): Step {
  if (i === count - 1 && count >= 2) return { result: `Then scenario ${id} succeeds` };
  if (i === 0) return { action: 'Given the web shop is open' };
  if (i === 1) return { action: `When scenario ${id} is exercised${suffix}` };
  return { action: `And scenario ${id} goes on with step ${i + 1}` };
}
