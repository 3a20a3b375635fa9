import * as path from 'node:path';
/**
 * CucumberStudio behaving like the real service: real `playwright test` runs against the sandbox, checked
 * for exact results AND for the requests made (sandbox log): a short 200 list is waited out, a broken list
 * answer surfaces at once, unknown mapped ids are checked one by one, racing processes mark duplicates by
 * description. That the project's whole scenario list is only read when the test list lacks the linkage is
 * checked on publishing.test.ts's run of the same suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RequestLogEntry } from '../../src/sandbox/server';
import { resolveConfig } from '../../src/config/config';
import { createPrinter } from '../../src/shared/output';
import { PublishRun } from '../../src/engine/run';
import { TARGETS } from '../../src/targets';
import { duplicateNote } from '../../src/targets/cucumberstudio/run-lifecycle';
import { csLastStatuses, csRun, csRuns, outboxFiles, runPlaywright, runReplay, testSandbox, tempDir } from './harness';

const ONE_SCENARIO = 'GET /projects/:pid/scenarios/:sid';
const JSONAPI = { 'content-type': 'application/vnd.api+json' };

let sandbox: RunningSandbox;
beforeAll(async () => {
  // The harness's short test generation (300 ms): no case here is about waiting it out (the short list is an
  // override), and every run paid the longer one.
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Runs `fn` and returns the CucumberStudio requests the sandbox received meanwhile. */
async function recorded<T>(fn: () => Promise<T>): Promise<{ value: T; log: RequestLogEntry[]; requests: number }> {
  const start = sandbox.log().length;
  const before = sandbox.stats().cucumberstudio.requests;
  const value = await fn();
  return {
    value,
    log: sandbox
      .log()
      .slice(start)
      .filter((e) => e.service === 'cucumberstudio'),
    requests: sandbox.stats().cucumberstudio.requests - before,
  };
}
const count = (log: RequestLogEntry[], route: string, status?: number) =>
  log.filter((e) => e.route === route && (status === undefined || e.status === status)).length;

const tagged = (ids: number[], failing: number[] = []) => ({
  'f.spec.ts': `const { test } = require('@playwright/test');\n${ids.map((id) => `test('s${id}', { tag: '@cs-${id}' }, () => { ${failing.includes(id) ? "throw new Error('x');" : ''} });`).join('\n')}`,
});

