/**
 * A run stopped mid-way: SIGINT (what a CI cancel sends; Playwright stops its workers, marks the running
 * tests `interrupted`, never starts the rest, still calls every reporter's onEnd and exits 130) and SIGKILL
 * of the Playwright process (the reporter runs in it: nothing after the kill). In each case the results
 * Playwright recorded as final reach both services exactly once, after `replay` where the run could not
 * send them; tests that never ran are not invented; the journal goes once done; a second replay sends nothing.
 *
 * The run: group A finishes and streams out; then the services hold every result send (a 429 asking for an
 * hour) and group B finishes, so its results are journaled but not sent; group C waits on a gate that never
 * opens (two of its tests run on the two workers, two never start).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { csRun, outboxFiles, runPlaywright, runReplay, testSandbox, zephyrCycles, zephyrStatuses, type RunResult } from './harness';
import { gatedTest, quickTest, startLiveRun, until, type LiveRun } from './live-run';
import { TEST_BATCH_WAIT_ENV } from '../../src/playwright/test-knobs';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());
const runs: LiveRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.cleanup();
  for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { overrides: [], latencyMs: 0 });
});

/** Title -> Zephyr key, CucumberStudio scenario id (absent: not mapped there) and whether it fails. */
const TESTS: Record<string, { zephyr?: string; cs?: number; fails?: boolean }> = {
  a1: { zephyr: 'PROJ-1', cs: 1 },
  a2: { zephyr: 'PROJ-2', cs: 2, fails: true },
  a3: { zephyr: 'PROJ-3' },
  b1: { zephyr: 'PROJ-4', cs: 4 },
  b2: { zephyr: 'PROJ-5', cs: 5, fails: true },
  c1: { zephyr: 'PROJ-6', cs: 13 },
  c2: { zephyr: 'PROJ-7', cs: 14 },
  c3: { zephyr: 'PROJ-8', cs: 15 },
  c4: { zephyr: 'PROJ-9', cs: 16 },
};
const tags = (title: string) => [TESTS[title].zephyr, TESTS[title].cs && `cs-${TESTS[title].cs}`].filter(Boolean).map((t) => `@${t}`);
const GROUP = (g: string) => Object.keys(TESTS).filter((t) => t.startsWith(g));
const SUITE = {
  'a-early.spec.ts': GROUP('a')
    .map((t) => quickTest(t, tags(t), TESTS[t].fails))
    .join(''),
  'b-middle.spec.ts': GROUP('b')
    .map((t) => gatedTest(t, tags(t), 'b', TESTS[t].fails))
    .join(''),
  'c-late.spec.ts': GROUP('c')
    .map((t) => gatedTest(t, tags(t), 'c'))
    .join(''),
};

/**
 * Both services' batching window in the `streamed` and `held` cases (Zephyr's own is 3 s): what they assert is where
 * results are, not when they left. The `in flight` case keeps the product's windows: it needs B's two results in
 * one Zephyr batch (two requests held at once), which a short window does not promise on a busy machine.
 */
const BATCH_WAIT_MS = '200';
/**
 * How long each service sits on a request in the `in flight` case: long enough to kill the sender meanwhile.
 * CucumberStudio's is longer: its batch goes out ~3 s before Zephyr's (batching windows 200 ms vs 3 s).
 */
const IN_FLIGHT_MS: Record<string, number> = { zephyr: 3_000, cucumberstudio: 8_000 };
const PASS = 1;
const FAIL = 2;
const BLOCKED = 4;
const UNEXECUTED = -1;

/** What the services must hold: each test that ran once, with its status; the others untouched. */
function expected(outcomes: Record<string, 'passed' | 'failed' | 'interrupted' | 'never ran'>) {
  const zephyr: Record<string, [status: number, changes: number]> = {};
  const cs: Record<number, string[]> = {};
  for (const [title, outcome] of Object.entries(outcomes)) {
    const t = TESTS[title];
    const status = { passed: PASS, failed: FAIL, interrupted: BLOCKED, 'never ran': UNEXECUTED }[outcome];
    if (t.zephyr) zephyr[t.zephyr] = [status, outcome === 'never ran' ? 0 : 1];
    if (t.cs) cs[t.cs] = outcome === 'never ran' ? [] : [outcome === 'interrupted' ? 'blocked' : outcome];
  }
  return { zephyr, cs };
}

