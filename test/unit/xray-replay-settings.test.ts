/**
 * What an Xray run journals of settings it could not use, and how a replay names where a value came from (the
 * journal, not an env var that may be unset). The contract end to end: xray.test.ts and xray-split.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/commands/cli';
import { resolveConfig } from '../../src/config/config';
import type { Outbox } from '../../src/engine/outbox';
import { journalMeta } from '../../src/engine/run-identity';
import { TargetSession } from '../../src/engine/session';
import { SettingsRefusedError, type StatusTable, type Target, type TargetDefinition } from '../../src/kit/target';
import type { XrayClient } from '../../src/targets/xray/client';
import type { XrayConfig } from '../../src/targets/xray/config';
import { xray } from '../../src/targets/xray/definition';
import { ExecutionPlaces } from '../../src/targets/xray/execution-places';
import { executionByKey, linkPlan } from '../../src/targets/xray/executions';
import type { RequestLane } from '../../src/kit/lane';

const ENV = { XRAY_CLIENT_ID: 'id', XRAY_CLIENT_SECRET: 'secret-value', XRAY_PROJECT_KEY: 'XT' };
const resolve = (env: Record<string, string>, container?: { id?: string | null; name?: string }) =>
  resolveConfig({ definitions: [xray], env, ...(container ? { overrides: { xray: { container } } } : {}) });

/** A client whose GraphQL answers every query with no result. */
const empty = { graphql: async () => ({ getTestExecutions: { results: [] }, getTestPlans: { results: [] } }) } as unknown as XrayClient;

describe('Xray: a Test Execution key with split mode', () => {
  it('is a settings problem before the run, one line naming the option and the env var; the journal keeps no key', () => {
    const config = resolve({ ...ENV, XRAY_TEST_EXECUTION_KEY: 'XT-307', PW_TMS_PROJECTS: 'split', XRAY_TEST_EXECUTION_SUMMARY: 'nightly' });
    expect(config.targets).toEqual([]);
    expect(config.invalid.map((d) => d.id)).toEqual(['xray']);
    expect(config.problems).toEqual([
      "xray.testExecutionKey (env XRAY_TEST_EXECUTION_KEY): names one Test Execution (XT-307), and projects: 'split' (PW_TMS_PROJECTS=split) " +
        "makes one per Playwright project: set XRAY_TEST_EXECUTION_SUMMARY (xray.testExecutionSummary) instead, or use projects: 'merge'",
    ]);
    // Held back for bad settings: no settings and no key journaled; a replay opens each project's execution by summary.
    expect(journalMeta(config)).toEqual({ xray: { settings: {}, containerName: 'nightly' } });
  });

  it('merge mode takes it as before', () => {
    const config = resolve({ ...ENV, XRAY_TEST_EXECUTION_KEY: 'XT-307' });
    expect(config.problems).toEqual([]);
    expect((config.targets[0].config as XrayConfig).testExecutionKey).toBe('XT-307');
  });
});

describe("Xray: a replay's key from the run's journal", () => {
  it("is marked as the journal's unless the config gives the same; a split replay of it is not refused as the env's", () => {
    const own = resolve({ ...ENV, PW_TMS_PROJECTS: 'split' }, { id: 'XT-9999', name: 's' });
    expect(own.problems).toEqual([]);
    expect(own.targets[0].config).toMatchObject({ testExecutionKey: 'XT-9999', keyFromJournal: true });
    // A journal written before the key was a settings problem: each project's execution is opened by summary.
    const places = new ExecutionPlaces(own.targets[0].config as XrayConfig, empty, {} as RequestLane);
    expect(places.describe('alpha')).toBe(
      'Test Execution "s alpha" with Test Environment "alpha" in project XT (found by summary, or created)',
    );
    expect(places.describe(undefined)).toBe('Test Execution XT-9999');
    const same = resolve({ ...ENV, XRAY_TEST_EXECUTION_KEY: 'XT-9999' }, { id: 'XT-9999', name: 's' });
    expect((same.targets[0].config as XrayConfig).keyFromJournal).toBeUndefined();
  });

  it('that Xray does not have: the line says the journal named it, and does not blame the env var', async () => {
    await expect(executionByKey(empty, 'XT-9999', true)).rejects.toThrow(
      "Xray has no Test Execution XT-9999: check Test Execution XT-9999, named by the run's journal; to replay into another, set XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey).",
    );
    await expect(executionByKey(empty, 'XT-9999')).rejects.toThrow(
      'Xray has no Test Execution XT-9999: check XRAY_TEST_EXECUTION_KEY (xray.testExecutionKey) = XT-9999.',
    );
  });
});

describe('Xray: a Test Plan key that is not a Test Plan', () => {
  it('is a setting the service refused (journaled so: a replay takes the plan from its own config)', async () => {
    const refused = await linkPlan(empty, 'XT-1', { issueId: '1', key: 'XT-400', summary: 's', environments: [] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SettingsRefusedError);
    expect(refused).toMatchObject({
      settings: ['testPlanKey'],
      message: 'Xray has no Test Plan XT-1: check XRAY_TEST_PLAN_KEY (xray.testPlanKey) = XT-1.',
    });
  });

  it('refused in begin: the session journals the setting as unresolved, as it does a status name', async () => {
    const unresolved: Array<[string, string[]]> = [];
    // Every other journal call is a no-op here.
    const outbox = new Proxy(
      {},
      {
        get: (_, name) => (name === 'unresolved' ? (t: string, s: string[]) => unresolved.push([t, s]) : () => undefined),
      },
    ) as Outbox;
    const target = {
      batching: { maxItems: 50, maxWaitMs: 60_000, spaced: false },
      resolveStatuses: async (): Promise<StatusTable> => ({ byOutcome: {} as StatusTable['byOutcome'], name: String, warnings: [] }),
      begin: async () => {
        throw new SettingsRefusedError(['testPlanKey'], 'Xray has no Test Plan XT-1');
      },
    } as unknown as Target;
    const definition = { id: 'xray', label: 'Xray', containerKind: 'Test Execution' } as TargetDefinition;
    const session = new TargetSession(definition, target, {
      outbox,
      log: { info: () => undefined, error: () => undefined },
      maxAttachmentBytes: 1e6,
      replay: false,
    });
    const records = [{ testId: 't1', title: 't1', keys: { xray: ['XT-2'] }, outcome: 'passed' as const, attempts: 1 }];
    session.start(records);
    const summary = await session.finish(records, 0);
    expect(summary.errors.join('\n')).toContain('Xray has no Test Plan XT-1');
    expect(unresolved[0]).toEqual(['xray', ['testPlanKey']]);
  });
});

describe('--help', () => {
  afterEach(() => vi.restoreAllMocks());

  it("names each create command's env var and what it prints (Xray: a key, for XRAY_TEST_EXECUTION_KEY)", async () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => ((out += String(text)), true));
    expect(await main(['--help'], {})).toBe(0);
    expect(out).toMatch(/test-execution create .*find or create the Xray Test Execution; prints its key \(for XRAY_TEST_EXECUTION_KEY\)/);
    expect(out).toMatch(/cycle create .*prints its id \(for ZEPHYR_CYCLE_ID\)/);
    expect(out).toMatch(/test-run create .*prints its id \(for CUCUMBERSTUDIO_TEST_RUN_ID\)/);
    expect(out).not.toContain('_…_ID');
  });
});
