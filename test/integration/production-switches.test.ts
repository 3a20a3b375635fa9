/**
 * The sandbox playing production, CucumberStudio's switches (field evidence, /work/shared/spec/README.md): real
 * `playwright test` runs against each production switch, checked on what the sandbox holds (every mapped result,
 * exact, no duplicate) and on what it received (request log and stats). Zephyr's: production-switches-zephyr.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RequestLogEntry } from '../../src/sandbox/server';
import type { RunSummary } from '../../src/shared/model';
import { csLastStatuses, csRun, csRuns, outboxFiles, runPlaywright, testSandbox } from './harness';

const LIST = 'GET /projects/:pid/test_runs/:trid/test_snapshots';
const ALL_SCENARIOS = 'GET /projects/:pid/scenarios';
const ONE_TEST = 'GET /projects/:pid/test_runs/:trid/test_snapshots/:tsid';

/** The devise 401 case's sandbox (the other cases have one sandbox each, below). */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Env of a user on the current host. */
const currentHost = (extra: Record<string, string> = {}) => ({ ...sandbox.env(), ...extra });

/** Runs `fn` with module settings patched, then puts every setting back. */
async function withSettings<T>(patch: Record<string, Record<string, unknown>>, fn: () => Promise<T>): Promise<T> {
  const before = sandbox.settings() as Record<string, Record<string, unknown>>;
  for (const [service, p] of Object.entries(patch)) sandbox.configure(service, p);
  try {
    return await fn();
  } finally {
    for (const service of Object.keys(patch)) sandbox.configure(service, before[service]);
  }
}

/**
 * What the switches publish: the statuses the protocol carries (passed, failed, a flaky test's last try, skipped,
 * worst of two tests of one scenario), scenario 7's two datasets, the ambiguous name of 11 and 12 (their statuses
 * differ). Lighter than CS_SUITE (suites.ts): Playwright starts a worker after each failed attempt, so only the flaky
 * test is retried, a failure is only where a status needs one, and the last test fails (no worker starts after it):
 * CS_SUITE's `retries: 1` cost 7 workers, this 2.
 */
const SWITCH_SUITE = {
  'cs.spec.ts': `
const { test, expect } = require('@playwright/test');
test('s1 passes', { annotation: { type: 'cucumberstudio', description: '1' } }, () => {});
test('s2 fails', { tag: '@cs-2' }, () => { expect('a').toBe('b'); });
test.describe('retried', () => {
  test.describe.configure({ retries: 1 });
  test('s3 flaky', { tag: '@cs-3' }, ({}, info) => { if (info.retry === 0) throw new Error('first try'); });
});
test('s4 skipped', { tag: '@cs-4' }, () => { test.skip(); });
test('s5 ok', { tag: '@cs-5' }, () => {});
test('s7 datasets', { tag: '@cs-7' }, () => {});
test('s11 ambiguous name, skipped', { tag: '@cs-11' }, () => { test.skip(); });
test('s12 ambiguous name, passes', { tag: '@cs-12' }, () => {});
test('not mapped', () => {});
test('s5 bad', { tag: '@cs-5' }, () => { throw new Error('s5 broke'); });
`,
};
/** scenario id -> expected status of the last result of each of its tests. */
const SWITCH_EXPECTED: Record<number, string> = {
  1: 'passed',
  2: 'failed',
  3: 'passed',
  4: 'skipped',
  5: 'failed',
  7: 'passed',
  11: 'skipped',
  12: 'passed',
};

interface Recorded<T> {
  value: T;
  /** Requests received meanwhile, by the service (its former host included). */
  log: RequestLogEntry[];
  /** Requests that reached the service itself (stats), and its former host. */
  requests: number;
  formerHostRequests: number;
}
const count = (log: RequestLogEntry[], route: string, status?: number) =>
  log.filter((e) => e.route === route && (status === undefined || e.status === status)).length;

/** scenario id -> expected last statuses, per test (scenario 7 has two datasets, so two tests). */
const CS_LAST = Object.fromEntries(Object.entries(SWITCH_EXPECTED).map(([id, s]) => [Number(id), Number(id) === 7 ? [s, s] : [s]]));

/**
 * The CucumberStudio switches, one sandbox each (its former host on, its list-read clock of its own), all published
 * to by ONE Playwright run of SWITCH_SUITE (one reporter instance per sandbox, each with its own baseUrl, run name,
 * outbox and summary), as for Zephyr's: the same test events, one Playwright start instead of one per switch.
 */
