/**
 * Replays that leave something: one of the journal's targets cannot be sent (its credentials are not set in
 * that job, or its settings are invalid there), or files still fail to upload. The rest goes, the journal is
 * kept, a line says so, the exit code says something is left, and a later replay sends only that, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, outboxFiles, runPlaywright, runReplay, testSandbox, zephyrCycles, zephyrStatuses } from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

const SUITE = {
  'r.spec.ts': `const { test } = require('@playwright/test');
test('a', { tag: ['@PROJ-1', '@cs-1'] }, () => {});
test('b', { tag: ['@PROJ-2', '@cs-2'] }, () => { throw new Error('b failed'); });`,
};
const without = (env: Record<string, string>, prefix: string) =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith(prefix)));

/** A run that could reach neither service: both targets are left in its journal. */
async function runWithBothDown(name: string) {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name };
  for (const s of ['zephyr', 'cucumberstudio']) sandbox.setFaults(s, { down: true });
  try {
    const run = await runPlaywright({ files: SUITE, env: { ...env, PW_TMS_PUBLISH_TIMEOUT: '3' } });
    expect(outboxFiles(run.outboxDir), run.output).toHaveLength(1);
    return { run, env };
  } finally {
    for (const s of ['zephyr', 'cucumberstudio']) sandbox.setFaults(s, { down: false });
  }
}

const csResults = (name: string) =>
  Object.fromEntries(csRun(sandbox, name).snapshots.map((s) => [s.scenarioId, s.results.map((r) => r.status)]));

describe('replays that leave something (live)', () => {
  it('a target whose credentials are not set: the other goes, the journal stays for it; the next replay sends only it', async () => {
    const name = 'replay one target unset';
    const { run, env } = await runWithBothDown(name);
    const first = await runReplay(run.outboxDir, without(env, 'CUCUMBERSTUDIO_'));
    expect(first.output).toMatch(/CucumberStudio not configured in this environment .*its 2 results kept for a later replay/);
    expect(first.exitCode, first.output).toBe(1);
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 2 });
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    const second = await runReplay(run.outboxDir, env);
    expect(second.exitCode, second.output).toBe(0);
    expect(csResults(name)).toEqual({ 1: ['passed'], 2: ['failed'] });
    // Zephyr was not sent again.
    const cycle = zephyrCycles(sandbox).find((c) => c.name === name)!;
    expect(cycle.executions.map((e) => e.statusChanges)).toEqual([1, 1]);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('a target whose settings are invalid in the replay: the other goes, the journal stays for it', async () => {
    const name = 'replay one target invalid';
    const { run, env } = await runWithBothDown(name);
    const first = await runReplay(run.outboxDir, without(env, 'ZEPHYR_ACCOUNT_ID'));
    expect(first.output).toContain('ZEPHYR_ACCOUNT_ID');
    expect(first.output).toMatch(
      /Zephyr Squad not configured in this environment \(or its settings are invalid, see above\); its 2 results kept/,
    );
    expect(first.exitCode, first.output).toBe(1);
    expect(csResults(name)).toEqual({ 1: ['passed'], 2: ['failed'] });
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    const second = await runReplay(run.outboxDir, env);
    expect(second.exitCode, second.output).toBe(0);
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 2 });
    expect(csResults(name)).toEqual({ 1: ['passed'], 2: ['failed'] });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('a replay whose file uploads still fail exits 1 (the files are kept); the next one sends them, once', async () => {
    const name = 'replay files left';
    const env = without({ ...sandbox.env(), ZEPHYR_CYCLE_NAME: name }, 'CUCUMBERSTUDIO_');
    const refuse = { method: 'POST', pathIncludes: '/attachment?', status: 400, body: '{"errorDesc":"upload refused"}' };
    sandbox.setFaults('zephyr', { overrides: [refuse] });
    try {
      const run = await runPlaywright({ files: SUITE, env });
      expect(outboxFiles(run.outboxDir), run.output).toHaveLength(1);
      const first = await runReplay(run.outboxDir, env);
      expect(first.output).toMatch(/not uploaded/);
      expect(first.exitCode, first.output).toBe(1);
      sandbox.setFaults('zephyr', { overrides: [] });
      const second = await runReplay(run.outboxDir, env);
      expect(second.exitCode, second.output).toBe(0);
      expect(outboxFiles(run.outboxDir)).toEqual([]);
      const failed = zephyrCycles(sandbox)
        .find((c) => c.name === name)!
        .executions.find((e) => e.issueKey === 'PROJ-2')!;
      expect((failed as unknown as { attachments: Array<{ fileName: string }> }).attachments.map((a) => a.fileName)).toEqual([
        'error-context.md',
      ]);
    } finally {
      sandbox.setFaults('zephyr', { overrides: [] });
    }
  });
});
