import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { allFileText, outboxFiles, runPlaywright, runReplay, testSandbox, xrayOnly } from './harness';
import { silentTodos, xrayExecution, xrayExecutions, xrayStatuses } from './xray-helpers';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** n tests tagged XT-<offset+1>.., every k-th failing. */
function suite(n: number, failEvery: number, offset: number): Record<string, string> {
  const lines = [`import { test, expect } from '@playwright/test';`];
  for (let i = 0; i < n; i++)
    lines.push(`test('t${i}', { tag: '@XT-${offset + i + 1}' }, () => { expect(${(i + 1) % failEvery === 0 ? 1 : 0}).toBe(0); });`);
  return { 'bulk.spec.ts': lines.join('\n') };
}
const expected = (n: number, failEvery: number, offset: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`XT-${offset + i + 1}`, (i + 1) % failEvery === 0 ? 'FAILED' : 'PASSED']));

describe('Xray under faults', () => {
  it('500 before and after applying on create and on import, 429 without Retry-After, a token that expires: one Test Execution, every run exact', async () => {
    const summary = 'xray faults';
    sandbox.configure('xray', {
      retryAfter: 'none',
      tokenLifetimeSeconds: 4,
      operationFaults: [
        { operation: 'createTestExecution', applied: false },
        { operation: 'createTestExecution', applied: true },
        { operation: 'import', applied: false },
        { operation: 'import', applied: true },
      ],
    });
    sandbox.setFaults('xray', { rateLimit: { count: 4, windowMs: 1000 } });
    try {
      // Evidence on (the default policy: the failed tests' files): calls wait in the lane far longer than a token
      // lives, so each must leave with the token current then (see client.ts `authorized`).
      const started = Date.now();
      const run = await runPlaywright({ files: suite(30, 7, 10), env: xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary }) });
      // Well within the harness's 180 s (34 s measured on the loaded machine); it passed them before the fix.
      expect(Date.now() - started).toBeLessThan(120_000);
      expect(xrayExecutions(sandbox, summary)).toHaveLength(1);
      const execution = xrayExecution(sandbox, summary);
      expect(xrayStatuses(execution)).toEqual(expected(30, 7, 10));
      // Playwright's own error-context.md on each failed test's run, once; nothing on the passed ones.
      const evidence = Object.fromEntries(execution.runs.map((r) => [r.testKey, r.evidence.map((f) => f.filename).sort()]));
      const failed = Object.entries(expected(30, 7, 10)).filter(([, status]) => status === 'FAILED');
      expect(failed).toHaveLength(4);
      expect(evidence).toEqual(
        Object.fromEntries(
          Object.entries(expected(30, 7, 10)).map(([key, status]) => [key, status === 'FAILED' ? ['error-context.md'] : []]),
        ),
      );
      expect(run.summary!.targets.xray).toMatchObject({ published: 30, unsent: 0, errors: [] });
      expect(run.summary!.targets.xray.verify?.ok).toBe(true);
      expect((sandbox.settings().xray as { operationFaults: unknown[] }).operationFaults).toEqual([]);
      expect(sandbox.stats().xray.rateLimited).toBeGreaterThan(0);
      expect(silentTodos(sandbox)).toBe(0);
      expect(outboxFiles(run.outboxDir)).toEqual([]);
    } finally {
      sandbox.configure('xray', { retryAfter: 'seconds', tokenLifetimeSeconds: 86_400, operationFaults: [] });
      sandbox.setFaults('xray', { rateLimit: null });
    }
  });

  it('down for the whole run: everything kept in the outbox; replay sends it exactly into one Test Execution; a second replay changes nothing', async () => {
    const summary = 'xray outage';
    const env = xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary });
    sandbox.setFaults('xray', { down: true });
    let run;
    try {
      run = await runPlaywright({ files: suite(12, 4, 60), env });
    } finally {
      sandbox.setFaults('xray', { down: false });
    }
    expect(xrayExecutions(sandbox, summary)).toHaveLength(0);
    expect(run.summary!.targets.xray).toMatchObject({ published: 0, unsent: 12 });
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);

    const first = await runReplay(run.outboxDir, env);
    expect(first.exitCode, first.output).toBe(0);
    expect(xrayStatuses(xrayExecution(sandbox, summary))).toEqual(expected(12, 4, 60));
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    const before = JSON.stringify(xrayExecution(sandbox, summary));
    const second = await runReplay(run.outboxDir, env);
    expect(second.exitCode).toBe(0);
    expect(second.output).toContain('nothing to replay');
    expect(JSON.stringify(xrayExecution(sandbox, summary))).toBe(before);
    expect(silentTodos(sandbox)).toBe(0);
    expect(allFileText(run.dir) + run.output + first.output).not.toContain(sandbox.env().XRAY_CLIENT_SECRET);
  });
});
