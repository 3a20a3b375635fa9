import * as path from 'node:path';
import * as fs from 'node:fs';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { resolveConfig, type ResolvedConfig } from './config';
import { OPTIONS_OUT_ENV } from './config-file';
import { PublishRun } from './engine/run';
import type { TargetDefinition } from './kit/target';
import { isFinalAttempt, keysByTarget, notKeyLines, recordOf } from './mapping';
import type { RunSummary, TestRecord } from './model';
import { createPrinter, labelled, type Printer } from './output';
import { StopSignals } from './stop-signals';
import { stepSummaryMarkdown, summaryLine, writeSummaryFile } from './summary';
import { TARGETS, type TmsReporterOptions } from './targets';

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
  private readonly env: NodeJS.ProcessEnv;
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

  constructor(
    private readonly options: TmsReporterOptions = {},
    env: NodeJS.ProcessEnv = process.env,
    private readonly definitions: readonly TargetDefinition[] = TARGETS,
  ) {
    this.env = env;
    this.optionsOnly = readingOptions(options, env);
  }

  /** Constructed only to hand its options to `replay` / `check` (config-file.ts): reports nothing. */
  private readonly optionsOnly: boolean;

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.guard('onBegin', () => {
      // `playwright test --list` runs nothing: no cycle, no test run. Playwright tells every reporter the
      // command it serves in the `_mode` option (`list`, `test` or `merge`), and adds `onlyFailures` then.
      if ((this.options as { _mode?: unknown })._mode === 'list' || this.optionsOnly) return;
      this.suite = suite;
      const rootDir = config.configFile ? path.dirname(config.configFile) : process.cwd();
      this.root = rootDir;
      const c = resolveConfig({
        definitions: this.definitions,
        options: this.options,
        env: this.env,
        rootDir,
        // The projects this run runs (`--project` picks some): a project suite per project, under the root.
        projects: suite.suites.filter((s) => s.allTests().length).map((s) => s.project()?.name ?? s.title),
      });
      this.config = c;
      this.sources = [...c.targets.map((t) => t.definition), ...c.invalid];
      // Several instances in one run: each numbers its lines, which would read alike otherwise.
      this.printer = createPrinter(c.secrets, c.debug, undefined, TmsReporter.live > 1 ? this.instance : undefined);
      for (const p of c.problems) this.printer.error(p);
      if (!c.targets.length && !c.invalid.length) {
        this.printer.info(`no target enabled (set ${this.definitions.map((d) => d.enableHint).join(' or ')}); nothing will be published`);
        return;
      }
      const tests = suite.allTests();
      // An empty shard must not create an empty cycle / test run. Playwright also begins with no tests when
      // global setup or the webServer failed: onEnd, which knows the run's status, says which.
      this.empty = tests.length === 0;
      if (this.empty) return;
      this.run = new PublishRun(c, { printer: this.printer, shard: config.shard, stop: this.stop.signal });
      this.run.start(tests.map((t) => ({ testId: t.id, keys: keysByTarget(t, this.sources) })));
    });
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.guard('onTestEnd', () => {
      this.ended.add(result);
      if (!this.run || !isFinalAttempt(test, result)) return;
      // A serial group's retry may run a test again after this (it passed, and a later test of the group failed):
      // its record then comes again, and the targets correct what they sent (CucumberStudio edits its result).
      const record = recordOf(test, this.sources, this.config && { ...this.config.evidence, root: this.root });
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
    if (this.empty && this.config) {
      const note =
        result.status === 'passed'
          ? 'this run has no tests; nothing to publish'
          : `no test ran (Playwright ended the run "${result.status}" before any test: its error is above); nothing published`;
      this.printer.info(note);
      const at = new Date().toISOString();
      this.report({ version: 1, startedAt: result.startTime?.toISOString?.() ?? at, finishedAt: at, targets: {}, note });
      return undefined;
    }
    if (!this.run || !this.config || !this.suite) return undefined;
    let summary: RunSummary | undefined;
    this.stop.listen();
    try {
      const tests = this.suite.allTests();
      const evidence = { ...this.config.evidence, root: this.root };
      const cut = (t: TestCase) => !!t.results.length && !this.ended.has(t.results[t.results.length - 1]);
      const records = tests.map((t) => recordOf(t, this.sources, evidence, cut(t))).filter((r): r is TestRecord => r !== null);
      for (const line of notKeyLines(
        tests,
        this.config.targets.map((t) => t.definition),
      ))
        this.printer.error(line);
      const recorded = new Set(records.map((r) => r.testId));
      const notRunKeys: Record<string, string[]> = {};
      for (const t of tests)
        if (!recorded.has(t.id))
          for (const [target, keys] of Object.entries(keysByTarget(t, this.sources))) (notRunKeys[target] ??= []).push(...keys);
      summary = await this.run.finish(records, tests.length - records.length, notRunKeys);
      this.report(summary);
    } catch (error) {
      this.printer.error(`publishing failed unexpectedly: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      this.stop.dispose();
    }
    // The user stopped the run (in its end): its exit code says so, as Playwright's does for a stop during the tests.
    if (this.stop.signal.aborted && result.status === 'passed') return { status: 'interrupted' };
    const failed = !summary || Object.values(summary.targets).some((t) => t.errors.length > 0 || t.unsent > 0);
    if (failed && this.config.failOnPublishError && result.status === 'passed') {
      this.printer.error('failing the run because failOnPublishError is set (PW_TMS_FAIL_ON_ERROR)');
      return { status: 'failed' };
    }
    return undefined;
  }

  private report(summary: RunSummary): void {
    const c = this.config!;
    for (const t of Object.values(summary.targets)) {
      for (const e of t.errors) this.printer.error(labelled(t.label ?? t.target, e));
      this.printer.info(summaryLine(t));
    }
    // Each file on its own: a line names the one that could not be written.
    const write = (file: string, fn: () => void) => {
      try {
        fn();
      } catch (error) {
        this.printer.error(`could not write ${file}: ${(error as Error).message}`);
      }
    };
    write(c.summaryFile, () => writeSummaryFile(c.summaryFile, summary));
    const step = this.env.GITHUB_STEP_SUMMARY;
    if (step) write(step, () => fs.appendFileSync(step, `${stepSummaryMarkdown(summary)}\n`));
  }

  private guard(hook: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.printer.error(`${hook} failed: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}

/** Writes the options to the file `replay` / `check` named (one line per instance of the reporter); true when asked to. */
function readingOptions(options: unknown, env: NodeJS.ProcessEnv): boolean {
  const out = env[OPTIONS_OUT_ENV];
  if (!out) return false;
  try {
    fs.appendFileSync(out, `${JSON.stringify(options ?? {})}\n`, { mode: 0o600 });
  } catch {
    // Not written: the command says it could not read the config.
  }
  return true;
}
