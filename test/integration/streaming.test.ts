/**
 * Publishing while the tests run: the sandbox is observed from inside the run (a later test waits
 * until an earlier test's result is in the sandbox), a key mapped late at run time is corrected, and
 * publishTimeout cuts an end that the service asks to wait an hour for.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csLastStatuses, csRun, outboxFiles, runPlaywright, runReplay, testSandbox, zephyrCycles, zephyrStatuses } from './harness';
import { TEST_BATCH_WAIT_ENV } from '../../src/playwright/test-knobs';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

const NAME = 'streamed';
const OBSERVING_SUITE = {
  'stream.spec.ts': `
const { test } = require('@playwright/test');
test.describe.configure({ mode: 'serial' });
const NAME = ${JSON.stringify(NAME)};
const state = async () => (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/state')).json();
async function seen(what, pred) {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    if (pred(await state())) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('not in the sandbox while the run went on: ' + what);
}
const zStatus = (s, key) => s.zephyr.cycles.filter((c) => c.name === NAME).flatMap((c) => c.executions).find((e) => e.issueKey === key)?.statusId;
const csResults = (s, id) => s.cucumberstudio.testRuns.filter((r) => r.name === NAME).flatMap((r) => r.snapshots).filter((x) => x.scenarioId === id).flatMap((x) => x.results);
test('first', { tag: ['@PROJ-1', '@cs-1'] }, () => {});
test('sees the first result while the run goes on', { tag: '@PROJ-2' }, async () => {
  test.setTimeout(90_000);
  await seen('PROJ-1 PASS', (s) => zStatus(s, 'PROJ-1') === 1);
  await seen('scenario 1 passed', (s) => csResults(s, 1).length === 1);
});
test('later', { tag: '@PROJ-20' }, () => {});
test('maps PROJ-20 at run time, after its result went out, and fails', async () => {
  test.setTimeout(90_000);
  await seen('PROJ-20 PASS before the correction', (s) => zStatus(s, 'PROJ-20') === 1);
  test.info().annotations.push({ type: 'zephyr', description: 'PROJ-20' });
  throw new Error('late failure');
});
`,
};

describe('publishing during the run (live)', () => {
  it('results reach the services while tests still run; a late run-time mapping corrects the key (worst wins)', async () => {
    // The observing tests wait for results to arrive, not for Zephyr's 3 s batching window (twice 3 s of this run).
    const run = await runPlaywright({
      files: OBSERVING_SUITE,
      env: {
        ...sandbox.env(),
        SANDBOX_ORIGIN: sandbox.origin,
        ZEPHYR_CYCLE_NAME: NAME,
        CUCUMBERSTUDIO_TEST_RUN_NAME: NAME,
        [TEST_BATCH_WAIT_ENV]: '200',
      },
    });
    // Only the deliberately failing last test fails: the two observing tests saw results mid-run.
    expect(run.output).toMatch(/1 failed/);
    expect(run.output).toMatch(/3 passed/);
    expect(zephyrStatuses(sandbox, NAME)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 1, 'PROJ-20': 2 });
    const late = zephyrCycles(sandbox)
      .find((c) => c.name === NAME)!
      .executions.find((e) => e.issueKey === 'PROJ-20')!;
    expect(late.statusChanges).toBeGreaterThanOrEqual(2); // PASS first, then corrected to FAIL
    expect(csLastStatuses(csRun(sandbox, NAME))).toEqual({ 1: ['passed'] });
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 3, unsent: 0, errors: [] });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });
});

/** A serial spec's head, with `results(scenarioId)`: the results the sandbox holds for the run `name`. */
const serialHead = (name: string) => `
const { test } = require('@playwright/test');
test.describe.configure({ mode: 'serial' });
const NAME = ${JSON.stringify(name)};
const results = async (id) => {
  const s = await (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/state')).json();
  return s.cucumberstudio.testRuns.filter((r) => r.name === NAME).flatMap((r) => r.snapshots).filter((x) => x.scenarioId === id).flatMap((x) => x.results);
};`;

