/**
 * One `playwright test` run serving several scenarios: a Playwright start costs ≈ 3 s of CPU, and most of a
 * scenario's own cost is that start. Each scenario is an instance of the reporter in the run's config with its own
 * options (cycle, test run or execution names, build, base URL…) and its own outbox and summary file, so scenarios
 * whose keys and names are disjoint each read only what their instance did.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunSummary } from '../../src/shared/model';
import { runPlaywright, type RunOptions } from './harness';

/** What one instance wrote: its summary (no targets when it wrote none: it crashed), its outbox; the run's output. */
export interface InstanceResult {
  summary: RunSummary;
  outboxDir: string;
  output: string;
  exitCode: number;
}

/** A live run with one reporter instance per entry of `instances` (each given `outbox-<name>`, `summary-<name>.json`). */
export async function runInstances<K extends string>(
  o: Omit<RunOptions, 'options' | 'secondReporter' | 'moreReporters' | 'mode'>,
  instances: Record<K, Record<string, unknown>>,
): Promise<Record<K, InstanceResult>> {
  const names = Object.keys(instances) as K[];
  const options = names.map((name) => ({ ...instances[name], outboxDir: `outbox-${name}`, summaryFile: `summary-${name}.json` }));
  const run = await runPlaywright({ ...o, options: options[0], moreReporters: options.slice(1) });
  const out = {} as Record<K, InstanceResult>;
  for (const name of names) {
    const file = path.join(run.dir, `summary-${name}.json`);
    // A missing summary fails the scenario that reads it, not the others.
    const summary = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { targets: {} }) as RunSummary;
    out[name] = { summary, outboxDir: path.join(run.dir, `outbox-${name}`), output: run.output, exitCode: run.exitCode };
  }
  return out;
}
