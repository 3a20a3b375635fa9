import { describe, expect, it } from 'vitest';
import { SettingsRefusedError } from '../../src/kit/target';
import { BUILT_IN_STATUSES, resolveXrayStatuses, xrayRank } from '../../src/targets/xray/statuses';
import { buildOf, chunks, keptWorse, runComment } from '../../src/targets/xray/results';
import type { PlanItem } from '../../src/shared/model';

const TENANT = [...BUILT_IN_STATUSES, 'FLAKY'];

describe('Xray statuses', () => {
  it('maps the interface table by default and takes a tenant status by name, in its spelling', () => {
    const t = resolveXrayStatuses({ flaky: 'flaky' }, TENANT, false);
    expect(t.byOutcome).toEqual({
      passed: 'PASSED',
      flaky: 'FLAKY',
      failed: 'FAILED',
      timedOut: 'FAILED',
      skipped: 'TODO',
      interrupted: 'ABORTED',
    });
  });

  it('refuses a name the tenant does not have, in one line naming xray.statusMap (Xray would store TODO silently)', () => {
    const refuse = () => resolveXrayStatuses({ skipped: 'SKIPPED' }, TENANT, false);
    expect(refuse).toThrow(SettingsRefusedError);
    expect(refuse).toThrow(
      /^xray\.statusMap\.skipped: Xray has no status "SKIPPED" \(known: PASSED, FAILED, TODO, EXECUTING, ABORTED, FLAKY\)/,
    );
  });

  it('refuses a default name the tenant lacks too; a dry run only warns', () => {
    expect(() => resolveXrayStatuses({}, ['PASSED', 'FAILED', 'TODO'], false)).toThrow(
      /xray\.statusMap\.interrupted: Xray has no status "ABORTED"/,
    );
    expect(resolveXrayStatuses({ skipped: 'SKIPPED' }, BUILT_IN_STATUSES, true).warnings).toHaveLength(1);
  });

  it('FAILED > ABORTED > EXECUTING > PASSED > TODO; a custom status ranks like its outcome', () => {
    const order = ['TODO', 'PASSED', 'EXECUTING', 'ABORTED', 'FAILED'].map((s) => xrayRank(s, 'passed'));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(xrayRank('FLAKY', 'flaky')).toBe(xrayRank('PASSED', 'passed'));
  });
});

describe('Xray results', () => {
  const item = (key: string, status: string, outcome: PlanItem['outcome'] = 'passed'): PlanItem => ({
    key,
    status,
    outcome,
    comment: '',
    tests: [],
  });

  it('the comment names the build on its first line; the build is read back from it', () => {
    const c = runComment({ comment: 'Failed: boom' }, 'ci 42');
    expect(c).toBe('Playwright build: ci 42\n{noformat}Failed: boom{noformat}');
    expect(buildOf(c)).toBe('ci 42');
    expect(buildOf('a comment somebody wrote')).toBeUndefined();
  });

  it('keeps a worse result of the same build, never one of another build', () => {
    const items = [item('XT-1', 'PASSED'), item('XT-2', 'PASSED'), item('XT-3', 'FAILED', 'failed')];
    const held = new Map([
      ['XT-1', { testIssueId: '1', testKey: 'XT-1', status: 'FAILED', comment: 'Playwright build: ci 42\nx', evidence: [] }],
      ['XT-2', { testIssueId: '2', testKey: 'XT-2', status: 'FAILED', comment: 'Playwright build: ci 41\nx', evidence: [] }],
      ['XT-3', { testIssueId: '3', testKey: 'XT-3', status: 'PASSED', comment: 'Playwright build: ci 42', evidence: [] }],
    ]);
    const kept = keptWorse(items, held, 'ci 42', (s, i) => xrayRank(s, i.outcome));
    expect([...kept].map((i) => i.key)).toEqual(['XT-1']);
  });

  it('imports hold at most 100 tests and about the byte budget', () => {
    const list = Array.from({ length: 250 }, (_, i) => ({ result: { testKey: `XT-${i}`, status: 'PASSED' } }));
    expect(chunks(list).map((c) => c.length)).toEqual([100, 100, 50]);
    expect(chunks(list, 100, 200).every((c) => c.length <= 6)).toBe(true);
  });
});