interface CsCase {
  name: string;
  /** Configured with the former default host (it answers 301), else the current one. */
  former: boolean;
  settings: Record<string, unknown>;
}
const PRODUCTION = { generationAnswer: 'mixed', seed: 1, errorBodyStyle: 'devise', deviseAuthErrors: true };
const CS_CASES: CsCase[] = [
  { name: 'former host 301', former: true, settings: {} },
  { name: 'generation partial', former: false, settings: { generationAnswer: 'partial', seed: 1 } },
  { name: 'generation mixed', former: false, settings: { generationAnswer: 'mixed', seed: 1 } },
  { name: 'plain live', former: false, settings: {} },
  { name: 'production live', former: true, settings: PRODUCTION },
];
interface CsOutcome extends Recorded<{ summary: RunSummary; output: string }> {
  sandbox: RunningSandbox;
  outboxDir: string;
}
const csOutcomes = new Map<string, CsOutcome>();
const csSandboxes: RunningSandbox[] = [];
const csEnv = (target: RunningSandbox) => Object.fromEntries(Object.entries(target.env()).filter(([k]) => k.startsWith('CUCUMBERSTUDIO_')));

beforeAll(async () => {
  const sandboxes = csSandboxes;
  for (const c of CS_CASES) {
    let s: RunningSandbox | undefined;
    /**
     * The module's clock moves one second per test-list read, not with real time: a run's tests are generated by
     * its 4th read (2.5 s), growing one by one meanwhile, whatever the machine's load, so the runs' call counts
     * can be compared.
     */
    const listReadClock = () => (s?.stats().cucumberstudio.byRoute[LIST] ?? 0) * 1000;
    s = await testSandbox({ formerHost: { service: 'cucumberstudio' }, cucumberstudio: { generationDelayMs: 2500, now: listReadClock } });
    s.configure('cucumberstudio', c.settings);
    sandboxes.push(s);
  }
  const before = sandboxes.map((s) => ({ log: s.log().length, stats: s.stats().cucumberstudio }));
  const instances = CS_CASES.map((c, i) => ({
    cucumberstudio: { baseUrl: c.former ? sandboxes[i].formerOrigin : sandboxes[i].origin, testRunName: c.name },
    outboxDir: `outbox-${i}`,
    summaryFile: `summary-${i}.json`,
  }));
  const run = await runPlaywright({
    files: SWITCH_SUITE,
    env: csEnv(sandboxes[0]),
    options: instances[0],
    moreReporters: instances.slice(1),
  });
  CS_CASES.forEach((c, i) => {
    const after = sandboxes[i].stats().cucumberstudio;
    const file = path.join(run.dir, `summary-${i}.json`);
    // A missing summary (an instance that crashed) fails its own case, not the others.
    const summary = (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { targets: {} }) as RunSummary;
    csOutcomes.set(c.name, {
      sandbox: sandboxes[i],
      value: { summary, output: run.output },
      log: sandboxes[i]
        .log()
        .slice(before[i].log)
        .filter((e) => e.service === 'cucumberstudio'),
      requests: after.requests - before[i].stats.requests,
      formerHostRequests: (after.formerHost?.requests ?? 0) - (before[i].stats.formerHost?.requests ?? 0),
      outboxDir: path.join(run.dir, `outbox-${i}`),
    });
  });
}, 300_000);
afterAll(async () => {
  for (const s of csSandboxes) await s.close();
});

/** SWITCH_SUITE published by the case's instance, checked exactly (csLastStatuses throws on a test with more than one result). */
function csPublished(name: string): CsOutcome {
  const r = csOutcomes.get(name)!;
  expect(csRuns(r.sandbox, name)).toHaveLength(1);
  expect(csLastStatuses(csRun(r.sandbox, name))).toEqual(CS_LAST);
  expect(r.value.summary.targets.cucumberstudio, r.value.output).toMatchObject({ published: 8, unsent: 0, unmapped: 1, errors: [] });
  expect(r.value.summary.targets.cucumberstudio!.verify?.ok).toBe(true);
  expect(outboxFiles(r.outboxDir)).toEqual([]);
  return r;
}

describe('CucumberStudio on its former host (live)', () => {
  it('301: publishes exactly; one request reaches the former host and one line names the URL to configure', () => {
    const { value: run, formerHostRequests, log, sandbox: s } = csPublished('former host 301');
    expect(formerHostRequests).toBe(1);
    expect(log.filter((e) => e.route === 'former host')).toHaveLength(1);
    const lines = run.output.split('\n').filter((l) => l.includes(s.formerOrigin!) && l.includes('moved'));
    expect(lines, run.output).toHaveLength(1);
    expect(lines[0]).toContain(`${s.formerOrigin} has moved permanently to ${s.origin}`);
    expect(lines[0]).toMatch(new RegExp(`configure ${s.origin}/? as its base URL`));
    // The summary's link to the run is on the new site, not the one that redirects.
    const link = run.summary.targets.cucumberstudio!.link;
    expect(link, run.output).toMatch(/\/projects\/\d+\/test-runs\/\d+$/);
    expect(new URL(link!).origin).toBe(new URL(s.origin).origin);
  });
});

