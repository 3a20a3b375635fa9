import * as fs from 'node:fs';
import { resolveConfig, type ResolvedConfig, type TmsReporterOptions } from './config';
import type { Env } from './config-fields';
import type { RunSummary, TargetId } from './model';
import type { Printer } from './output';
import { Outbox, type Journal } from './publish/outbox';
import { PublishRun, type PublishRunOptions } from './publish/run';
import { summaryLine } from './summary';

export interface ReplayResult {
  journals: number;
  summaries: RunSummary[];
  /** Items still unsent after the replay. */
  unsent: number;
}

/**
 * Sends what earlier runs could not, through the same pipeline as a live run. Idempotent: items a
 * journal marks done are skipped, statuses are absolute, and completed journals are deleted.
 * Credentials come from env/options (journals hold none); where the results go comes from the journal.
 */
export async function replay(dir: string, options: TmsReporterOptions, env: Env, printer: Printer, deps?: PublishRunOptions['deps']): Promise<ReplayResult> {
  const journals = Outbox.load(dir);
  const result: ReplayResult = { journals: journals.length, summaries: [], unsent: 0 };
  if (!journals.length) {
    printer.info(`nothing to replay in ${dir}`);
    return result;
  }
  for (const journal of journals) {
    const lock = `${journal.file}.lock`;
    let fd: number;
    try {
      fd = fs.openSync(lock, 'wx');
    } catch {
      printer.error(`${journal.file} is being replayed by another process (${lock} exists); skipped`);
      continue;
    }
    try {
      const config = configFor(journal, options, env, printer);
      const pendingTargets = (Object.keys(journal.targets) as TargetId[]).filter((t) => !journal.complete.has(t));
      if (!pendingTargets.some((t) => config[t])) {
        printer.error(`${journal.file}: ${pendingTargets.join(', ')} not configured in this environment; kept for a later replay`);
        result.unsent += journal.records.length;
        continue;
      }
      printer.info(`replaying ${journal.records.length} test results from ${journal.file}`);
      const run = new PublishRun(config, { printer, journal, deps: { ...deps, cucumberstudio: { ...deps?.cucumberstudio, replay: true } } });
      const summary = await run.finish(journal.records, 0);
      for (const s of Object.values(summary.targets)) {
        for (const e of s.errors) printer.error(`${s.target}: ${e}`);
        printer.info(summaryLine(s));
        result.unsent += s.unsent;
      }
      result.summaries.push(summary);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(lock, { force: true });
    }
  }
  return result;
}

/** Current credentials + the journal's destination; targets already complete are left out. */
function configFor(journal: Journal, options: TmsReporterOptions, env: Env, printer: Printer): ResolvedConfig {
  const config = resolveConfig(options, env);
  for (const p of config.problems) printer.error(p);
  config.invalid = [];
  const z = journal.targets.zephyr;
  if (config.zephyr && z && !journal.complete.has('zephyr')) {
    if (z.projectId) config.zephyr.projectId = z.projectId;
    if (z.versionId !== undefined && z.projectId) config.zephyr.versionId = z.versionId;
    if (z.containerName) config.zephyr.cycleName = z.containerName;
    config.zephyr.cycleId = z.containerId ?? config.zephyr.cycleId;
  } else config.zephyr = undefined;
  const c = journal.targets.cucumberstudio;
  if (config.cucumberstudio && c && !journal.complete.has('cucumberstudio')) {
    if (c.projectId) config.cucumberstudio.projectId = c.projectId;
    if (c.containerName) config.cucumberstudio.testRunName = c.containerName;
    if (c.containerId) config.cucumberstudio.testRunId = Number(c.containerId);
  } else config.cucumberstudio = undefined;
  return config;
}
