import { describe, expect, it } from 'vitest';
import { testResult } from '../../src/targets/xray/results';
import type { PlanItem } from '../../src/shared/model';

const item = (o: Partial<PlanItem> = {}): PlanItem => ({
  key: 'XT-1',
  outcome: 'passed',
  status: 'PASSED',
  comment: '',
  tests: ['t'],
  ...o,
});

describe('Xray import object (§4.3)', () => {
  it("carries the result's start and finish (ISO 8601, UTC) as `start` and `finish`", () => {
    const r = testResult(item({ startedAt: '2026-11-27T10:15:30.000Z', finishedAt: '2026-11-27T10:15:42.500Z' }), 'local 1');
    expect(r).toEqual({
      testKey: 'XT-1',
      start: '2026-11-27T10:15:30.000Z',
      finish: '2026-11-27T10:15:42.500Z',
      status: 'PASSED',
      comment: 'Playwright build: local 1',
    });
    // What Xray takes: an ISO 8601 date-time with a zone (§0.4).
    expect(r.start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  });

  it('sends neither without both (a test that never ended, a journal from before times were kept)', () => {
    expect(testResult(item(), undefined)).toEqual({ testKey: 'XT-1', status: 'PASSED' });
    expect(testResult(item({ startedAt: '2026-11-27T10:15:30.000Z' }), undefined)).not.toHaveProperty('start');
  });
});
