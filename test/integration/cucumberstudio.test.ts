import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import {
  allFileText,
  csLastStatuses,
  csRun,
  csRuns,
  outboxFiles,
  runPlaywright,
  runReplay,
  tempDir,
  testSandbox,
  zephyrStatuses,
  type RunResult,
} from './harness';
import { TEST_BACKOFF_ENV, TEST_UNREACHABLE_ENV } from '../../src/playwright/test-knobs';

/**
 * Runs against a service taken down (connections reset) keep their results in the outbox: they give it up after
 * its 3 tries with the test knob's 20 ms between them, not UNREACHABLE's 1 s and 3 s (that bound is
 * unreachable.test.ts's). Retries of answered failures alike: 20 ms apart, not the lane's backoff.
 */
const QUICK_GIVE_UP = { [TEST_UNREACHABLE_ENV]: '20', [TEST_BACKOFF_ENV]: '20' };

let sandbox: RunningSandbox;
beforeAll(async () => {
  // The harness's short test generation (300 ms): no case here is about waiting it out. The 423 waited out is
  // publishing.test.ts's (3 s) and production-switches.test.ts's (counted in list reads).
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

// The status table published live and merged: publishing.test.ts (one run for both services).

describe.each(['live'] as const)('CucumberStudio reuse (%s)', (mode) => {
  const files = (ids: number[]) => ({
    'r.spec.ts': `const { test } = require('@playwright/test');\n${ids.map((id) => `test('s${id}', { tag: '@cs-${id}' }, () => {});`).join('\n')}`,
  });

  const name = `reuse ${mode}`;
  const envOf = () => ({ ...(sandbox.env() as Record<string, string>), CUCUMBERSTUDIO_TEST_RUN_NAME: name });
  // The first run is also the case of a target with bad settings and nothing mapped to it (Zephyr's access key left
  // out; every test maps to CucumberStudio only): one Playwright run fewer, and CucumberStudio's run is made the same.
  let first: RunResult;
  beforeAll(async () => {
    const { ZEPHYR_ACCESS_KEY: _dropped, ...halfSet } = envOf() as Record<string, string>;
    void _dropped;
    first = await runPlaywright({ files: files([21, 22]), env: halfSet, mode });
  }, 120_000);

  it('reuses an active run by name and by id, adding the scenarios it lacks', async () => {
    const env = envOf();
    expect(first.summary!.targets.cucumberstudio).toMatchObject({ published: 2, errors: [] });
    const second = await runPlaywright({ files: files([21, 22, 23]), env, mode });
    expect(second.summary!.targets.cucumberstudio).toMatchObject({ published: 3, errors: [], container: { reused: true } });
    const r = csRun(sandbox, name);
    expect(r.scenarioIds.sort()).toEqual([21, 22, 23]);
    const results = Object.fromEntries(r.snapshots.map((s) => [s.scenarioId, s.results.length]));
    expect(results).toEqual({ 21: 2, 22: 2, 23: 1 });

    const byId = await runPlaywright({ files: files([24]), env: { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_ID: String(r.id) }, mode });
    expect(byId.summary!.targets.cucumberstudio).toMatchObject({ published: 1, errors: [], container: { id: String(r.id) } });
    expect(csRun(sandbox, name).scenarioIds.sort()).toEqual([21, 22, 23, 24]);
    expect(csRuns(sandbox, name)).toHaveLength(1);

    // An archived run given by id: published into (the service takes it), with one line that says so.
    const e = sandbox.env();
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const archived = await fetch(`${e.CUCUMBERSTUDIO_BASE_URL}/api/projects/1/test_runs/archive?older_than=${tomorrow}`, {
      method: 'POST',
      headers: {
        uid: e.CUCUMBERSTUDIO_UID!,
        'access-token': e.CUCUMBERSTUDIO_ACCESS_TOKEN!,
        client: e.CUCUMBERSTUDIO_CLIENT!,
        accept: 'application/vnd.api+json; version=1',
      },
    });
    expect(archived.status).toBe(200);
    const intoArchived = await runPlaywright({ files: files([24]), env: { ...e, CUCUMBERSTUDIO_TEST_RUN_ID: String(r.id) }, mode });
    expect(intoArchived.output).toContain(`CucumberStudio: test run ${r.id} is archived; its results go there all the same`);
    expect(intoArchived.summary!.targets.cucumberstudio).toMatchObject({
      published: 1,
      errors: [],
      warnings: [expect.stringContaining('archived')],
    });
  });

  it('a target with bad settings and nothing mapped to it leaves no journal behind for it: nothing waits for a replay', () => {
    expect(first.output).toMatch(/ZEPHYR_ACCESS_KEY/);
    expect(first.summary!.targets.cucumberstudio).toMatchObject({ published: 2, errors: [] });
    expect(first.summary!.targets.zephyr).toMatchObject({ unsent: 0 });
    expect(outboxFiles(first.outboxDir)).toEqual([]);
  });
});

describe.each(['live'] as const)('CucumberStudio under faults (%s)', (mode) => {
  it('errors, applied-then-503 and a rate limit: exact last results, no duplicate results', async () => {
    const name = `cs faults ${mode}`;
    sandbox.setFaults('cucumberstudio', { faultRate: 0.2, appliedFaultRate: 0.05, rateLimit: { count: 40, windowMs: 1000 } });
    try {
      // One failing test, the last (a failed result under the same faults; more would each cost a Playwright worker,
      // which starts after every failed attempt that has tests after it).
      const ids = Array.from({ length: 40 }, (_, i) => 100 + i);
      const failing = (id: number) => id === 139;
      const body = ids
        .map((id) => `test('s${id}', { tag: '@cs-${id}' }, () => { ${failing(id) ? "throw new Error('x');" : ''} });`)
        .join('\n');
      const run = await runPlaywright({
        files: { 'f.spec.ts': `const { test } = require('@playwright/test');\n${body}` },
        // Every retry as the product makes it, 20 ms apart instead of its backoff (seconds): what is checked is the
        // state the retries leave, not how long they wait. The 429s keep their own waits.
        env: { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name, CUCUMBERSTUDIO_RATE_LIMIT: '30/1', ...QUICK_GIVE_UP },
        mode,
      });
      const last = csLastStatuses(csRun(sandbox, name)); // throws on duplicates
      expect(last).toEqual(Object.fromEntries(ids.map((id) => [id, [failing(id) ? 'failed' : 'passed']])));
      expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 40, unsent: 0, errors: [] });
    } finally {
      sandbox.setFaults('cucumberstudio', { faultRate: 0, appliedFaultRate: 0, rateLimit: null });
    }
  });
});