/** What the services hold: Zephyr key -> [status, status changes]; scenario -> statuses of every result posted. */
function held(name: string) {
  zephyrStatuses(sandbox, name); // throws on a duplicate execution
  const cycle = zephyrCycles(sandbox).find((c) => c.name === name)!;
  const zephyr = Object.fromEntries(cycle.executions.map((e) => [e.issueKey, [e.statusId, e.statusChanges]]));
  const cs: Record<number, string[]> = {};
  for (const s of csRun(sandbox, name).snapshots) (cs[s.scenarioId] ??= []).push(...s.results.map((r) => r.status));
  return { zephyr, cs };
}

/** The outcome the test design gives each test, given which of group C's tests had started when the run stopped. */
function designed(
  startedC: string[],
  cRan: 'interrupted' | 'never ran',
): Record<string, 'passed' | 'failed' | 'interrupted' | 'never ran'> {
  const out: Record<string, 'passed' | 'failed' | 'interrupted' | 'never ran'> = {};
  for (const [title, t] of Object.entries(TESTS))
    out[title] = title.startsWith('c') ? (startedC.includes(title) ? cRan : 'never ran') : t.fails ? 'failed' : 'passed';
  return out;
}

/** Services hold nothing of a result send until `release` (a 429 asking to wait an hour, as Zephyr words it). */
function holdResultSends(): void {
  const zephyrHour = { status: 429, body: '{"errorCode":429,"clientMessage":"Please wait for 3600 seconds"}' };
  sandbox.setFaults('zephyr', {
    overrides: [
      { method: 'PUT', pathIncludes: '/execution/', ...zephyrHour },
      { method: 'POST', pathEquals: '/connect/public/rest/api/1.0/executions', ...zephyrHour },
    ],
  });
  sandbox.setFaults('cucumberstudio', {
    overrides: [
      {
        method: 'POST',
        pathIncludes: '/test_results',
        status: 429,
        headers: { 'Retry-After': '3600', 'content-type': 'application/vnd.api+json' },
        body: '{"errors":[{"status":"429","title":"Too Many Requests","detail":"Rate limit exceeded. Retry in 3600 seconds."}]}',
      },
    ],
  });
}
function releaseResultSends(): void {
  sandbox.setFaults('zephyr', { overrides: [] });
  sandbox.setFaults('cucumberstudio', { overrides: [] });
}
const refusedSends = (service: string) => sandbox.stats()[service].overridden;
/** Requests the service has received and not answered yet (the core counts arrivals, and routes when it answers). */
function inFlight(service: string): number {
  const st = sandbox.stats()[service];
  return st.requests - Object.values(st.byRoute).reduce((a, b) => a + b, 0);
}

/**
 * Starts the suite and brings it to the point where A is in both services, B is finished and two of C's tests
 * are running. B's results are then: `streamed` (in both services), `held` (refused by both, an hour asked for),
 * or `in flight` (received by both services and not answered yet: applied whatever becomes of the sender).
 * Returns the run and the titles of C's tests that started.
 */
async function runUntilMidway(name: string, b: 'streamed' | 'held' | 'in flight'): Promise<{ run: LiveRun; startedC: string[] }> {
  // Two workers: group B's two tests are held side by side while group A's results stream.
  const run = startLiveRun(
    SUITE,
    {
      ...sandbox.env(),
      ZEPHYR_CYCLE_NAME: name,
      CUCUMBERSTUDIO_TEST_RUN_NAME: name,
      [TEST_BATCH_WAIT_ENV]: b === 'in flight' ? undefined : BATCH_WAIT_MS,
    },
    { workers: 2 },
  );
  runs.push(run);
  await until('both workers on group B', () => GROUP('b').every((t) => run.started().includes(t)));
  await until('group A streamed to both services', () => {
    const { zephyr, cs } = heldOrEmpty(name);
    return (
      zephyr['PROJ-1']?.[0] === PASS &&
      zephyr['PROJ-2']?.[0] === FAIL &&
      zephyr['PROJ-3']?.[0] === PASS &&
      cs[1]?.length === 1 &&
      cs[2]?.length === 1
    );
  });
  const refused = { zephyr: refusedSends('zephyr'), cucumberstudio: refusedSends('cucumberstudio') };
  if (b === 'held') holdResultSends();
  if (b === 'in flight')
    for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { latencyMs: IN_FLIGHT_MS[service] });
  run.open('b');
  await until('groups A and B final in Playwright', () => run.finished() === 5);
  await until('two of group C running', () => GROUP('c').filter((t) => run.started().includes(t)).length === 2);
  if (b === 'in flight')
    // Zephyr gets B's two results in one batch (a bulk status and a comment PUT); CucumberStudio one batch at a time.
    await until("B's results received and not answered", () => inFlight('zephyr') >= 2 && inFlight('cucumberstudio') >= 1);
  else if (b === 'held')
    await until(
      "B's results sent and held by both services",
      () => refusedSends('zephyr') > refused.zephyr && refusedSends('cucumberstudio') > refused.cucumberstudio,
    );
  else
    await until('group B streamed', () => {
      const { zephyr, cs } = heldOrEmpty(name);
      return zephyr['PROJ-4']?.[0] === PASS && zephyr['PROJ-5']?.[0] === FAIL && cs[4]?.length === 1 && cs[5]?.length === 1;
    });
  return { run, startedC: GROUP('c').filter((t) => run.started().includes(t)) };
}