describe('a serial group retried together (live)', () => {
  it('a test skipped because an earlier one failed, then run again on the retry, gets one result, not two', async () => {
    // Playwright skips the rest of a serial group after a failure and then retries the whole group: the
    // skipped attempt is not the test's last. The retry waits until the first test's result is in the
    // sandbox, so anything final by then has gone out while the run goes on.
    const name = 'serial retried';
    const run = await runPlaywright({
      files: {
        'serial.spec.ts': `${serialHead(name)}
test('first', { tag: '@cs-61' }, () => {});
test('flaky', { tag: '@cs-62' }, async () => {
  if (test.info().retry === 0) throw new Error('first attempt fails');
  test.setTimeout(90_000);
  while ((await results(61)).length === 0) await new Promise((r) => setTimeout(r, 200));
});
test('skipped, then run', { tag: '@cs-63' }, () => {});
`,
      },
      retries: 1,
      env: { ...sandbox.env(), SANDBOX_ORIGIN: sandbox.origin, CUCUMBERSTUDIO_TEST_RUN_NAME: name },
    });
    expect(run.output).toMatch(/1 flaky/);
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 61: ['passed'], 62: ['passed'], 63: ['passed'] });
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, unsent: 0, errors: [] });
  });

  it('a test that passed, then failed when the group was retried, gets one result (its final one) and a true comment', async () => {
    // The group's first attempt waits until the passing attempt's result is in the sandbox (10 s at most): the
    // group's retry then runs the test again, and its final record corrects that result (edited, not a second one).
    const name = 'serial passed then failed';
    const run = await runPlaywright({
      files: {
        'serial.spec.ts': `${serialHead(name)}
test('passes, then fails on the retry', { tag: ['@cs-64', '@PROJ-64'] }, () => {
  if (test.info().retry === 1) throw new Error('backend gone on retry');
});
test('fails first', { tag: ['@cs-65', '@PROJ-65'] }, async () => {
  if (test.info().retry > 0) return;
  for (let i = 0; i < 50 && (await results(64)).length === 0; i++) await new Promise((r) => setTimeout(r, 200));
  throw new Error('fails first');
});
`,
        // Playwright calls it flaky (the retry's skip makes the test's expected status "skipped"); nothing passed.
        'retry-skips.spec.ts': `const { test } = require('@playwright/test');
test('fails, then skips itself on the retry', { tag: ['@cs-66', '@PROJ-66'] }, () => {
  test.skip(test.info().retry > 0, 'skipped on the retry');
  throw new Error('fails before the skip');
});
`,
      },
      retries: 1,
      env: { ...sandbox.env(), SANDBOX_ORIGIN: sandbox.origin, CUCUMBERSTUDIO_TEST_RUN_NAME: name, ZEPHYR_CYCLE_NAME: name },
    });
    expect(csLastStatuses(csRun(sandbox, name))).toEqual({ 64: ['passed'], 65: ['failed'], 66: ['failed'] });
    expect(zephyrStatuses(sandbox, name)).toMatchObject({ 'PROJ-66': 2 });
    const [edited] = csRun(sandbox, name).snapshots.find((s) => s.scenarioId === 64)!.results;
    expect(edited.description).toContain('Later failure: Error: backend gone on retry');
    const a = zephyrCycles(sandbox)
      .find((c) => c.name === name)!
      .executions.find((e) => e.issueKey === 'PROJ-64')!;
    expect(a.comment).toContain('Flaky: passed on attempt 1 of');
    expect(a.comment).toContain('Later failure: Error: backend gone on retry');
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 3, unsent: 0, errors: [] });
  });
});

