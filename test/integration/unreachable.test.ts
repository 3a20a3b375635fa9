/**
 * A service that goes away mid-run (issue 30 item 2): after the first results are in, its connections are
 * refused, or accepted and never answered. The run must end within the documented bound (README,
 * Troubleshooting: ≈ 4 s after the first refusal; two request timeouts + 1 s for a service that never
 * answers; once more at the end when that happened while the tests ran), name the cause, and keep the rest
 * in the outbox, from which a replay sends it once the service is back.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/shared/model';
import type { RunningSandbox } from '../../src/sandbox';
import { csRuns, outboxFiles, runReplay, testSandbox, zephyrCycles, zephyrStatuses } from './harness';
import { gatedTest, quickTest, startLiveRun, until, type LiveRun } from './live-run';
import { switchableProxy, type SwitchableProxy } from './switchable-proxy';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());
const runs: LiveRun[] = [];
const proxies: SwitchableProxy[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) run.cleanup();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

/** Two results before the service goes away, three after. */
const N = { early: [1, 2], late: [3, 4, 5] };
/** The longest the end may take from the moment the service goes away (the bounds above, with room for Playwright). */
const BOUND_MS = 25_000;

const SERVICES = {
  zephyr: {
    label: 'Zephyr',
    tag: (n: number) => `@PROJ-${n}`,
    key: (n: number) => `PROJ-${n}`,
    env: (proxy: string, name: string) => ({
      ...only('ZEPHYR_'),
      ZEPHYR_BASE_URL: sandbox.env().ZEPHYR_BASE_URL.replace(sandbox.origin, proxy),
      ZEPHYR_CYCLE_NAME: name,
    }),
    direct: (name: string) => ({ ...only('ZEPHYR_'), ZEPHYR_CYCLE_NAME: name }),
    held: (name: string) => {
      const cycle = zephyrCycles(sandbox).find((c) => c.name === name);
      return (cycle?.executions ?? []).filter((e) => e.statusId !== -1).map((e) => Number(e.issueKey.slice(5)));
    },
    all: (name: string) =>
      expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 1, 'PROJ-3': 1, 'PROJ-4': 1, 'PROJ-5': 1 }),
  },
  cucumberstudio: {
    label: 'CucumberStudio',
    tag: (n: number) => `@cs-${n}`,
    key: (n: number) => String(n),
    env: (proxy: string, name: string) => ({
      ...only('CUCUMBERSTUDIO_'),
      CUCUMBERSTUDIO_BASE_URL: proxy,
      CUCUMBERSTUDIO_TEST_RUN_NAME: name,
    }),
    direct: (name: string) => ({ ...only('CUCUMBERSTUDIO_'), CUCUMBERSTUDIO_TEST_RUN_NAME: name }),
    held: (name: string) => {
      const run = csRuns(sandbox, name)[0];
      return (run?.snapshots ?? []).filter((s) => s.results.length).map((s) => s.scenarioId);
    },
    all: (name: string) => {
      const run = csRuns(sandbox, name)[0];
      const got = Object.fromEntries(run.snapshots.map((s) => [s.scenarioId, s.results.map((r) => r.status)]));
      expect(got).toEqual({ 1: ['passed'], 2: ['passed'], 3: ['passed'], 4: ['passed'], 5: ['passed'] });
    },
  },
} as const;

/** Keys the journal marks done for a target. */
function doneInJournal(outboxDir: string, target: string): string[] {
  const lines = outboxFiles(outboxDir).flatMap((f) => fs.readFileSync(path.join(outboxDir, f), 'utf8').split('\n'));
  return lines
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { t: string; target?: string; items?: Array<[string]> })
    .filter((l) => l.t === 'done' && l.target === target)
    .flatMap((l) => l.items!.map(([key]) => key));
}

/** The sandbox's env for one service only. */
function only(prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => k.startsWith(prefix)));
}

const CAUSE = { refuse: 'connection refused', hang: 'no answer within the request timeout' } as const;

