/**
 * The sandbox playing production, Zephyr's switches (field evidence, /work/shared/spec/README.md): a real
 * `playwright test` run against each switch, checked on what the sandbox holds (every mapped result, exact, no
 * duplicate) and on what it received (request log). CucumberStudio's: production-switches.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RequestLogEntry } from '../../src/sandbox/server';
import type { RunSummary } from '../../src/shared/model';
import { outboxFiles, runPlaywright, testSandbox, zephyrStatuses } from './harness';
import { resolveConfig } from '../../src/config/config';
import { createHttp } from '../../src/http/client';
import { zephyr } from '../../src/targets/zephyr/definition';

/**
 * What the switches publish: the statuses Zephyr is sent (pass, fail, a flaky test's last try, unexecuted, worst of
 * two tests of one key), two keys on one test, a run-time annotation. Lighter than ZEPHYR_SUITE (suites.ts), whose
 * `retries: 1` and timeout cost 7 worker starts (one after each failed attempt): only the flaky test is retried,
 * PROJ-10 passes (a timeout is the status table's case, not a switch's) and the last test fails (no worker starts
 * after it): 2.
 */
const SWITCH_SUITE = {
  'a.spec.ts': `
const { test, expect } = require('@playwright/test');
test('pass by annotation', { annotation: { type: 'zephyr', description: 'PROJ-1' } }, () => { expect(1).toBe(1); });
test('pass by title tag @PROJ-2', () => {});
test('fails', { tag: '@PROJ-3' }, () => { expect(1).toBe(2); });
test.describe('retried', () => {
  test.describe.configure({ retries: 1 });
  test('flaky', { tag: '@PROJ-4' }, ({}, testInfo) => { if (testInfo.retry === 0) throw new Error('first attempt fails'); });
});
test('skipped', { tag: '@PROJ-5' }, () => { test.skip(); });
test('expected failure', { tag: '@PROJ-6' }, () => { test.fail(); expect(1).toBe(2); });
`,
  'b.spec.ts': `
const { test, expect } = require('@playwright/test');
test('two keys', { annotation: [{ type: 'zephyr', description: 'PROJ-7' }, { type: 'zephyr', description: 'PROJ-8' }] }, () => {});
test('shared ok', { tag: '@PROJ-9' }, () => {});
test('passes', { tag: '@PROJ-10' }, () => {});
test('run-time annotation', () => { test.info().annotations.push({ type: 'zephyr', description: 'PROJ-11' }); });
test('unmapped', () => {});
test('shared bad', { tag: '@PROJ-9' }, () => { expect(true, 'shared key must fail').toBe(false); });
`,
};
/** key -> Zephyr status id (1 pass, 2 fail, -1 unexecuted). */
const ZEPHYR_EXPECTED: Record<string, number> = {
  'PROJ-1': 1,
  'PROJ-2': 1,
  'PROJ-3': 2,
  'PROJ-4': 1,
  'PROJ-5': -1,
  'PROJ-6': 1,
  'PROJ-7': 1,
  'PROJ-8': 1,
  'PROJ-9': 2,
  'PROJ-10': 1,
  'PROJ-11': 1,
};

const count = (log: RequestLogEntry[], route: string, status?: number) =>
  log.filter((e) => e.route === route && (status === undefined || e.status === status)).length;

/** Requests the Zephyr client has in flight at once (`src/targets/zephyr/definition.ts`). */
const ZEPHYR_CONCURRENCY = 4;
/** Answers this close before a 429 may reach the client before it: their freed slots may still be used. */
const JUST_BEFORE_MS = 200;

/**
 * From the sandbox log: after each 429, the request it refused is not repeated (same method and target)
 * before the wait the answer named has passed, and nothing else arrives meanwhile but what the client sent
 * before the 429 reached it: what was in flight (at most its other slots), plus one request per answer it
 * had just before (each answer frees a slot; on a loaded machine such a request can arrive after the 429
 * went out). A client that ignored the wait would send hundreds in that time. Times are the sandbox's: the
 * 429's `at` is taken before it is sent, so a client that waited from its arrival can never look early.
 */
