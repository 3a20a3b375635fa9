/**
 * One `playwright test` run serving several scenarios: a Playwright start costs ≈ 3 s of CPU, and most of a
 * scenario's own cost is that start. Each scenario is an instance of the reporter in the run's config with its own
 * options (cycle, test run or execution names, build, base URL…) and its own outbox and summary file, so scenarios
 * whose keys and names are disjoint each read only what their instance did.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunSummary } from '../../src/shared/model';
import { runPlaywright, type RunOptions, type RunResult } from './harness';

/** What one instance wrote: its summary (no targets when it wrote none: it crashed), its outbox; the run's output. */
export interface InstanceResult {
  summary: RunSummary;
  outboxDir: string;
  /** The whole run's output (every instance's lines, `[tms-reporter N]`; with a merge, merge-reports' after). */
  output: string;
}

/** Each instance's results by name, and the merged run when there is one. */
export type Instances<K extends string> = Record<K, InstanceResult> & { merged?: RunResult };

/**
 * A run with one live reporter instance per entry of `instances` (each given `outbox-<name>`, `summary-<name>.json`).
 * With `merged` (the options of one more instance), the run also writes a blob report and `merge-reports` publishes
 * it through that instance (its outbox `outbox`, its summary `summary.json`): the live instances' run is the blob's.
 */
export async function runInstances<K extends string>(
  o: Omit<RunOptions, 'options' | 'secondReporter' | 'moreReporters' | 'mode'>,
  instances: Record<K, Record<string, unknown>>,
  merged?: Record<string, unknown>,
): Promise<Instances<K>> {
  const names = Object.keys(instances) as K[];
  const options = names.map((name) => ({ ...instances[name], outboxDir: `outbox-${name}`, summaryFile: `summary-${name}.json` }));
  const run = merged
    ? await runPlaywright({ ...o, mode: 'merge', options: merged, moreReporters: options })
    : await runPlaywright({ ...o, options: options[0], moreReporters: options.slice(1) });
  const out = {} as Record<K, InstanceResult>;
  for (const name of names) {
    const file = path.join(run.dir, `summary-${name}.json`);
    // A missing summary fails the scenario that reads it, not the others.
    const summary = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { targets: {} }) as RunSummary;
    out[name] = { summary, outboxDir: path.join(run.dir, `outbox-${name}`), output: run.output };
  }
  return merged ? { ...out, merged: run } : out;
}
