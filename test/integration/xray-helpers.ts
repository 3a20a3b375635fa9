/** Views on the Xray sandbox's state for the Xray integration tests (shapes: src/sandbox/xray/view.ts). */
import type { RunningSandbox } from '../../src/sandbox';
import type { XrayExecutionView, XrayStateView } from '../../src/sandbox/xray/view';

export function xrayState(sandbox: RunningSandbox): XrayStateView {
  return sandbox.state().xray as XrayStateView;
}

export function xrayExecutions(sandbox: RunningSandbox, summary: string): XrayExecutionView[] {
  return xrayState(sandbox).executions.filter((e) => e.summary === summary);
}

/** The one Test Execution with that summary. */
export function xrayExecution(sandbox: RunningSandbox, summary: string): XrayExecutionView {
  const found = xrayExecutions(sandbox, summary);
  if (found.length !== 1) throw new Error(`expected one Test Execution "${summary}", found ${found.length}`);
  return found[0];
}

/** testKey -> status of each run of the execution (throws on two runs of one Test). */
export function xrayStatuses(e: XrayExecutionView): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of e.runs) {
    if (r.testKey in out) throw new Error(`two runs of ${r.testKey}`);
    out[r.testKey] = r.status;
  }
  return out;
}

export function silentTodos(sandbox: RunningSandbox): number {
  return xrayState(sandbox).counters.silentTodo;
}

/**
 * Every row of the status table, worst wins, a title tag, an `xray` annotation, a key that is not a Test. The timeout
 * is last: Playwright starts a worker after a failed attempt only when tests remain.
 */
export const XRAY_SUITE = {
  'x.spec.ts': `
const { test, expect } = require('@playwright/test');
test('pass by annotation', { annotation: { type: 'xray', description: 'XT-1' } }, () => {});
test('pass by title tag @XT-2', () => {});
test('fails', { tag: '@XT-4' }, () => { expect(1, 'xt4 must fail').toBe(2); });
test('flaky', { tag: '@XT-5' }, ({}, info) => { if (info.retry === 0) throw new Error('first attempt fails'); });
test('skipped', { tag: '@XT-6' }, () => { test.skip(); });
test('expected failure', { tag: '@XT-7' }, () => { test.fail(); expect(1).toBe(2); });
test('shared ok', { tag: '@XT-8' }, () => {});
test('shared bad', { tag: '@XT-8' }, () => { throw new Error('xt8 broke'); });
test('zephyr only', { annotation: { type: 'zephyr', description: 'XT-10' } }, () => {});
test('not a test issue', { tag: '@XT-301' }, () => {});
test('unmapped', () => {});
test('times out', { tag: '@XT-9' }, async () => { test.setTimeout(300); await new Promise((r) => setTimeout(r, 3000)); });
`,
};

export const XRAY_EXPECTED: Record<string, string> = {
  'XT-1': 'PASSED',
  'XT-2': 'PASSED',
  'XT-4': 'FAILED',
  'XT-5': 'PASSED',
  'XT-6': 'TODO',
  'XT-7': 'PASSED',
  'XT-8': 'FAILED',
  'XT-9': 'FAILED',
};