describe('a target no test maps to (live)', () => {
  it('gets no cycle; a run-time annotation that maps one creates it then, and its result is published', async () => {
    const files = {
      'cs-only.spec.ts': `const { test } = require('@playwright/test');
test('a', { tag: '@cs-71' }, () => {});
test('b', { tag: '@cs-72' }, () => { if (process.env.LATE_KEY) test.info().annotations.push({ type: 'zephyr', description: 'PROJ-71' }); });`,
    };
    const before = sandbox.stats().zephyr.requests;
    const unmapped = await runPlaywright({
      files,
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'never mapped', CUCUMBERSTUDIO_TEST_RUN_NAME: 'never mapped' },
    });
    expect(sandbox.stats().zephyr.requests).toBe(before);
    expect(zephyrCycles(sandbox).filter((c) => c.name === 'never mapped')).toEqual([]);
    expect(unmapped.summary!.targets.zephyr).toMatchObject({ published: 0, unmapped: 2, unsent: 0, errors: [] });
    expect(unmapped.summary!.targets.zephyr.container).toBeUndefined();
    expect(unmapped.output).toContain('Zephyr Squad: nothing mapped here');
    expect(unmapped.summary!.targets.cucumberstudio).toMatchObject({ published: 2, errors: [] });
    expect(outboxFiles(unmapped.outboxDir)).toEqual([]);

    const late = await runPlaywright({
      files,
      env: { ...sandbox.env(), LATE_KEY: '1', ZEPHYR_CYCLE_NAME: 'mapped late', CUCUMBERSTUDIO_TEST_RUN_NAME: 'mapped late' },
    });
    expect(zephyrStatuses(sandbox, 'mapped late')).toEqual({ 'PROJ-71': 1 });
    expect(late.summary!.targets.zephyr).toMatchObject({ published: 1, unmapped: 1, unsent: 0, errors: [] });
  });
});

describe('the end of the tests (live)', () => {
  it('what the stream still holds goes when the last test ends, before onEnd: a global teardown sees it in the sandbox', async () => {
    // Paced, the stream keeps passed results for the end's one bulk call (the estimated end is always
    // within the window in so short a run); once every test has its result, that call need not wait
    // for onEnd, which comes after the workers stop and the global teardown.
    const name = 'tests over';
    const keys = Array.from({ length: 12 }, (_, i) => `PROJ-${300 + i}`);
    const tests = keys.map((k, i) => `test('t${i}', { tag: '@${k}' }, () => {});`).join('\n');
    const teardown = `
module.exports = async () => {
  const end = Date.now() + 15_000;
  let statuses = {};
  while (Date.now() < end) {
    const s = await (await fetch(process.env.SANDBOX_ORIGIN + '/__sandbox/state')).json();
    const execs = s.zephyr.cycles.filter((c) => c.name === ${JSON.stringify(name)}).flatMap((c) => c.executions);
    statuses = Object.fromEntries(execs.map((e) => [e.issueKey, e.statusId]));
    if (${JSON.stringify(keys)}.every((k) => statuses[k] === 1)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  require('node:fs').writeFileSync(require('node:path').join(__dirname, 'seen-before-onend.json'), JSON.stringify(statuses));
};
`;
    const zephyrOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    const run = await runPlaywright({
      files: { 'serial.spec.ts': `const { test } = require('@playwright/test');\n${tests}`, 'tests/teardown.cjs': teardown },
      globalTeardown: 'tests/teardown.cjs',
      workers: 1,
      env: { ...zephyrOnly, SANDBOX_ORIGIN: sandbox.origin, ZEPHYR_CYCLE_NAME: name, ZEPHYR_RATE_LIMIT: '30/60' },
    });
    expect(run.exitCode).toBe(0);
    const seen = JSON.parse(fs.readFileSync(path.join(run.dir, 'tests', 'seen-before-onend.json'), 'utf8')) as Record<string, number>;
    expect(seen).toEqual(Object.fromEntries(keys.map((k) => [k, 1])));
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 12, unsent: 0, errors: [] });
  });
});