function heldOrEmpty(name: string): ReturnType<typeof held> {
  try {
    return held(name);
  } catch {
    return { zephyr: {}, cs: {} }; // the cycle or the run does not exist yet
  }
}

/** Replays; then a second replay finds nothing and makes no request. */
async function replayTwice(outboxDir: string): Promise<void> {
  const first = await runReplay(outboxDir, sandbox.env());
  expect(first.exitCode, first.output).toBe(0);
  expect(outboxFiles(outboxDir)).toEqual([]);
  const requests = sandbox.log().length;
  const second = await runReplay(outboxDir, sandbox.env());
  expect(second.exitCode, second.output).toBe(0);
  expect(second.output).toMatch(/nothing to replay/);
  expect(sandbox.log().length).toBe(requests);
}

describe('SIGINT mid-run (live)', () => {
  it('the end sends what the stream had not plus the interrupted tests, once; tests that never ran are not invented', async () => {
    const name = 'sigint';
    const { run, startedC } = await runUntilMidway(name, 'streamed');
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.code, exit.output).toBe(130);
    const outcomes = designed(startedC, 'interrupted');
    expect(run.recorded()).toEqual(recordedBy(outcomes));
    expect(held(name)).toEqual(expected(outcomes));
    // Everything was sent before the process exited: the journal went with it.
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    await replayTwice(run.outboxDir);
    expect(held(name)).toEqual(expected(outcomes));
  });

  it('with sends held by the services, the rest stays in the journal and replay sends it exactly once', async () => {
    const name = 'sigint held';
    const { run, startedC } = await runUntilMidway(name, 'held');
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.code, exit.output).toBe(130);
    const outcomes = designed(startedC, 'interrupted');
    expect(run.recorded()).toEqual(recordedBy(outcomes));
    // The end did not wait the hour out: what the services held back is in the journal.
    expect(exit.output).toMatch(/replay/);
    const summary = JSON.parse(fs.readFileSync(path.join(run.dir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.targets.zephyr.unsent).toBe(4); // B's two and the two interrupted
    expect(summary.targets.cucumberstudio.unsent).toBe(4);
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    const streamedOnly = designed([], 'never ran');
    for (const t of [...GROUP('b')]) streamedOnly[t] = 'never ran';
    expect(held(name)).toEqual(expected(streamedOnly));
    releaseResultSends();
    await replayTwice(run.outboxDir);
    expect(held(name)).toEqual(expected(outcomes));
  });
});

describe('SIGKILL mid-run (live)', () => {
  it('what was journaled before the kill is sent once by replay; the running tests had no result and get none', async () => {
    const name = 'sigkill';
    const { run, startedC } = await runUntilMidway(name, 'held');
    run.child.kill('SIGKILL');
    const exit = await run.exited;
    expect(exit.signal).toBe('SIGKILL');
    run.cleanup(); // the workers of a killed runner
    expect(fs.existsSync(path.join(run.dir, 'results.json'))).toBe(false); // no reporter got to onEnd
    const streamedOnly = designed([], 'never ran');
    for (const t of GROUP('b')) streamedOnly[t] = 'never ran';
    expect(held(name)).toEqual(expected(streamedOnly));
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    releaseResultSends();
    await replayTwice(run.outboxDir);
    expect(startedC).toHaveLength(2);
    expect(held(name)).toEqual(expected(designed(startedC, 'never ran')));
  });
});

