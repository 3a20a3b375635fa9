/**
 * Ctrl+C (SIGINT) or a CI cancel (SIGTERM) while the end of the run is sending. Playwright no longer listens
 * then; the reporter does: the first signal stops the sending at once, says what is kept and how to replay it,
 * and the run exits as interrupted; replay then sends the rest exactly once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunningSandbox } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import { csRun, outboxFiles, runReplay, testSandbox, zephyrStatuses } from './harness';
import { quickTest, startLiveRun, until, type LiveRun } from './live-run';
import { TEST_PROGRESS_ENV } from '../../src/playwright/test-knobs';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());
const runs: LiveRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.cleanup();
  for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { latencyMs: 0 });
});

/** Requests a service has received and not yet answered. */
function inFlight(service: string): number {
  const st = sandbox.stats()[service];
  return st.requests - Object.values(st.byRoute).reduce((a, b) => a + b, 0);
}

const KEYS = [1, 2, 3, 4];
const SUITE = { 'quick.spec.ts': KEYS.map((i) => quickTest(`t${i}`, [`@PROJ-${i}`, `@cs-${i}`])).join('') };

describe.each(['SIGINT', 'SIGTERM'] as const)('%s during the end of the run (live)', (signal) => {
  it('stops the sending at once, says what is kept and how to replay it; replay sends the rest once', async () => {
    const name = `stop during end ${signal}`;
    // Every call takes 4 s: the end (cycle, tests, statuses, read-back) lasts long past its first progress line,
    // which comes 300 ms into the end (the product's 10 s are not what is tested).
    for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { latencyMs: 4_000 });
    const run = startLiveRun(SUITE, {
      ...sandbox.env(),
      ZEPHYR_CYCLE_NAME: name,
      CUCUMBERSTUDIO_TEST_RUN_NAME: name,
      [TEST_PROGRESS_ENV]: '300',
    });
    runs.push(run);
    let output = '';
    run.child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    run.child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    // The progress line comes from inside the end's sending: the reporter listens by then.
    await until('the end of the run sending', () => output.includes('publishing:'), 90_000);
    run.child.kill(signal);
    const exit = await run.exited;
    // Every test passed: the exit code says the run was interrupted.
    expect(exit.code, exit.output).toBe(130);
    expect(exit.output).toContain(`${signal}: stopping the publishing`);
    expect(exit.output).toMatch(
      new RegExp(`stopped by ${signal} before everything was sent; the rest is kept in the outbox: run .*replay`),
    );
    expect(exit.output).toContain(`cut short by ${signal}`);
    const summary = JSON.parse(fs.readFileSync(path.join(run.dir, 'summary.json'), 'utf8')) as RunSummary;
    for (const t of ['zephyr', 'cucumberstudio']) {
      expect(summary.targets[t]).toMatchObject({ cutShort: true, stoppedBy: signal });
      expect(summary.targets[t].unsent).toBeGreaterThan(0);
    }
    // The journal is kept, and no longer locked: the process that held it ended.
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    expect(fs.readdirSync(run.outboxDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
    // What was in flight lands (the services apply it after their delay); then replay sends the rest, once.
    await until('requests in flight answered', () => inFlight('zephyr') === 0 && inFlight('cucumberstudio') === 0, 30_000);
    for (const service of ['zephyr', 'cucumberstudio']) sandbox.setFaults(service, { latencyMs: 0 });
    const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name };
    const first = await runReplay(run.outboxDir, env);
    expect(first.exitCode, first.output).toBe(0);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    expect(zephyrStatuses(sandbox, name)).toEqual(Object.fromEntries(KEYS.map((i) => [`PROJ-${i}`, 1])));
    const results = Object.fromEntries(csRun(sandbox, name).snapshots.map((s) => [s.scenarioId, s.results.map((r) => r.status)]));
    expect(results).toEqual(Object.fromEntries(KEYS.map((i) => [i, ['passed']])));
  });
});
