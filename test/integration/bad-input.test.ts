/**
 * Bad-input matrix: bad configuration (options and env) and bad service answers. For every case a
 * real `playwright test` run must print one clear `[tms-reporter]` line naming the problem (for config:
 * the option AND the env var, when the option has one), print no stack trace, keep the run's exit
 * code (0: the suites here pass, or are skipped), and leak no secret into its output or files.
 *
 * To stay fast, cases are batched: several config problems share one run, the groups of bad options are each
 * one reporter instance of a single run, and each run of the service cases breaks one Zephyr endpoint and one
 * CucumberStudio endpoint at once (the targets publish independently). Every run gets its own sandbox, and the
 * runs go in parallel.
 * The bench (`bench/run.js`) reports this file's table from `.tmp/bad-input-report.json`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { TEST_BACKOFF_ENV } from '../../src/playwright/test-knobs';
import { allFileText, runPlaywright, testSandbox, type RunResult } from './harness';

import { CONFIG_OPTIONS } from './bad-input/config-options';
import { CONFIG_IDS } from './bad-input/config-ids';
import { RESPONSES_1 } from './bad-input/responses-1';
import { RESPONSES_2 } from './bad-input/responses-2';
import { SKIPPED_SUITE, SUITE, type Group } from './bad-input/shared';

const GROUPS: Group[] = [...CONFIG_OPTIONS, ...CONFIG_IDS, ...RESPONSES_1, ...RESPONSES_2];

const CASES = GROUPS.flatMap((g) => g.cases.map((c) => ({ ...c, group: g.label })));
/**
 * The Playwright runs: the option-only groups share one (a Playwright start is most of a case's cost); a group with
 * its own env or sandbox faults has its own.
 */
const RUNS: Group[][] = [GROUPS.filter((g) => g.instance), ...GROUPS.filter((g) => !g.instance).map((g) => [g])];

interface Outcome {
  run: RunResult;
  sandbox: RunningSandbox;
  secrets: string[];
  /** The group's reporter instance in a shared run (its lines are `[tms-reporter N]`); absent: the run's only one. */
  instance?: number;
  afterError?: unknown;
  wallMs: number;
}
const outcomes = new Map<string, Outcome>();
const report: Array<Record<string, unknown>> = [];

/**
 * Runs the groups given in one Playwright run on one sandbox: one group alone (its env, its faults, its options), or
 * several `instance` groups, each one reporter instance with its own options, outbox and summary file.
 */
async function runGroups(gs: Group[]): Promise<void> {
  const [g] = gs;
  const shared = gs.length > 1;
  const sandbox = await testSandbox();
  if (g.overrides?.zephyr) sandbox.setFaults('zephyr', { overrides: g.overrides.zephyr });
  if (g.overrides?.cucumberstudio) sandbox.setFaults('cucumberstudio', { overrides: g.overrides.cucumberstudio });
  // Retries as many, without the seconds of backoff between them: a 5xx for good is given up at once, and what
  // these cases check (its one line, no stack, exit code, no secret) does not depend on how long it took.
  const env = { ...(g.env ? g.env(sandbox) : sandbox.env()), [TEST_BACKOFF_ENV]: '20' };
  const secrets = [
    ...Object.entries(sandbox.env())
      .filter(([k]) => /SECRET|ACCESS/.test(k))
      .map(([, v]) => v),
    ...gs.flatMap((x) => x.secrets ?? []),
  ];
  // An object's instance gets its own outbox and summary; options that are no object keep the run's (env) ones.
  const own = (x: Group, i: number) =>
    shared && x.options !== null && typeof x.options === 'object' && !Array.isArray(x.options)
      ? { ...(x.options as object), outboxDir: `outbox-${i + 1}`, summaryFile: `summary-${i + 1}.json` }
      : x.options;
  const options = gs.map(own) as Record<string, unknown>[];
  const started = Date.now();
  const files = gs.some((x) => x.passing) ? SUITE : SKIPPED_SUITE;
  const run = await runPlaywright({ files, env, options: options[0], moreReporters: options.slice(1), workers: 1 });
  const wallMs = Date.now() - started;
  gs.forEach((x, i) => {
    const outboxDir = options[i] !== x.options ? path.join(run.dir, `outbox-${i + 1}`) : run.outboxDir;
    const o: Outcome = { run, sandbox, secrets, instance: shared ? i + 1 : undefined, wallMs };
    try {
      x.after?.(sandbox, { ...run, outboxDir });
    } catch (e) {
      o.afterError = e;
    }
    outcomes.set(x.label, o);
  });
}

async function pool<T>(items: T[], size: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

beforeAll(
  async () => {
    // Three Playwright runs at a time: on 2 cores, more only makes each slower.
    await pool(RUNS, 3, runGroups);
  },
  // No wall-clock budget of its own: each run is bounded by the harness (killed with its process tree after
  // 180 s), so a busy machine makes the hook slower, never failed.
  Math.ceil(RUNS.length / 3) * 200_000,
);

afterAll(async () => {
  await Promise.all([...outcomes.values()].map((o) => o.sandbox.close()));
  // The benchmark's figure 7 lists every case; it asks for the report by naming a file.
  const file = process.env.BAD_INPUT_REPORT;
  if (file) fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), cases: report }, null, 2)}\n`);
});

const STACK = /^\s+at .+:\d+:\d+\)?\s*$/m;
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;

describe('bad input: one clear line, no stack trace, run not failed, no secret', () => {
  for (const c of CASES)
    (c.defect ? it.fails : it)(`${c.kind}: ${c.title}${c.defect ? ' [known defect]' : ''}`, () => {
      const o = outcomes.get(c.group)!;
      const entry: Record<string, unknown> = {
        id: c.id,
        kind: c.kind,
        title: c.title,
        group: c.group,
        defect: c.defect ?? null,
        exitCode: o.run.exitCode,
        wallMs: o.wallMs,
      };
      report.push(entry);
      // In a shared run, only the lines of the group's own instance, read as they would be if it were the only one.
      const prefix = o.instance === undefined ? '[tms-reporter]' : `[tms-reporter ${o.instance}]`;
      const ours = o.run.output
        .split('\n')
        .filter((l) => l.startsWith(prefix))
        .map((l) => `[tms-reporter]${l.slice(prefix.length)}`);
      const matching = ours.filter((l) => c.line.test(l) && (c.names ?? []).every((n) => l.includes(n)));
      entry.line = matching[0] ?? null;
      entry.repeats = matching.filter((l) => l === matching[0]).length;
      const service = c.id.startsWith('cs') ? /cucumberstudio/i : /zephyr/i;
      if (!matching[0])
        entry.got = ours.filter((l) => service.test(l) && !/published|stopped before its first result/.test(l))[0] ?? ours[0] ?? null;
      entry.ok = false;
      expect(matching[0], `no line matching ${c.line} naming ${(c.names ?? []).join(', ')} in:\n${ours.join('\n')}`).toBeDefined();
      expect(o.run.output, 'stack trace in the output').not.toMatch(STACK);
      expect(o.run.exitCode, o.run.output).toBe(0);
      const files = allFileText(o.run.dir);
      for (const s of o.secrets) {
        expect(o.run.output.includes(s), 'secret in output').toBe(false);
        expect(files.includes(s), 'secret in a file').toBe(false);
      }
      expect(o.run.output + files).not.toMatch(JWT);
      if (o.afterError) throw o.afterError;
      entry.ok = true;
    });
});