describe.each(['live'] as const)('both targets (%s)', (mode) => {
  it('CucumberStudio down while Zephyr is up: Zephyr completes, CucumberStudio waits in the outbox, replay completes it once', async () => {
    const name = `cs down ${mode}`;
    const env = { ...sandbox.env(), CUCUMBERSTUDIO_TEST_RUN_NAME: name, ZEPHYR_CYCLE_NAME: name };
    const files = {
      'both.spec.ts': `const { test } = require('@playwright/test');\ntest('a', { tag: ['@PROJ-41', '@cs-41'] }, () => {});\ntest('b', { tag: ['@PROJ-42', '@cs-42'] }, () => { throw new Error('b'); });`,
    };
    sandbox.setFaults('cucumberstudio', { down: true });
    let run;
    try {
      run = await runPlaywright({ files, env: { ...env, ...QUICK_GIVE_UP }, mode });
    } finally {
      sandbox.setFaults('cucumberstudio', { down: false });
    }
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-41': 1, 'PROJ-42': 2 });
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 2, unsent: 0, errors: [] });
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 0, unsent: 2 });
    expect(csRuns(sandbox, name)).toHaveLength(0);
    const zBefore = sandbox.stats().zephyr.requests;

    const replay = await runReplay(run.outboxDir, env);
    expect(replay.exitCode, replay.output).toBe(0);
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 41: ['passed'], 42: ['failed'] });
    expect(sandbox.stats().zephyr.requests).toBe(zBefore); // Zephyr was complete: not touched again
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    const again = await runReplay(run.outboxDir, env);
    expect(again.output).toContain('nothing to replay');
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 41: ['passed'], 42: ['failed'] });
  });
});

// A target with bad settings and nothing mapped to it: the first run of 'CucumberStudio reuse' above.