describe("CucumberStudio while a run's tests are generated (live)", () => {
  it.each(['partial', 'mixed'] as const)("generationAnswer '%s': the short lists are waited out; every result exact, once", (answer) => {
    const { log } = csPublished(`generation ${answer}`);
    const lists = log.filter((e) => e.route === LIST);
    console.log(`[switches] ${answer}: test list answers ${lists.map((e) => e.status).join(' ')}`);
    // 3 reads while the tests were generated (partial lists; 'mixed' draws 423 or partial, seeded), the complete
    // list, one read that confirms it stopped growing, and the read-back's fresh listing at the end.
    expect(lists.map((e) => e.status)).toEqual(answer === 'partial' ? [200, 200, 200, 200, 200, 200] : [200, 423, 200, 200, 200, 200]);
  });
});

describe('CucumberStudio devise 401 (live)', () => {
  it('wrong token: one line with the service own words, nothing published, the run not failed', async () => {
    const name = 'devise 401';
    const wrong = 'not-the-token-0123456789';
    const run = await withSettings({ cucumberstudio: { deviseAuthErrors: true } }, () =>
      runPlaywright({
        files: {
          'ok.spec.ts': `const { test } = require('@playwright/test');\ntest('s1', { tag: '@cs-1' }, () => {});\ntest('s2', { tag: '@cs-2' }, () => {});`,
        },
        env: currentHost({ CUCUMBERSTUDIO_ACCESS_TOKEN: wrong, CUCUMBERSTUDIO_TEST_RUN_NAME: name }),
      }),
    );
    expect(run.exitCode, run.output).toBe(0);
    const lines = run.output.split('\n').filter((l) => l.includes('Invalid login credentials'));
    expect(lines, run.output).toHaveLength(1);
    expect(lines[0]).toContain('Invalid login credentials. Please try again.');
    console.log('[switches] devise: ' + lines[0]);
    expect(run.output).not.toContain(wrong);
    expect(csRuns(sandbox, name)).toHaveLength(0);
    expect(run.summary!.targets.cucumberstudio).toMatchObject({ published: 0 });
  });
});

describe('the issue scenario (live)', () => {
  it('former host 301 + mixed generation + devise-style errors + include=scenario linkage: exact, once, no more calls than plain', () => {
    const plain = csPublished('plain live');
    const combined = csPublished('production live');
    const lists = (r: Recorded<unknown>) => count(r.log, LIST);
    // Evidence uploads (Playwright's error context of the failed tests) are counted apart from the statuses.
    const evidence = (r: Recorded<unknown>) => r.log.filter((e) => e.route.endsWith('/attachments')).length;
    console.log(
      `[switches] live: plain ${plain.requests} calls (${lists(plain)} list reads); production ${combined.requests} calls (${lists(combined)} list reads: ${combined.log
        .filter((e) => e.route === LIST)
        .map((e) => e.status)
        .join(' ')}) + ${combined.formerHostRequests} on the former host`,
    );
    // One process publishes (the runner live, merge-reports in merge mode): at most one request on the former host.
    expect(combined.formerHostRequests).toBeLessThanOrEqual(1);
    const formerOrigin = combined.sandbox.formerOrigin!;
    expect(combined.value.output.split('\n').filter((l) => l.includes('has moved permanently') && l.includes(formerOrigin))).toHaveLength(
      1,
    );
    // The tests were matched through the list's linkage: no scenario list, no test read one by one.
    expect(combined.log.some((e) => e.route === LIST && e.target.includes('include=scenario'))).toBe(true);
    expect(count(combined.log, ALL_SCENARIOS) + count(combined.log, ONE_TEST)).toBe(0);
    // The last list read is the read-back's fresh listing.
    expect(combined.log.filter((e) => e.route === LIST).map((e) => e.status)).toEqual([200, 423, 200, 200, 200, 200]);
    // The 423s (devise-shaped here) were waited out like any "not ready yet"; nothing else was refused.
    expect(combined.log.filter((e) => e.status >= 400 && e.status !== 423)).toEqual([]);
    // No more calls than the plain sandbox, but for one: having seen the list short (the 'mixed' answer), the client
    // takes it only once a second read shows it unchanged (a scenario's dataset tests need not appear at once).
    expect(
      combined.requests - lists(combined) - evidence(combined),
      JSON.stringify(combined.log.map((e) => `${e.route} ${e.status}`)),
    ).toBeLessThanOrEqual(plain.requests - lists(plain) - evidence(plain));
    expect(lists(combined)).toBeLessThanOrEqual(lists(plain) + 1);
  });
});