function expectWaitsHonoured(log: RequestLogEntry[]): void {
  for (const [i, refused] of log.entries()) {
    if (refused.waitSeconds === undefined) continue;
    const end = refused.at + refused.waitSeconds * 1000;
    const meanwhile = log.slice(i + 1).filter((e) => e.at < end);
    const what = `within ${refused.waitSeconds} s of the 429 to ${refused.method} ${refused.target}`;
    // The same request again (same body): two requests to one path in flight together (say two bulk status
    // calls) are both refused, and are not a repeat.
    expect(
      meanwhile.filter((e) => e.method === refused.method && e.target === refused.target && e.bodyDigest === refused.bodyDigest),
      `repeated ${what}`,
    ).toEqual([]);
    const answeredJustBefore = log.filter((e) => e !== refused && e.at <= refused.at && e.at >= refused.at - JUST_BEFORE_MS).length;
    expect(meanwhile.length, `sent ${what}: ${JSON.stringify(meanwhile)}`).toBeLessThanOrEqual(ZEPHYR_CONCURRENCY - 1 + answeredJustBefore);
  }
}

/**
 * The Zephyr switches, one sandbox each, all published to by ONE Playwright run (one reporter instance per sandbox,
 * each with its own baseUrl, cycle, outbox and summary): one run per switch cost a Playwright start and
 * the suite's worker restarts each time, for the same test events. Each sandbox holds and logs only its
 * instance's requests, so every case is asserted as if it had had the run to itself.
 */
interface ZephyrCase {
  name: string;
  settings: Record<string, unknown>;
  rateLimit?: { count: number; windowMs: number };
  /** Another shard's 200 executions already in the cycle (the ZQL cases). */
  others?: boolean;
}
const ZEPHYR_CASES: ZephyrCase[] = [
  // Waits of up to 3 s, longer than the 1 s a client waits after a 429 that names none: one that took
  // Retry-After: 0 for the wait repeats the refused call inside it (tried). 6 a window, not 4: the run is paced
  // by the limit, so a third less time, still with 429s.
  { name: 'retry-after zero', settings: { retryAfter: 'zero' }, rateLimit: { count: 6, windowMs: 3000 } },
  ...(['text', 'json-string', 'object'] as const).map((style) => ({ name: `job token ${style}`, settings: { jobTokenStyle: style } })),
  ...(['indexed', 'stale', 'absent'] as const).map((style) => ({ name: `zql ${style}`, settings: { zql: style }, others: true })),
];
interface ZephyrOutcome {
  sandbox: RunningSandbox;
  /** Requests the sandbox received from the Playwright run (the other shard's setup excluded). */
  log: RequestLogEntry[];
  summary: RunSummary;
  output: string;
  outboxDir: string;
}
const zephyrRuns = new Map<string, ZephyrOutcome>();

/** Another shard's 200 executions already in the cycle: paging it would take 5 reads, ZQL finds our 11 in one. */
async function cycleWithOthers(target: RunningSandbox, name: string): Promise<void> {
  const http = createHttp();
  try {
    const config = resolveConfig({
      definitions: [zephyr],
      options: { zephyr: {} },
      env: { ...zephyrEnv(target), ZEPHYR_CYCLE_NAME: name, ZEPHYR_RATE_LIMIT: 'off' },
    });
    const other = zephyr.create(config.targets[0].config as never, {
      send: http.send,
      secrets: config.secrets,
      tuning: { zephyr: { firstPollMs: 10 } },
    });
    await (
      await other.begin({ knownKeys: Array.from({ length: 200 }, (_, i) => `PROJ-${101 + i}`) })
    ).preparation;
  } finally {
    await http.close();
  }
}
const zephyrEnv = (target: RunningSandbox) => Object.fromEntries(Object.entries(target.env()).filter(([k]) => k.startsWith('ZEPHYR_')));