describe('SIGKILL with results in flight (live)', () => {
  it('results the services applied after the kill, before the journal could say so, are not sent again by replay', async () => {
    const name = 'sigkill in flight';
    const { run, startedC } = await runUntilMidway(name, 'in flight');
    run.child.kill('SIGKILL');
    await run.exited;
    run.cleanup();
    // The services answer the held requests to nobody, and apply them: B's failure is in Zephyr, journaled as not done.
    await until('held requests answered', () => inFlight('zephyr') === 0 && inFlight('cucumberstudio') === 0);
    for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { latencyMs: 0 });
    expect(heldOrEmpty(name).zephyr['PROJ-5']).toEqual([FAIL, 1]);
    expect(doneInJournal(run.outboxDir, 'zephyr')).not.toContain('PROJ-5');
    await replayTwice(run.outboxDir);
    expect(held(name)).toEqual(expected(designed(startedC, 'never ran')));
  });
});

/** Keys the journal marks done for a target. */
function doneInJournal(outboxDir: string, target: string): string[] {
  const lines = outboxFiles(outboxDir).flatMap((f) => fs.readFileSync(path.join(outboxDir, f), 'utf8').split('\n'));
  return lines
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { t: string; target?: string; items?: Array<[string]> })
    .filter((l) => l.t === 'done' && l.target === target)
    .flatMap((l) => l.items!.map(([key]) => key));
}

/** Playwright's report for these outcomes: one result per test that ran, none for a test that never ran. */
function recordedBy(outcomes: Record<string, string>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(outcomes).map(([t, o]) => [t, o === 'never ran' ? [] : [o]]));
}

/**
 * Playwright's global timeout is wall time from the run's start, and the case needs `passes` finished and `hangs`
 * started before it fires. A quiet machine gets there in about 2 s: the first run allows 5 s; a run that the machine
 * was too slow for (`passes` not passed, or `hangs` not started: a mark it leaves) is done again, with a fresh name,
 * allowing longer. `hangs` has no test timeout of its own (Playwright's 30 s would end it first).
 */
const GLOBAL_TIMEOUTS_MS = [5_000, 20_000, 60_000];

describe.each(['live'] as const)('globalTimeout mid-run (%s)', (mode) => {
  it('the test it cuts short is interrupted (BLOCKED, worst over its key), not skipped; a test it never started is not invented', async () => {
    let name = '';
    let run: RunResult | undefined;
    for (const [attempt, timeoutMs] of GLOBAL_TIMEOUTS_MS.entries()) {
      name = `global timeout ${mode} ${attempt}`;
      run = await runPlaywright({
        files: {
          'g.spec.ts': `const { test } = require('@playwright/test');
const fs = require('node:fs');
test('passes', { tag: ['@PROJ-71', '@cs-71'] }, () => {});
test('hangs', { tag: ['@PROJ-71', '@cs-71', '@PROJ-72'] }, async () => {
  test.setTimeout(0);
  fs.writeFileSync('hangs-started', ''); // in the run's folder, Playwright's working directory
  await new Promise((r) => setTimeout(r, 120_000));
});
test('never starts', { tag: '@PROJ-73' }, () => {});`,
        },
        env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name },
        workers: 1,
        args: [`--global-timeout=${timeoutMs}`],
        mode,
      });
      // The run the case is about: `passes` passed and `hangs` had started when the timeout came.
      if (/\b1 passed\b/.test(run.output) && fs.existsSync(path.join(run.dir, 'hangs-started'))) break;
    }
    if (mode === 'live') expect(run!.exitCode, run!.output).not.toBe(0);
    const { zephyr, cs } = held(name);
    // PROJ-73 was added to the cycle before the tests ran; it keeps no status of its own.
    expect(zephyr).toEqual({ 'PROJ-71': [BLOCKED, 1], 'PROJ-72': [BLOCKED, 1], 'PROJ-73': [UNEXECUTED, 0] });
    expect(cs).toEqual({ 71: ['blocked'] });
    expect(run!.summary!.targets.zephyr).toMatchObject({ published: 2, notRun: 1, errors: [] });
  });
});
