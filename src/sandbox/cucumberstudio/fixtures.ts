/**
 * The seeded, read-only part of the CucumberStudio stand-in: one project, its root folder, scenarios and
 * datasets. Scenarios are computed on demand from their id, so a project of any size costs nothing until read.
 */
import type { Dataset, Scenario } from './model';

export interface FixtureConfig {
  uid: string;
  projectId: number;
  projectName: string;
  scenarioCount: number;
  datasetScenarios: Record<number, string[]>;
  duplicateNames: Record<number, string>;
}

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
      const list = config.datasetScenarios[sid].map((name, index) => ({ id: ++datasetSeq, scenarioId: sid, index, name, data: { value: name } }));
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

  /** Test steps of a scenario (expanded for one dataset row: the `value` parameter becomes the row's value). */
  steps(scenario: Scenario, dataset: Dataset | null): Array<{ action: string } | { result: string }> {
    const suffix = dataset ? ` with '${dataset.data.value}'` : '';
    return [
      { action: 'Given the web shop is open' },
      { action: `When scenario ${scenario.id} is exercised${suffix}` },
      { result: `Then scenario ${scenario.id} succeeds` },
    ];
  }

  /** Hiptest-DSL-like definition text of a scenario (informational only). */
  definition(scenario: Scenario): string {
    const withDatasets = scenario.datasets.length > 0;
    return [
      `scenario '${scenario.name.replace(/'/g, "\\'")}'${withDatasets ? ', value' : ''} do`,
      `  step {action: "Given the web shop is open"}`,
      `  step {action: "When scenario ${scenario.id} is exercised${withDatasets ? " with '${value}'" : ''}"}`,
      `  step {result: "Then scenario ${scenario.id} succeeds"}`,
      'end',
      '',
    ].join('\n');
  }
}
