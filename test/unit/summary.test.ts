import { describe, expect, it } from 'vitest';
import { HttpError, withHint } from '../../src/http/errors';
import type { RunSummary } from '../../src/shared/model';
import * as path from 'node:path';
import { labelled, replayCommand } from '../../src/shared/output';
import { stepSummaryMarkdown, summaryLine } from '../../src/shared/summary';

describe('GitHub job summary', () => {
  it('a `|` in a cycle name stays inside its cell', () => {
    const summary: RunSummary = {
      version: 1,
      startedAt: '',
      finishedAt: '',
      targets: {
        zephyr: {
          target: 'zephyr',
          label: 'Zephyr Squad',
          enabled: true,
          published: 2,
          countsByStatus: { PASS: 2 },
          unmapped: 0,
          notRun: 0,
          errors: [],
          unsent: 0,
          calls: 3,
          durationMs: 1,
          container: { kind: 'cycle', id: '7', name: 'E2E | nightly' },
        },
      },
    };
    const row = stepSummaryMarkdown(summary)
      .split('\n')
      .find((l) => l.startsWith('| Zephyr'))!;
    expect(row).toContain('E2E \\| nightly (7)');
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(6); // six cells, as the header has
  });
});

describe('withHint', () => {
  const refused = (message: string) => Promise.reject(new HttpError('CucumberStudio', 'GET', '/x', 404, {}, '', message));
  it('adds the setting to check to a 4xx', async () => {
    await expect(withHint(refused('not found.'), 'CUCUMBERSTUDIO_PROJECT_ID (cucumberstudio.projectId) = 9')).rejects.toThrow(
      'not found — check CUCUMBERSTUDIO_PROJECT_ID (cucumberstudio.projectId) = 9',
    );
  });
  it('does not name the setting twice when the message names it already', async () => {
    const message = 'CucumberStudio has no test run 9999: check CUCUMBERSTUDIO_TEST_RUN_ID (cucumberstudio.testRunId).';
    await expect(withHint(refused(message), 'CUCUMBERSTUDIO_TEST_RUN_ID (cucumberstudio.testRunId) = 9999')).rejects.toThrow(
      new HttpError('CucumberStudio', 'GET', '/x', 404, {}, '', message),
    );
  });
});

describe('summary line', () => {
  it('files not sent say where they are kept and how to send them', () => {
    const line = summaryLine({
      target: 'zephyr',
      label: 'Zephyr Squad',
      enabled: true,
      published: 2,
      countsByStatus: { FAIL: 2 },
      unmapped: 0,
      notRun: 0,
      errors: [],
      unsent: 0,
      calls: 9,
      durationMs: 1,
      outbox: path.resolve('tms-outbox/run-1.jsonl'),
      attachments: { uploaded: 1, present: 0, skipped: [], failed: ['PROJ-1/shot.png'] },
    });
    expect(line).toContain(`1 not sent (kept in ${path.resolve('tms-outbox/run-1.jsonl')}; run \`npx playwright-tms-reporter replay\`)`);
  });

  it('a service that answered with an error before its cycle is not said to be unreachable', () => {
    const line = summaryLine({
      target: 'zephyr',
      label: 'Zephyr Squad',
      enabled: true,
      published: 0,
      countsByStatus: {},
      unmapped: 0,
      notRun: 0,
      errors: ['Zephyr Squad: GET cycles/search: HTTP 503 (Service Unavailable)'],
      unsent: 2,
      calls: 3,
      durationMs: 1,
      outbox: path.resolve('tms-outbox/run-1.jsonl'),
    });
    expect(line).toMatch(/^Zephyr Squad: stopped before its first result — 0 published; 2 not sent/);
    // Tests, where "published" counts keys.
    expect(
      summaryLine({
        target: 'zephyr',
        label: 'Zephyr Squad',
        enabled: true,
        published: 4,
        countsByStatus: {},
        unmapped: 0,
        notRun: 3,
        errors: [],
        unsent: 0,
        calls: 1,
        durationMs: 1,
      }),
    ).toContain('; 3 tests not run');
    expect(line).not.toContain('not reached');
  });

  it('the replay command names the outbox folder unless it is the default one where it is run', () => {
    expect(replayCommand('/repo/tms-outbox', '/repo')).toBe('`npx playwright-tms-reporter replay`');
    expect(replayCommand(undefined, '/repo')).toBe('`npx playwright-tms-reporter replay`');
    // `playwright test -c e2e/playwright.config.ts` from the repo root: the outbox is beside the config.
    expect(replayCommand('/repo/e2e/tms-outbox', '/repo')).toBe('`npx playwright-tms-reporter replay e2e/tms-outbox`');
    expect(replayCommand('/tmp/my outbox', '/repo')).toBe("`npx playwright-tms-reporter replay '../tmp/my outbox'`");
    // Single quotes: a shell expands nothing inside them ($, backticks); a quote in the name is closed and escaped.
    expect(replayCommand("/repo/out$1 `x` it's", '/repo')).toBe("`npx playwright-tms-reporter replay 'out$1 `x` it'\\''s'`");
    const line = summaryLine({
      target: 'cucumberstudio',
      label: 'CucumberStudio',
      enabled: true,
      published: 0,
      countsByStatus: {},
      unmapped: 0,
      notRun: 0,
      errors: [],
      unsent: 3,
      calls: 2,
      durationMs: 1,
      outbox: path.resolve('e2e/tms-outbox/run-2.jsonl'),
    });
    expect(line).toContain('3 not sent (kept in');
    // Cut short by publishTimeout after its run was reached: the line names the run, and says so.
    const cut = summaryLine({
      target: 'cucumberstudio',
      label: 'CucumberStudio',
      enabled: true,
      published: 1,
      countsByStatus: {},
      unmapped: 0,
      notRun: 0,
      errors: [],
      unsent: 2,
      calls: 5,
      durationMs: 1,
      cutShort: true,
      container: { kind: 'test run', id: '42', name: 'Nightly', reused: false },
    });
    expect(cut).toMatch(
      /^CucumberStudio: test run "Nightly" \(id 42\), cut short by publishTimeout — 1 published; 2 not sent \(not kept: no outbox\)/,
    );
    // Cut short by a signal (Ctrl+C during the end's sending): the line names it, not publishTimeout.
    const stopped = summaryLine({
      target: 'zephyr',
      label: 'Zephyr',
      enabled: true,
      published: 0,
      countsByStatus: {},
      unmapped: 0,
      notRun: 0,
      errors: [],
      unsent: 4,
      calls: 2,
      durationMs: 1,
      cutShort: true,
      stoppedBy: 'SIGINT',
    });
    expect(stopped).toMatch(/^Zephyr: cut short by SIGINT — 0 published; 4 not sent/);
    expect(line).toContain('run `npx playwright-tms-reporter replay e2e/tms-outbox`)');
  });
});

describe('a line about one service', () => {
  it('names the service once, also when the text names it first', () => {
    expect(labelled('Zephyr Squad', 'Zephyr: GET /public/rest/api/1.0/cycles/search failed: connection reset by the server')).toBe(
      'Zephyr Squad: GET /public/rest/api/1.0/cycles/search failed: connection reset by the server',
    );
    expect(labelled('CucumberStudio', 'CucumberStudio: GET /api/projects/1 failed: timed out')).toBe(
      'CucumberStudio: GET /api/projects/1 failed: timed out',
    );
    expect(labelled('CucumberStudio', 'scenario 5 has no test in test run 3 yet: still generated')).toBe(
      'CucumberStudio: scenario 5 has no test in test run 3 yet: still generated',
    );
  });
});
