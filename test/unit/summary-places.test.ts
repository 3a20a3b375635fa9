import { describe, expect, it } from 'vitest';
import type { RunSummary, TargetSummary } from '../../src/shared/model';
import { stepSummaryMarkdown, summaryLine } from '../../src/shared/summary';

/**
 * Split mode in the summary line: a target whose projects are parts of the run's container (a Zephyr folder in the
 * cycle) names that container; one whose projects each have their own (an Xray Test Execution per project) names
 * each of them, key first, and links each on its project's line — never the run's summary, which no execution has.
 */
const base = (s: Partial<TargetSummary>): TargetSummary => ({
  target: 'xray',
  label: 'Xray',
  enabled: true,
  published: 4,
  countsByStatus: { PASSED: 3, FAILED: 1 },
  unmapped: 0,
  notRun: 0,
  errors: [],
  unsent: 0,
  calls: 9,
  durationMs: 1,
  ...s,
});

const execution = (id: string, name: string) => ({ kind: 'Test Execution', id, name, reused: false });

const split = base({
  byPlace: {
    alpha: {
      published: 2,
      countsByStatus: { PASSED: 2 },
      container: execution('XT-305', 'Split run alpha'),
      link: 'https://acme.atlassian.net/browse/XT-305',
    },
    beta: {
      published: 2,
      countsByStatus: { PASSED: 1, FAILED: 1 },
      container: execution('XT-306', 'Split run beta'),
      link: 'https://acme.atlassian.net/browse/XT-306',
    },
  },
});

describe('summary line: a container per project', () => {
  it("names each project's Test Execution by key and summary, and links each on its project's line", () => {
    expect(summaryLine(split)).toBe(
      [
        'Xray: Test Executions XT-305 "Split run alpha", XT-306 "Split run beta" — 4 published: PASSED 3, FAILED 1',
        '  alpha: 2 published: PASSED 2; https://acme.atlassian.net/browse/XT-305',
        '  beta: 2 published: PASSED 1, FAILED 1; https://acme.atlassian.net/browse/XT-306',
      ].join('\n'),
    );
  });

  it('one project: one Test Execution; a summary that is its key is not said twice; cut short says so after it', () => {
    const one = base({
      published: 1,
      countsByStatus: {},
      cutShort: true,
      byPlace: { '': { published: 1, countsByStatus: {}, container: execution('XT-7', 'XT-7') } },
    });
    expect(summaryLine(one)).toBe('Xray: Test Execution XT-7, cut short by publishTimeout — 1 published\n  unnamed project: 1 published');
  });

  it('merge mode and a split run inside one container are as they were', () => {
    const merged = base({
      container: { kind: 'Test Execution', id: 'XT-9', name: 'Nightly', reused: true },
      link: 'https://acme.atlassian.net/browse/XT-9',
    });
    expect(summaryLine(merged)).toBe(
      'Xray: Test Execution "Nightly" (id XT-9) — 4 published: PASSED 3, FAILED 1; https://acme.atlassian.net/browse/XT-9',
    );
    const folders = base({
      target: 'zephyr',
      label: 'Zephyr Squad',
      container: { kind: 'cycle', id: '3f2b', name: 'Split run', reused: false },
      countsByStatus: { PASS: 4 },
      byPlace: { alpha: { published: 2, countsByStatus: { PASS: 2 } }, beta: { published: 2, countsByStatus: { PASS: 2 } } },
    });
    expect(summaryLine(folders)).toBe(
      'Zephyr Squad: cycle "Split run" (id 3f2b) — 4 published: PASS 4\n  alpha: 2 published: PASS 2\n  beta: 2 published: PASS 2',
    );
  });

  it("the GitHub job summary's cell names each project's execution", () => {
    const summary: RunSummary = { version: 1, startedAt: '', finishedAt: '', targets: { xray: split } };
    const row = stepSummaryMarkdown(summary)
      .split('\n')
      .find((l) => l.startsWith('| Xray'))!;
    expect(row).toContain('| Split run alpha (XT-305), Split run beta (XT-306) |');
  });
});
