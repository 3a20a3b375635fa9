/**
 * What the end of a Playwright run says and decides once the engine is done, apart from Playwright's
 * events: each target's lines, the summary file, GitHub's job summary, and the status the reporter gives back.
 */
import * as fs from 'node:fs';
import type { RunSummary } from '../shared/model';
import { labelled, type Printer } from '../shared/output';
import { stepSummaryMarkdown, summaryLine, writeSummaryFile } from '../shared/summary';

/** Playwright's run status, as its FullResult gives it (the engine does not import Playwright). */
export type RunStatus = 'passed' | 'failed' | 'timedout' | 'interrupted';

export interface ReportOptions {
  printer: Printer;
  summaryFile: string;
  env: NodeJS.ProcessEnv;
}

/** Each target's errors and summary line, then the files; each file on its own (a line names the one not written). */
export function reportSummary(summary: RunSummary, o: ReportOptions): void {
  for (const t of Object.values(summary.targets)) {
    for (const e of t.errors) o.printer.error(labelled(t.label ?? t.target, e));
    o.printer.info(summaryLine(t));
  }
  const write = (file: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      o.printer.error(`could not write ${file}: ${(error as Error).message}`);
    }
  };
  write(o.summaryFile, () => writeSummaryFile(o.summaryFile, summary));
  const step = o.env.GITHUB_STEP_SUMMARY;
  if (step) write(step, () => fs.appendFileSync(step, `${stepSummaryMarkdown(summary)}\n`));
}

/**
 * Playwright began the run with no test: an empty shard publishes nothing (no empty cycle / test run), and
 * when global setup or the webServer failed first, the line says so (the run's status tells which).
 */
export function reportEmptyRun(status: RunStatus, startTime: Date | undefined, o: ReportOptions): void {
  const note =
    status === 'passed'
      ? 'this run has no tests; nothing to publish'
      : `no test ran (Playwright ended the run "${status}" before any test: its error is above); nothing published`;
  o.printer.info(note);
  const at = new Date().toISOString();
  reportSummary({ version: 1, startedAt: startTime?.toISOString?.() ?? at, finishedAt: at, targets: {}, note }, o);
}

/**
 * The status onEnd hands back to Playwright (undefined: Playwright's own). A stop during the end makes a passed
 * run interrupted, as a stop during the tests does; with failOnPublishError, a publish that failed fails it.
 */
export function endStatus(o: {
  summary?: RunSummary;
  status: RunStatus;
  stopped: boolean;
  failOnPublishError: boolean;
  printer: Printer;
}): { status: RunStatus } | undefined {
  if (o.stopped && o.status === 'passed') return { status: 'interrupted' };
  const failed = !o.summary || Object.values(o.summary.targets).some((t) => t.errors.length > 0 || t.unsent > 0);
  if (failed && o.failOnPublishError && o.status === 'passed') {
    o.printer.error('failing the run because failOnPublishError is set (PW_TMS_FAIL_ON_ERROR)');
    return { status: 'failed' };
  }
  return undefined;
}