describe('Zephyr answers as production did (live, one run, one sandbox per switch)', () => {
  const sandboxes: RunningSandbox[] = [];
  beforeAll(async () => {
    // One key for every sandbox: the run's env gives the credentials once, each instance only its baseUrl.
    for (const c of ZEPHYR_CASES) {
      const accessKey = sandboxes[0] ? zephyrEnv(sandboxes[0]).ZEPHYR_ACCESS_KEY : undefined;
      const s = await testSandbox({ zephyr: { accessKey } });
      sandboxes.push(s);
      s.configure('zephyr', c.settings);
      if (c.others) await cycleWithOthers(s, c.name);
    }
    const starts = sandboxes.map((s) => s.log().length);
    ZEPHYR_CASES.forEach((c, i) => c.rateLimit && sandboxes[i].setFaults('zephyr', { rateLimit: c.rateLimit }));
    const instances = ZEPHYR_CASES.map((c, i) => ({
      zephyr: { baseUrl: zephyrEnv(sandboxes[i]).ZEPHYR_BASE_URL, cycleName: c.name },
      outboxDir: `outbox-${i}`,
      summaryFile: `summary-${i}.json`,
    }));
    const run = await runPlaywright({
      files: SWITCH_SUITE,
      env: zephyrEnv(sandboxes[0]),
      options: instances[0],
      moreReporters: instances.slice(1),
    });
    ZEPHYR_CASES.forEach((c, i) => {
      const file = path.join(run.dir, `summary-${i}.json`);
      zephyrRuns.set(c.name, {
        sandbox: sandboxes[i],
        log: sandboxes[i]
          .log()
          .slice(starts[i])
          .filter((e) => e.service === 'zephyr'),
        // A missing summary (an instance that crashed) fails its own case, not the others.
        summary: (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { targets: {} }) as RunSummary,
        output: run.output,
        outboxDir: path.join(run.dir, `outbox-${i}`),
      });
    });
  }, 300_000);
  afterAll(async () => {
    for (const s of sandboxes) await s.close();
  });

  /** The case's instance: 11 published, nothing unsent or failed, nothing left in its outbox. */
  function published(name: string): ZephyrOutcome {
    const r = zephyrRuns.get(name)!;
    expect(r.summary.targets.zephyr, r.output).toMatchObject({ published: 11, unsent: 0, errors: [] });
    expect(outboxFiles(r.outboxDir)).toEqual([]);
    return r;
  }

  it("retryAfter 'zero' under a low rate limit: publishes exactly, and waits the seconds the text names", () => {
    const name = 'retry-after zero';
    const { sandbox: s, log } = published(name);
    expect(zephyrStatuses(s, name)).toEqual(ZEPHYR_EXPECTED);
    const limited = log.filter((e) => e.status === 429);
    console.log(
      `[switches] retryAfter zero: ${log.length} Zephyr requests, ${limited.length} × 429; timeline ${log.map((e) => `${e.status}@${e.at - log[0].at}`).join(' ')}`,
    );
    expect(limited.length).toBeGreaterThan(0);
    expectWaitsHonoured(log);
  });

  it.each(['text', 'json-string', 'object'] as const)("jobTokenStyle '%s': publishes exactly", (style) => {
    const name = `job token ${style}`;
    const { sandbox: s, log } = published(name);
    expect(zephyrStatuses(s, name)).toEqual(ZEPHYR_EXPECTED);
    // The jobs were created and polled to their end with the token as handed out.
    expect(count(log, 'POST /executions/add/cycle/:id', 200)).toBeGreaterThan(0);
    expect(count(log, 'POST /executions', 200)).toBeGreaterThan(0);
    expect(count(log, 'GET /jobprogress/:token', 200)).toBeGreaterThan(0);
    expect(log.filter((e) => e.status >= 400)).toEqual([]);
  });

  // Two reads: the 10 keys known at the start, then PROJ-11 (a run-time annotation) when its test ends.
  it.each([
    ['indexed', { searches: 2, status: 200, pages: 1 }],
    ['stale', { searches: 2, status: 200, pages: 10 }],
    ['absent', { searches: 1, status: 404, pages: 10 }],
  ] as const)("zql '%s': a shard joining a cycle of 200 publishes exactly, reading %o", (style, expected) => {
    const name = `zql ${style}`;
    const { sandbox: s, log } = published(name);
    const all = zephyrStatuses(s, name);
    expect(Object.fromEntries(Object.entries(all).filter(([k]) => k in ZEPHYR_EXPECTED))).toEqual(ZEPHYR_EXPECTED);
    expect(Object.keys(all)).toHaveLength(211);
    // The listing's first page (the cycle's size), then ZQL for our keys; the whole listing (5 pages a read) only
    // when ZQL did not find them; a 404 is not asked again.
    expect(count(log, 'POST /zql/search')).toBe(expected.searches);
    expect(count(log, 'POST /zql/search', expected.status)).toBe(expected.searches);
    expect(count(log, 'GET /executions/search/cycle/:id')).toBe(expected.pages);
  });
});