describe('an outbox that cannot be written (live)', () => {
  const files = {
    'o.spec.ts': `const { test } = require('@playwright/test');
test('passes', { tag: ['@PROJ-31', '@cs-31'] }, () => {});
test('fails', { tag: ['@PROJ-32', '@cs-32'] }, async ({}, testInfo) => {
  await testInfo.attach('note', { body: 'what went wrong', contentType: 'text/plain' });
  await testInfo.attach('note', { body: 'and then', contentType: 'text/plain' });
  throw new Error('broke');
});`,
  };
  // A file where the outbox folder should be: the journal cannot be made there (as in a read-only folder).
  const blocked = () => {
    const file = path.join(tempDir('blocked'), 'tms-outbox');
    fs.writeFileSync(file, 'not a folder');
    return file;
  };

  it('results are still sent, files too; one line says nothing is kept', async () => {
    const name = 'outbox blocked';
    const run = await runPlaywright({
      files,
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name, PW_TMS_OUTBOX_DIR: blocked() },
    });
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-31': 1, 'PROJ-32': 2 });
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 31: ['passed'], 32: ['failed'] });
    // Two bodies of one name (kept in memory: no outbox to write them to) and Playwright's error context.
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 2, unsent: 0, errors: [], attachments: { uploaded: 3 } });
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 2, unsent: 0, errors: [] });
    expect(run.output).toMatch(
      /the outbox .*tms-outbox cannot be written \(.*\): results are still sent, but what cannot be sent is not kept/,
    );
    expect(run.output).not.toContain('onTestEnd failed');
  });

  it('what cannot be sent is said to be not kept (never "run replay")', async () => {
    const name = 'outbox blocked, service down';
    sandbox.setFaults('zephyr', { down: true });
    let run;
    try {
      run = await runPlaywright({
        files,
        env: {
          ...sandbox.env(),
          ZEPHYR_CYCLE_NAME: name,
          CUCUMBERSTUDIO_TEST_RUN_NAME: name,
          PW_TMS_OUTBOX_DIR: blocked(),
          // Long enough for CucumberStudio to wait out its test generation and confirm the list; Zephyr, down, is
          // given up well before (no answer: a few tries) or cut by it.
          PW_TMS_PUBLISH_TIMEOUT: '8',
          ...QUICK_GIVE_UP,
        },
      });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    expect(run.output).toMatch(/Zephyr Squad: .*2 not sent \(not kept: no outbox\)/);
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 2, unsent: 0 });
  });
});

describe('a reused run replayed (live)', () => {
  it("an earlier run's result alike is not taken for this run's; this run's own is, with the service's clock 30 s behind", async () => {
    // Run A publishes (the service's clock set 2 min back: A was 2 min ago); run B (same run name, CucumberStudio
    // down) keeps its results; the replay looks at each test's last result first (an earlier process may have
    // sent it): run A's, alike in status and description, is older than run B and must not count as sent.
    const name = 'reused, replayed';
    const csOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('ZEPHYR_')));
    const env = { ...csOnly, CUCUMBERSTUDIO_TEST_RUN_NAME: name };
    const files = {
      'r.spec.ts': `const { test } = require('@playwright/test');
test('a', { tag: '@cs-51' }, () => {});
test('b', { tag: '@cs-52' }, () => {});`,
    };
    try {
      sandbox.configure('cucumberstudio', { clockOffsetMs: -120_000 });
      await runPlaywright({ files, env });
      sandbox.configure('cucumberstudio', { clockOffsetMs: 0 });
      expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 51: ['passed'], 52: ['passed'] });
      sandbox.setFaults('cucumberstudio', { down: true });
      let b;
      try {
        b = await runPlaywright({ files, env: { ...env, PW_TMS_PUBLISH_TIMEOUT: '3', ...QUICK_GIVE_UP } });
      } finally {
        sandbox.setFaults('cucumberstudio', { down: false });
      }
      expect(b.summary!.targets.cucumberstudio).toMatchObject({ published: 0, unsent: 2 });
      // A copy of run B's outbox (a CI artifact), replayed once more after the first replay.
      const copy = `${b.outboxDir}-copy`;
      fs.cpSync(b.outboxDir, copy, { recursive: true });
      // From here the service's clock is 30 s behind the runner's: run B's own results look older than run B.
      sandbox.configure('cucumberstudio', { clockOffsetMs: -30_000 });
      const replay = await runReplay(b.outboxDir, env);
      expect(replay.exitCode, replay.output).toBe(0);
      expect(csLastStatuses(csRun(sandbox, name), 2)).toEqual({ 51: ['passed'], 52: ['passed'] });
      expect(outboxFiles(b.outboxDir)).toEqual([]);
      // The copy still has them as not sent: the look takes run B's results for its own despite the clock.
      const again = await runReplay(copy, env);
      expect(again.exitCode, again.output).toBe(0);
      expect(csLastStatuses(csRun(sandbox, name), 2)).toEqual({ 51: ['passed'], 52: ['passed'] });
    } finally {
      sandbox.configure('cucumberstudio', { clockOffsetMs: 0 });
    }
  });
});
