import * as path from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { noTargetLine, resolveConfig, type ResolvedConfig } from '../config/config';
import { handOverOptions } from './config-file';
import { PublishRun } from '../engine/run';
import { endStatus, reportEmptyRun, reportSummary } from '../engine/run-report';
import type { TargetDefinition } from '../kit/target';
import { isFinalAttempt, keysByTarget, notKeyLines, recordOf } from '../shared/mapping';
import type { RunSummary, TestRecord } from '../shared/model';
import { createPrinter, type Printer } from '../shared/output';
import { StopSignals } from '../shared/stop-signals';
import { notRunKeys, placeOf } from './test-records';
import { testKnobs } from './test-knobs';
import { TARGETS, type TmsReporterOptions } from '../targets';

/**
 * Playwright reporter that publishes results to the test management services in the registry.
 * Thin on purpose: it turns Playwright events into TestRecords and hands them to PublishRun.
 * No hook throws (since Playwright 1.62 a throwing reporter fails the run).
 */
export default class TmsReporter implements Reporter {
  private config?: ResolvedConfig;
  private printer: Printer = createPrinter([], false);
  private run?: PublishRun;
  private suite?: Suite;
  /**
   * The services this run publishes to, or journals for replay (bad settings): a test's keys are read for
   * these only. A service of the registry that is not configured is never sent to, nor replayed.
   */
  private sources: readonly TargetDefinition[] = [];
  /** Attempts Playwright ended; one it began and never ended was cut short (the run's globalTimeout). */
  private readonly ended = new WeakSet<TestResult>();
  /** The project's folder (the config's): error texts and locations show paths relative to it. */
  private root?: string;
  /** Playwright began the run with no test (an empty shard, or global setup / webServer failed). */
  private empty = false;
  /** Ctrl+C / SIGTERM during the end's sending stops it (listened to in onEnd only: Playwright handles them before). */
  private readonly stop = new StopSignals((signal) =>
    this.printer.info(`${signal}: stopping the publishing; what is not sent yet stays in the outbox (${signal} again to quit at once)`),
  );
  /** Instances between their construction and their onEnd: a config may list the reporter twice (two projects). */
  private static live = 0;
  private readonly instance = ++TmsReporter.live;
  /** Constructed only to hand its options to `replay` / `check` (config-file.ts): reports nothing. */
  private readonly optionsOnly: boolean;

  constructor(
    private readonly options: TmsReporterOptions = {},
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly definitions: readonly TargetDefinition[] = TARGETS,
  ) {
    this.optionsOnly = handOverOptions(options, env);
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.guard('onBegin', () => {
      // `playwright test --list` runs nothing: no cycle, no test run. Playwright tells every reporter the
      // command it serves in the `_mode` option (`list`, `test` or `merge`), and adds `onlyFailures` then.
      if ((this.options as { _mode?: unknown })._mode === 'list' || this.optionsOnly) return;
      this.suite = suite;
      this.root = config.configFile ? path.dirname(config.configFile) : process.cwd();
      const c = (this.config = resolveConfig({
        definitions: this.definitions,
        options: this.options,
        env: this.env,
        rootDir: this.root,
        // The projects this run runs (`--project` picks some): a project suite per project, under the root.
        projects: suite.suites.filter((s) => s.allTests().length).map((s) => s.project()?.name ?? s.title),
      }));
      this.sources = [...c.targets.map((t) => t.definition), ...c.invalid];
      // Several instances in one run: each numbers its lines, which would read alike otherwise.
      this.printer = createPrinter(c.secrets, c.debug, undefined, TmsReporter.live > 1 ? this.instance : undefined);
      for (const p of c.problems) this.printer.error(p);
      if (!c.targets.length && !c.invalid.length) {
        this.printer.info(noTargetLine(c));
        return;
      }
      const tests = suite.allTests();
      // An empty shard must not create an empty cycle / test run; onEnd says why there was nothing.
      if ((this.empty = tests.length === 0)) return;
      this.run = new PublishRun(c, {
        printer: this.printer,
        shard: config.shard,
        stop: this.stop.signal,
        ...testKnobs(this.env),
      });
      this.run.start(tests.map((t) => ({ testId: t.id, keys: keysByTarget(t, this.sources), ...placeOf(t, c.projects) })));
    });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.guard('onTestEnd', () => {
      this.ended.add(result);
      if (!this.run || !isFinalAttempt(test, result)) return;
      // A serial group's retry may run a test again after this (it passed, and a later test of the group failed):
      // its record then comes again, and the targets correct what they sent (CucumberStudio edits its result).
      const record = this.recordOf(test);
      if (record) this.run.record(record);
    });
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    try {
      return await this.end(result);
    } finally {
      TmsReporter.live--;
    }
  }

  private async end(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const c = this.config;
    const out = c && { printer: this.printer, summaryFile: c.summaryFile, env: this.env };
    if (this.empty && out) return void reportEmptyRun(result.status, result.startTime, out);
    if (!this.run || !c || !out || !this.suite) return undefined;
    let summary: RunSummary | undefined;
    this.stop.listen();
    try {
      const tests = this.suite.allTests();
      const cut = (t: TestCase) => !!t.results.length && !this.ended.has(t.results[t.results.length - 1]);
      const records = tests.map((t) => this.recordOf(t, cut(t))).filter((r): r is TestRecord => r !== null);
      const targets = c.targets.map((t) => t.definition);
      for (const line of notKeyLines(tests, targets)) this.printer.error(line);
      const notRun = notRunKeys(tests, records, this.sources, c.projects);
      summary = await this.run.finish(records, tests.length - records.length, notRun);
      reportSummary(summary, out);
    } catch (error) {
      this.printer.error(`publishing failed unexpectedly: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      this.stop.dispose();
    }
    const stopped = this.stop.signal.aborted;
    return endStatus({ summary, status: result.status, stopped, failOnPublishError: c.failOnPublishError, printer: this.printer });
  }

  /** The journaled record of a finished test (null when it never ran); `cutShort`: its last attempt never ended. */
  private recordOf(test: TestCase, cutShort = false): TestRecord | null {
    const evidence = this.config && { ...this.config.evidence, root: this.root, ...placeOf(test, this.config.projects) };
    return recordOf(test, this.sources, evidence, cutShort);
  }

  /** Errors never escape a hook: each becomes one line. */
  private guard(hook: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.printer.error(`${hook} failed: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