// Both services in one Playwright run per mode (their keys are disjoint): each goes away behind its own proxy at
// the same moment, and each is held to everything a run of its own would be.
const IDS = ['zephyr', 'cucumberstudio'] as const;
describe('both services go away mid-run', () => {
  it.each(['refuse', 'hang'] as const)(
    'connections %s: the run ends within the bound, names each cause, keeps the rest for replay',
    async (mode) => {
      const name = `unreachable ${mode}`;
      const proxy = { zephyr: await switchableProxy(sandbox.origin), cucumberstudio: await switchableProxy(sandbox.origin) };
      proxies.push(proxy.zephyr, proxy.cucumberstudio);
      const tags = (n: number) => IDS.map((id) => SERVICES[id].tag(n));
      const files = {
        'a-early.spec.ts': N.early.map((n) => quickTest(`t${n}`, tags(n))).join(''),
        'b-late.spec.ts': N.late.map((n) => gatedTest(`t${n}`, tags(n), 'late')).join(''),
      };
      // A short request timeout keeps the "never answers" case fast; the bound scales with it (README).
      const env = Object.assign({}, ...IDS.map((id) => SERVICES[id].env(proxy[id].origin, name)));
      const run = startLiveRun(files, { ...env, PW_TMS_REQUEST_TIMEOUT: '1' });
      runs.push(run);
      // Confirmed by each service (journaled done), not only applied: a job still polled would count as not sent.
      for (const id of IDS) {
        const early = N.early.map((n) => SERVICES[id].key(n));
        await until(`${id}: the early results are confirmed`, () => early.every((k) => doneInJournal(run.outboxDir, id).includes(k)));
      }
      await Promise.all(IDS.map((id) => proxy[id].switchTo(mode)));
      const wentAway = Date.now();
      run.open('late');
      const { output } = await run.exited;
      const tookMs = Date.now() - wentAway;

      expect(tookMs, output).toBeLessThan(BOUND_MS);
      const summary = JSON.parse(fs.readFileSync(path.join(run.dir, 'summary.json'), 'utf8')) as RunSummary;
      for (const id of IDS) {
        const s = SERVICES[id];
        const cause = `${s.label} unreachable: ${CAUSE[mode]} at ${proxy[id].host}`;
        expect(output).toContain(cause);
        // Nothing reached the service after it went away; what it holds is what it had.
        expect(s.held(name).sort(), id).toEqual(N.early);
        expect(summary.targets[id], output).toMatchObject({ published: 2, unsent: 3 });
        expect(summary.targets[id]!.errors[0]).toContain(cause);
      }
      expect(output).not.toMatch(/still not ready|raise .*TIMEOUT|cut short by publishTimeout/);
      expect(outboxFiles(run.outboxDir)).toHaveLength(1);

      // The services are back: the rest goes from the outbox, once.
      const replay = await runReplay(run.outboxDir, Object.assign({}, ...IDS.map((id) => SERVICES[id].direct(name))));
      expect(replay.exitCode, replay.output).toBe(0);
      for (const id of IDS) SERVICES[id].all(name);
      expect(outboxFiles(run.outboxDir)).toEqual([]);
    },
    90_000,
  );
});

describe('CucumberStudio goes away while a new run’s tests are generated', () => {
  it('a refused connection is not "still generating": given up within the bound, the cause named, no advice to raise the timeout', async () => {
    // Its own sandbox: generation slow enough to go away in the middle of it.
    const slow = await testSandbox({ cucumberstudio: { generationDelayMs: 5_000 } });
    const proxy = await switchableProxy(slow.origin);
    proxies.push(proxy);
    try {
      const name = 'unreachable while generating';
      const env = Object.fromEntries(Object.entries(slow.env()).filter(([k]) => k.startsWith('CUCUMBERSTUDIO_')));
      const files = { 'a.spec.ts': [1, 2, 3].map((n) => quickTest(`t${n}`, [`@cs-${n}`])).join('') };
      const run = startLiveRun(files, { ...env, CUCUMBERSTUDIO_BASE_URL: proxy.origin, CUCUMBERSTUDIO_TEST_RUN_NAME: name });
      runs.push(run);
      const created = () => (slow.state().cucumberstudio as { testRuns: Array<{ name: string }> }).testRuns.some((r) => r.name === name);
      await until('the run is created', created);
      await proxy.switchTo('refuse');
      const wentAway = Date.now();
      const { output } = await run.exited;

      expect(Date.now() - wentAway, output).toBeLessThan(BOUND_MS);
      expect(output).toContain(`CucumberStudio unreachable: connection refused at ${proxy.host}`);
      expect(output).not.toMatch(/still being generated|still not ready|snapshotTimeoutMs|CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS/);
      const summary = JSON.parse(fs.readFileSync(path.join(run.dir, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.targets.cucumberstudio).toMatchObject({ published: 0, unsent: 3 });
      expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  }, 90_000);
});

describe('Zephyr goes away while its job runs', () => {
  it('the job is not polled through "connection refused" until its timeout: given up within the bound, the cause named', async () => {
    // Its own sandbox: jobs slow enough to go away while the reporter polls one.
    const slow = await testSandbox({ zephyr: { jobDelayMs: 5_000 } });
    const proxy = await switchableProxy(slow.origin);
    proxies.push(proxy);
    try {
      const name = 'unreachable while a job runs';
      const env = Object.fromEntries(Object.entries(slow.env()).filter(([k]) => k.startsWith('ZEPHYR_')));
      const files = { 'a.spec.ts': [1, 2, 3].map((n) => quickTest(`t${n}`, [`@PROJ-${n}`])).join('') };
      const run = startLiveRun(files, {
        ...env,
        ZEPHYR_BASE_URL: env.ZEPHYR_BASE_URL.replace(slow.origin, proxy.origin),
        ZEPHYR_CYCLE_NAME: name,
      });
      runs.push(run);
      await until('a job is polled', () => slow.log().some((e) => e.target.includes('/jobprogress/')));
      await proxy.switchTo('refuse');
      const wentAway = Date.now();
      const { output } = await run.exited;

      expect(Date.now() - wentAway, output).toBeLessThan(BOUND_MS);
      expect(output).toContain(`Zephyr unreachable: connection refused at ${proxy.host}`);
      expect(output).not.toMatch(/still not ready|cut short by publishTimeout/);
      const summary = JSON.parse(fs.readFileSync(path.join(run.dir, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.targets.zephyr).toMatchObject({ published: 0, unsent: 3 });
      expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  }, 90_000);
});
