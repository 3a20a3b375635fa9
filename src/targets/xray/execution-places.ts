/**
 * Which Test Execution a result goes to. Merge mode: the run's one execution (the configured key, or found or
 * created by summary), no Test Environment. Split mode (`projects: 'split'`): one execution per Playwright project,
 * its summary suffixed with the project's name and that name as its only Test Environment (§8.1 rule 5: Xray
 * consolidates a Test's latest run per environment), each found or created once (kit/places) and linked to the
 * Test Plan. An unnamed project has no environment to name: its results go to the execution of the summary itself.
 */
import type { RequestLane } from '../../kit/lane';
import { Places } from '../../kit/places';
import type { ContainerInfo, PlaceContainer } from '../../kit/target';
import type { XrayClient } from './client';
import type { XrayConfig } from './config';
import { linkPlan, resolveExecution, type ExecutionChoice } from './executions';
import type { ExecutionRef } from './queries';

/** A Jira summary's longest length. */
const MAX_SUMMARY = 255;

/** The Test Environments of a project's execution: exactly its own name (environments sent replace, §8.1 rule 3). */
export function environmentsFor(place: string | undefined): string[] {
  return place === undefined || place.trim() === '' ? [] : [place.trim()];
}

/** What an import into a place's execution carries besides its tests: split mode, the project's own environments. */
export function importInfo(place: string | undefined): { info?: { testEnvironments: string[] } } {
  // Environments sent with a key replace the execution's (§8.1 rule 3): a project's own list on every import.
  return place === undefined ? {} : { info: { testEnvironments: environmentsFor(place) } };
}

/** A Test Execution's page in Jira. */
export function browseLink(jiraUrl: string, key: string): string {
  return `${jiraUrl}/browse/${key}`;
}

/** The summary of a project's execution: the run's summary, then the project's name. */
export function summaryFor(summary: string, place: string | undefined): string {
  const [environment] = environmentsFor(place);
  return environment === undefined ? summary : `${summary} ${environment}`;
}

export interface ExecutionPlacesOptions {
  description?: string;
  signal?: AbortSignal;
}

export class ExecutionPlaces {
  /** Merge mode's execution, found or created by `begin`. */
  merged?: ExecutionChoice;
  /** A CI shard other than the first waits this long for the first one's execution (set by `begin`). */
  followerWaitMs = 0;
  /** Split mode (the engine's keys are placed): a Test Execution per project, none of the run. Set by `begin`. */
  split = false;
  /** Split mode's executions, by project. */
  private readonly projects: Places<ExecutionChoice>;
  /** Split mode's executions once opened, kept for what must be said at once (a summary cut short cannot wait). */
  private readonly ready = new Map<string, ExecutionChoice>();

  constructor(
    private readonly cfg: XrayConfig,
    private readonly client: XrayClient,
    private readonly lane: RequestLane,
    private readonly o: ExecutionPlacesOptions = {},
  ) {
    this.projects = new Places(async (place) => {
      const choice = await this.open(place);
      this.ready.set(place, choice);
      return choice;
    });
  }

  /**
   * Merge mode: the one execution. Split mode: every project's execution known so far (`places`: of the keys known
   * before the tests run), each found or created once; what it returns is then no execution but what the journal
   * keeps: the run's summary (a replay finds each project's execution by it) and no key. The summary names each
   * project's own (`containers`), since no execution has the run's summary.
   */
  async begin(places: ReadonlyArray<string | undefined>): Promise<ContainerInfo> {
    // A `begin` again (the engine's retry knows no keys) stays in the mode the first one found.
    if (!this.split && places.every((p) => p === undefined)) {
      const { execution, reused } = (this.merged ??= await this.open(undefined));
      return { id: execution.key, name: execution.summary || execution.key, reused };
    }
    this.split = true;
    const choices = await Promise.all([...new Set(places)].map((p) => this.projects.get(p ?? '')));
    return { id: '', name: this.cfg.testExecutionSummary, reused: choices.every((c) => c.reused) };
  }

  /** Merge mode (`place` undefined) or a project's execution. */
  async of(place: string | undefined): Promise<ExecutionRef> {
    if (place === undefined) {
      this.merged ??= await this.open(undefined);
      return this.merged.execution;
    }
    return (await this.projects.get(place)).execution;
  }

  /**
   * Split mode's executions found or made so far, by project, each with its link (`jiraUrl` set): the summary names
   * these, not the run's summary, which no execution has (each has the project's name after it).
   */
  containers(): Record<string, PlaceContainer> {
    const link = (key: string) => (this.cfg.jiraUrl ? { link: browseLink(this.cfg.jiraUrl, key) } : {});
    return Object.fromEntries(
      [...this.ready].map(([place, { execution: e, reused }]) => [place, { id: e.key, name: e.summary || e.key, reused, ...link(e.key) }]),
    );
  }

  /** What the dry run says of a place. */
  describe(place: string | undefined): string {
    const environments = environmentsFor(place);
    const env = environments.length ? ` with Test Environment "${environments[0]}"` : '';
    if (this.cfg.testExecutionKey && !(place !== undefined && this.cfg.keyFromJournal))
      return `Test Execution ${this.cfg.testExecutionKey}${env}`;
    const summary = summaryFor(this.cfg.testExecutionSummary, place);
    const plan = this.cfg.testPlanKey ? `, linked to Test Plan ${this.cfg.testPlanKey}` : '';
    return `Test Execution "${summary}"${env} in project ${this.cfg.projectKey} (found by summary, or created)${plan}`;
  }

  private async open(place: string | undefined): Promise<ExecutionChoice> {
    // The config's key is refused with split mode before the run (config.ts), so a split run's journal names no key.
    // One from a journal here was written before that check: the run never used it (it refused), so it is no setting
    // the run resolved, and each project's execution is opened by summary, as a split run's journal says.
    const cfg = place !== undefined && this.cfg.keyFromJournal ? { ...this.cfg, testExecutionKey: undefined } : this.cfg;
    if (place !== undefined && cfg.testExecutionKey)
      throw new Error(
        `XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey) = ${cfg.testExecutionKey} names one Test Execution, and projects: 'split' ` +
          `(PW_TMS_PROJECTS=split) makes one per Playwright project: set XRAY_TEST_EXECUTION_SUMMARY (xray.testExecutionSummary) instead, or use projects: 'merge'`,
      );
    if (!cfg.testExecutionKey && !cfg.projectKey)
      throw new Error(`XRAY_PROJECT_KEY (xray.projectKey) is required to find or create each Playwright project's Test Execution`);
    const summary = summaryFor(this.cfg.testExecutionSummary, place);
    if (summary.length > MAX_SUMMARY)
      throw new Error(
        `the Test Execution summary "${summary.slice(0, 40)}…" of Playwright project "${place}" is longer than ${MAX_SUMMARY} characters: ` +
          `shorten XRAY_TEST_EXECUTION_SUMMARY (xray.testExecutionSummary) or the project's name`,
      );
    const choice = await resolveExecution(cfg, this.client, this.lane, {
      description: this.o.description,
      summary,
      environments: environmentsFor(place),
      followerWaitMs: this.followerWaitMs,
      signal: this.o.signal,
    });
    if (this.cfg.testPlanKey) await linkPlan(this.client, this.cfg.testPlanKey, choice.execution);
    return choice;
  }
}
