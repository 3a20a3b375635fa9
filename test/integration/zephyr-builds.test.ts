/**
 * Worst wins across every publish of one CI build (PW_TMS_BUILD), in Zephyr: a later process of the build never
 * leaves a better result over a worse one another process sent, and its read-back does not take the other
 * process's results for a failure; a NEW build into the reused cycle replaces the earlier build's results.
 * Keys are disjoint per case, so that one run covers several.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, testSandbox, zephyrCycles, type ZExecution } from './harness';
import { gatedTest, quickTest, startLiveRun, until, type LiveRun } from './live-run';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());
const live: LiveRun[] = [];
afterEach(() => {
  for (const run of live.splice(0)) run.cleanup();
});

const UNEXECUTED = -1;
const PASS = 1;
const FAIL = 2;

const spec = (tests: string[]) => ({ 'k.spec.ts': `const { test } = require('@playwright/test');\n${tests.join('\n')}` });
const passes = (title: string, key: string) => `test(${JSON.stringify(title)}, { tag: '@${key}' }, () => {});`;
const fails = (title: string, key: string) =>
  `test(${JSON.stringify(title)}, { tag: '@${key}' }, () => { throw new Error(${JSON.stringify(`${title} broke`)}); });`;
const skipped = (title: string, key: string) => `test.skip(${JSON.stringify(title)}, { tag: '@${key}' }, () => {});`;

function cycle(name: string): { executions: Record<string, ZExecution>; build: string; environment: string } {
  const found = zephyrCycles(sandbox).filter((c) => c.name === name);
  expect(found).toHaveLength(1);
  const c = found[0] as (typeof found)[0] & { build: string; environment: string };
  return { executions: Object.fromEntries(c.executions.map((e) => [e.issueKey, e])), build: c.build, environment: c.environment };
}
const statuses = (name: string) => Object.fromEntries(Object.entries(cycle(name).executions).map(([k, e]) => [k, e.statusId]));

describe('one CI build, several processes', () => {
  it('sequential processes: the worse result stays whatever the order, a skip leaves the build’s PASS; a new build replaces it all', async () => {
    const name = 'builds sequential';
    const env = (build: string) => ({
      ...sandbox.env(),
      ZEPHYR_CYCLE_NAME: name,
      CUCUMBERSTUDIO_ACCESS_TOKEN: undefined,
      PW_TMS_BUILD: build,
    });
    // Build 1, project beta: 701 fails, 702 passes, 703 and 704 pass. Its failing test last: Playwright starts a new
    // worker after a failed test only when tests remain (alpha's declared skip needs none).
    const beta = await runPlaywright({
      files: spec([passes('b', 'PROJ-702'), passes('c', 'PROJ-703'), passes('d', 'PROJ-704'), fails('a', 'PROJ-701')]),
      env: env('1001'),
      projects: ['beta'],
    });
    expect(beta.exitCode, beta.output).toBe(1);
    // Build 1, project alpha: 701 passes (fail, then pass), 702 fails (pass, then fail), 704 does not run.
    const alpha = await runPlaywright({
      files: spec([passes('a', 'PROJ-701'), fails('b', 'PROJ-702'), skipped('d', 'PROJ-704')]),
      env: env('1001'),
      projects: ['alpha'],
    });
    expect(alpha.exitCode, alpha.output).toBe(1);
    for (const run of [beta, alpha]) expect(run.output).not.toContain('read-back check failed');
    expect(statuses(name)).toEqual({ 'PROJ-701': FAIL, 'PROJ-702': FAIL, 'PROJ-703': PASS, 'PROJ-704': PASS });
    const one = cycle(name);
    expect(one.executions['PROJ-701'].comment).toContain('a broke');
    expect(one.executions['PROJ-701'].comment).toMatch(/playwright-tms-reporter · build 1001 · FAIL$/);
    expect(one.executions['PROJ-702'].comment).toContain('b broke');
    // Never written over, not even for a moment: alpha's pass of 701 is not sent (the end's read-back would put
    // the failure back, but a process ending before it would leave the pass), and 704's skip sends nothing.
    expect(one.executions['PROJ-701'].statusHistory).not.toContain(PASS);
    expect(one.executions['PROJ-704'].statusHistory).toEqual([PASS]);
    // The cycle names every project of the build.
    expect(one.build).toBe('1001');
    expect(one.environment.split(', ').sort()).toEqual(['alpha', 'beta']);

    // Build 2 into the reused cycle: the passes replace the failures (no failure text stays), and a key whose
    // test did not run does not keep build 1's PASS.
    const next = await runPlaywright({
      files: spec([passes('a', 'PROJ-701'), passes('b', 'PROJ-702'), skipped('c', 'PROJ-703'), skipped('d', 'PROJ-704')]),
      env: env('1002'),
      projects: ['gamma'],
    });
    expect(next.exitCode, next.output).toBe(0);
    expect(next.output).not.toContain('read-back check failed');
    expect(statuses(name)).toEqual({ 'PROJ-701': PASS, 'PROJ-702': PASS, 'PROJ-703': UNEXECUTED, 'PROJ-704': UNEXECUTED });
    const two = cycle(name);
    for (const e of Object.values(two.executions)) expect(e.comment ?? '').toBe('');
    expect(two.build).toBe('1002');
    expect(two.environment).toBe('gamma');
  });

  it('concurrent processes: a later pass of another process does not hide a failure, and neither read-back fails on the other’s results', async () => {
    const name = 'builds concurrent';
    const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_ACCESS_TOKEN: undefined, PW_TMS_BUILD: '2001' };
    // One: 712 passes at once; 711 passes when let go. Two: 711 fails at once; 712 fails when let go.
    const one = startLiveRun({ 'k.spec.ts': quickTest('f', ['@PROJ-712']) + gatedTest('e', ['@PROJ-711'], 'e') }, env);
    const two = startLiveRun({ 'k.spec.ts': quickTest('e', ['@PROJ-711'], true) + gatedTest('f', ['@PROJ-712'], 'f', true) }, env);
    live.push(one, two);
    await until('each process has sent its first result', () => {
      const s = zephyrCycles(sandbox).find((c) => c.name === name)?.executions ?? [];
      return (
        s.some((e) => e.issueKey === 'PROJ-712' && e.statusId === PASS) && s.some((e) => e.issueKey === 'PROJ-711' && e.statusId === FAIL)
      );
    });
    // Two fails 712 over one's PASS, and ends.
    two.open('f');
    const second = await two.exited;
    expect(second.code, second.output).toBe(1);
    expect(statuses(name)).toEqual({ 'PROJ-711': FAIL, 'PROJ-712': FAIL });
    // One passes 711 over two's FAIL, then reads back a cycle where 712, its PASS, shows two's FAIL.
    one.open('e');
    const first = await one.exited;
    expect(first.code, first.output).toBe(0);
    for (const out of [first.output, second.output]) expect(out).not.toContain('read-back check failed');
    expect(statuses(name)).toEqual({ 'PROJ-711': FAIL, 'PROJ-712': FAIL });
    const c = cycle(name);
    expect(c.executions['PROJ-711'].comment).toContain('e failed');
    expect(c.executions['PROJ-712'].comment).toContain('f failed');
    // The step results follow the worst result: no FAIL keeps the PASS steps of the other process's pass.
    for (const key of ['PROJ-711', 'PROJ-712']) {
      const steps = (c.executions[key] as unknown as { stepResults: Array<{ statusId: number }> }).stepResults.map((r) => r.statusId);
      expect(steps.length, key).toBeGreaterThan(0);
      expect(steps, key).not.toContain(PASS);
    }
  });
});