describe('CucumberStudio fidelity (live)', () => {
  // The small suite's requests (the whole scenario list read only without the list linkage, at most once):
  // publishing.test.ts, on the run that publishes that suite for its status table.

  it('a short 200 list (fewer tests than asked) is waited out like a 423, then every test gets its result', async () => {
    const name = 'fidelity short list';
    sandbox.setFaults('cucumberstudio', {
      overrides: [
        { method: 'GET', pathIncludes: '/test_snapshots?include=scenario', status: 200, body: '{"data":[]}', headers: JSONAPI, times: 3 },
      ],
    });
    try {
      const before = sandbox.stats().cucumberstudio.overridden;
      // The failing test last: Playwright starts a new worker after a failed test (≈ 1 s of CPU) only for a test after it.
      const run = await runPlaywright({ files: tagged([31, 7, 32], [32]), env: { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name } });
      expect(sandbox.stats().cucumberstudio.overridden - before).toBe(3);
      expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 7: ['passed', 'passed'], 31: ['passed'], 32: ['failed'] });
      expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, unsent: 0, errors: [] });
    } finally {
      sandbox.setFaults('cucumberstudio', { overrides: [] });
    }
  });

  // After a 500 to the PATCH that adds scenarios, the reporter looks at the run before sending them again.
  describe('scenarios added to a reused run', () => {
    const CASES = [
      ['applied', true, 0],
      ['not applied', false, 1],
    ] as const;
    const runName = (what: string) => `fidelity re-add ${what}`;
    beforeAll(async () => {
      // Both cases' runs made by one Playwright run, one reporter instance per run name (each its own outbox).
      const [first, ...more] = CASES.map(([what], i) => ({
        cucumberstudio: { testRunName: runName(what) },
        outboxDir: `outbox-${i}`,
        summaryFile: `summary-${i}.json`,
      }));
      const made = await runPlaywright({ files: tagged([51, 52]), env: sandbox.env(), options: first, moreReporters: more });
      for (const [what] of CASES)
        expect(csLastStatuses(csRun(sandbox, runName(what))), made.output).toEqual({ 51: ['passed'], 52: ['passed'] });
    }, 300_000);

    it.each(CASES)('%s then answered 500: sent again only if not in the run, one result per test', async (what, applied, again) => {
      const name = runName(what);
      const env = { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name };
      // A service that makes a scenario's tests again when it is re-added (unspecified): a needless repeat shows as a second test.
      sandbox.configure('cucumberstudio', { readdScenario: 'duplicate' });
      sandbox.setFaults('cucumberstudio', {
        overrides: [
          {
            method: 'PATCH',
            pathIncludes: '/test_runs/',
            status: 500,
            body: '{"error":"Internal Server Error"}',
            headers: JSONAPI,
            times: 1,
            applied,
          },
        ],
      });
      try {
        const { value: run, log } = await recorded(() => runPlaywright({ files: tagged([51, 52, 53], [53]), env }));
        expect(count(log, 'override', 500)).toBe(1);
        expect(count(log, 'PATCH /projects/:pid/test_runs/:trid')).toBe(again);
        const r = csRun(sandbox, name);
        expect(r.scenarioIds.sort()).toEqual([51, 52, 53]);
        expect(r.snapshots.map((t) => [t.scenarioId, t.results.map((x) => x.status)])).toEqual([
          [51, ['passed', 'passed']],
          [52, ['passed', 'passed']],
          [53, ['failed']],
        ]);
        expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, unsent: 0, errors: [] });
      } finally {
        sandbox.configure('cucumberstudio', { readdScenario: 'skip' });
        sandbox.setFaults('cucumberstudio', { overrides: [] });
      }
    });
  });

  it('a truncated JSON list surfaces at once with its own message; the results stay in the outbox and replay sends them', async () => {
    const name = 'fidelity truncated';
    const env = { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name, CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS: '60000' };
    sandbox.setFaults('cucumberstudio', {
      overrides: [
        {
          method: 'GET',
          pathIncludes: '/test_snapshots?include=scenario',
          status: 200,
          body: '{"data":[{"id":"1","type":"test-snapshots","attri',
          headers: JSONAPI,
        },
      ],
    });
    let run;
    const started = Date.now();
    try {
      run = await runPlaywright({ files: tagged([41, 42]), env });
    } finally {
      sandbox.setFaults('cucumberstudio', { overrides: [] });
    }
    const cs = run.summary!.targets.cucumberstudio!;
    expect(cs).toMatchObject({ published: 0, unsent: 2 });
    expect(cs.errors.join('\n')).toMatch(/test_snapshots with text that is not valid JSON/);
    expect(cs.errors.join('\n')).not.toMatch(/still being generated/);
    expect(Date.now() - started).toBeLessThan(60_000); // not polled to the timeout
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    const replay = await runReplay(run.outboxDir, env);
    expect(replay.exitCode, replay.output).toBe(0);
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 41: ['passed'], 42: ['passed'] });
  });

  it('mapped ids that do not exist: one refused create, one GET per mapped id, a run with the others, the rest refused and named', async () => {
    const name = 'fidelity unknown ids';
    const { value: run, log } = await recorded(() =>
      runPlaywright({ files: tagged([51, 52, 987654, 987655]), env: { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name } }),
    );
    const r = csRun(sandbox, name);
    expect(r.scenarioIds.sort((a, b) => a - b)).toEqual([51, 52]);
    expect(csLastStatuses(r)).toEqual({ 51: ['passed'], 52: ['passed'] });
    const cs = run.summary!.targets.cucumberstudio!;
    expect(cs).toMatchObject({ published: 2, unsent: 0, refused: 2 });
    expect(cs.errors).toEqual([
      "scenario 987654 does not exist in project 1 — fix the test's key (tag or annotation); not kept for replay",
      "scenario 987655 does not exist in project 1 — fix the test's key (tag or annotation); not kept for replay",
    ]);
    expect(count(log, 'POST /projects/:pid/test_runs', 422)).toBe(1);
    expect(count(log, 'POST /projects/:pid/test_runs', 201)).toBe(1);
    expect(count(log, ONE_SCENARIO)).toBe(4); // the mapped ids, never the project's size
    expect(count(log, ONE_SCENARIO, 404)).toBe(2);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('only ids that do not exist: the documented empty run (never an empty scenario_ids), every result refused and named', async () => {
    const name = 'fidelity only unknown ids';
    const { value: run, log } = await recorded(() =>
      runPlaywright({ files: tagged([987656]), env: { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name } }),
    );
    expect(count(log, 'POST /projects/:pid/test_runs', 422)).toBe(1); // the mapped id, refused
    expect(count(log, 'POST /projects/:pid/test_runs', 201)).toBe(1); // then { external: true }
    expect(csRun(sandbox, name).scenarioIds).toEqual([]);
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 0, unsent: 0, refused: 1 });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('processes creating the run at the same instant: results in the lowest id; duplicates keep their name and say where the results are', async () => {
    const name = 'fidelity race';
    const env = { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name };
    const printer = createPrinter([], false, () => undefined);
    const summaries = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => {
        const records = [
          { testId: `t${i}`, title: `t${i}`, keys: { cucumberstudio: [String(60 + i)] }, outcome: 'passed' as const, attempts: 1 },
        ];
        const run = new PublishRun(
          { ...resolveConfig({ definitions: TARGETS, options: {}, env }), outboxDir: path.join(tempDir('cs-race'), 'outbox') },
          { printer },
        );
        run.start(records);
        return run.finish(records, 0);
      }),
    );
    for (const s of summaries) expect(s.targets.cucumberstudio).toMatchObject({ published: 1, errors: [] });
    const all = csRuns(sandbox).filter((r) => r.name.startsWith(name));
    const [winner, ...duplicates] = all.sort((a, b) => a.id - b.id);
    for (const s of summaries) expect(s.targets.cucumberstudio!.container!.id).toBe(String(winner.id));
    expect(all.map((r) => r.name)).toEqual(all.map(() => name)); // never renamed
    expect(Object.keys(csLastStatuses(winner)).map(Number).sort()).toEqual([60, 61, 62, 63, 64]);
    const states = (sandbox.state().cucumberstudio as { testRuns: Array<{ id: number; description: string }> }).testRuns;
    for (const d of duplicates) {
      expect(states.find((s) => s.id === d.id)!.description).toBe(duplicateNote(String(winner.id)));
      expect(d.snapshots.every((s) => s.results.length === 0)).toBe(true);
    }
    console.log(`[fidelity] race: ${duplicates.length} duplicate run(s) marked`);
  });
});