describe('publishTimeout (live)', () => {
  it('cuts an end the service asks to wait an hour for; the rest stays in the outbox and replay sends it once', async () => {
    const name = 'cut short';
    sandbox.setFaults('zephyr', {
      overrides: [
        {
          method: 'PUT',
          pathIncludes: '/execution/',
          status: 429,
          body: '{"errorCode":429,"clientMessage":"Please wait for 3600 seconds"}',
        },
      ],
    });
    const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, PW_TMS_PUBLISH_TIMEOUT: '5' };
    const started = Date.now();
    const run = await runPlaywright({
      files: {
        'cut.spec.ts': `const { test } = require('@playwright/test');\ntest('passes', { tag: '@PROJ-1' }, () => {});\ntest('fails', { tag: '@PROJ-2' }, () => { throw new Error('boom'); });`,
      },
      env,
    });
    sandbox.setFaults('zephyr', { overrides: [] });
    // An hour was asked for; the run ended within the timeout plus Playwright's own time.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(run.output).toMatch(/publishTimeout/);
    expect(run.output).toMatch(/not sent \(kept in .*replay/);
    // The hour is for the whole key: nothing went out, and the end was cut short by publishTimeout, which refused the wait.
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 0, unsent: 2, cutShort: true });
    expect(run.output).toMatch(/Zephyr Squad: cycle "cut short" \(id [^)]+\), cut short by publishTimeout — 0 published/);
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    // A first replay gets PROJ-1 in (PROJ-2's comment is refused); a second one that cannot reach the cycle counts
    // as not sent only what is left, not what the first one sent.
    const hour = { status: 429, body: '{"errorCode":429,"clientMessage":"Please wait for 3600 seconds"}' };
    sandbox.setFaults('zephyr', {
      overrides: [{ method: 'PUT', pathIncludes: '/execution/', status: 400, body: '{"errorCode":151,"clientMessage":"no"}' }],
    });
    const half = await runReplay(run.outboxDir, sandbox.env());
    expect(half.output).toMatch(/Zephyr Squad: .*— 1 published.*1 not sent/);
    sandbox.setFaults('zephyr', { overrides: [{ method: 'GET', pathIncludes: '/rest/api/1.0/cycle/', ...hour }] });
    const stillOut = await runReplay(run.outboxDir, { ...sandbox.env(), PW_TMS_PUBLISH_TIMEOUT: '3' });
    sandbox.setFaults('zephyr', { overrides: [] });
    expect(stillOut.exitCode, stillOut.output).toBe(1);
    expect(stillOut.output).toMatch(/Zephyr Squad: .*— 0 published; 1 not sent/);
    const replayed = await runReplay(run.outboxDir, sandbox.env());
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 2 });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('cuts a service too slow to answer: the summary says so, and the requests it abandons add no error lines', async () => {
    const name = 'cut while in flight';
    // No answer comes within the run: its first requests are still in flight when publishTimeout ends it.
    sandbox.setFaults('zephyr', { latencyMs: 20_000 });
    let run;
    try {
      run = await runPlaywright({
        files: { 'slow.spec.ts': `const { test } = require('@playwright/test');\ntest('passes', { tag: '@PROJ-1' }, () => {});` },
        env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, PW_TMS_PUBLISH_TIMEOUT: '2' },
      });
    } finally {
      sandbox.setFaults('zephyr', { latencyMs: 0 });
    }
    const lines = run.output.split('\n').filter((l) => l.includes('[tms-reporter]'));
    const summary = lines.findIndex((l) => l.includes('Zephyr Squad: cut short by publishTimeout — 0 published; 1 not sent (kept in'));
    expect(summary, lines.join('\n')).toBeGreaterThanOrEqual(0);
    // The requests abandoned at the cut are closed by the reporter itself: not "reset by the server", and not news after the summary.
    expect(run.output).not.toContain('connection reset');
    expect(
      lines.slice(summary + 1).filter((l) => l.includes('Zephyr')),
      lines.join('\n'),
    ).toEqual([]);
    // CucumberStudio, with nothing mapped to it, was done in time: its line says so, not that it was cut.
    expect(lines).toContainEqual(expect.stringContaining('CucumberStudio: nothing mapped here — 0 published; 1 test not mapped'));
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ errors: [] });
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
  });
});
