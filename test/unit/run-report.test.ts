/** The status the reporter hands back to Playwright at the end of a run (engine/run-report.ts endStatus). */
import { describe, expect, it } from 'vitest';
import { endStatus } from '../../src/engine/run-report';
import type { RunSummary, TargetSummary } from '../../src/shared/model';

const target = (over: Partial<TargetSummary> = {}): TargetSummary => ({
  target: 'z',
  label: 'Z',
  enabled: true,
  published: 1,
  countsByStatus: {},
  unmapped: 0,
  notRun: 0,
  errors: [],
  unsent: 0,
  calls: 1,
  durationMs: 1,
  ...over,
});
const summary = (t: TargetSummary): RunSummary => ({ version: 1, startedAt: '', finishedAt: '', targets: { z: t } });

function status(o: { summary?: RunSummary; status?: 'passed' | 'failed'; stopped?: boolean; failOnPublishError?: boolean }) {
  const lines: string[] = [];
  const printer = { info: () => undefined, error: (l: string) => void lines.push(l), debug: () => undefined };
  const result = endStatus({ status: 'passed', stopped: false, failOnPublishError: false, printer, ...o });
  return { result, lines };
}

describe('endStatus', () => {
  it("leaves Playwright's status alone when everything was published", () => {
    expect(status({ summary: summary(target()), failOnPublishError: true }).result).toBeUndefined();
  });

  it('a stop during the end makes a passed run interrupted', () => {
    expect(status({ summary: summary(target()), stopped: true }).result).toEqual({ status: 'interrupted' });
    expect(status({ summary: summary(target()), stopped: true, status: 'failed' }).result).toBeUndefined();
  });

  it('with failOnPublishError, an error, an unsent result or no summary fails a passed run, and says why', () => {
    for (const s of [summary(target({ errors: ['x'] })), summary(target({ unsent: 1 })), undefined]) {
      const { result, lines } = status({ summary: s, failOnPublishError: true });
      expect(result).toEqual({ status: 'failed' });
      expect(lines).toEqual(['failing the run because failOnPublishError is set (PW_TMS_FAIL_ON_ERROR)']);
    }
    expect(status({ summary: summary(target({ unsent: 1 })) }).result).toBeUndefined();
    expect(status({ summary: summary(target({ unsent: 1 })), failOnPublishError: true, status: 'failed' }).result).toBeUndefined();
  });
});
