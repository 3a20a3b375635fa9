import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { resolveConfig } from '../../src/config/config';
import { createPrinter } from '../../src/shared/output';
import { PublishRun } from '../../src/engine/run';
import { TARGETS } from '../../src/targets';
import type { RunSummary, TestRecord } from '../../src/shared/model';
import {
  csLastStatuses,
  csRun,
  csRuns,
  outboxFiles,
  runPlaywright,
  tempDir,
  testSandbox,
  zephyrCycles,
  zephyrStatuses,
  type RunResult,
} from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/**
 * 24 tests in 6 files; test i maps to PROJ-(base+i) and scenario (base+i); every 6th fails; each takes `ms`.
 * The failures are the last test of each of 4 shards (of 2, the middle and the last): Playwright starts a new worker
 * after a failed test when tests remain, and at a shard's end none do.
 */
const fails = (i: number) => i % 6 === 5;

function shardSuite(base: number, ms = 0): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < 6; f++) {
    const tests = [0, 1, 2, 3].map((j) => {
      const i = f * 4 + j;
      const wait = ms ? `await new Promise((r) => setTimeout(r, ${ms})); ` : '';
      return `test('t${i}', { tag: ['@PROJ-${base + i}', '@cs-${base + i}'] }, async () => { ${wait}expect(${fails(i) ? 1 : 0}).toBe(0); });`;
    });
    files[`s${f}.spec.ts`] = `const { test, expect } = require('@playwright/test');\n${tests.join('\n')}`;
  }
  return files;
}

// 2 shards: in the paced pair of shards below (an instance of their own, into a sandbox of its own).
describe.each([4])('%i live shards started at the same instant', (n) => {
  it('publish into exactly one cycle and one test run, with the exact union', async () => {
    const base = 600;
    const name = `shards ${n}`;
    const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name };
    const runs = await Promise.all(
      Array.from({ length: n }, (_, i) => runPlaywright({ files: shardSuite(base), env, workers: 1, args: [`--shard=${i + 1}/${n}`] })),
    );
    for (const r of runs) expect(outboxFiles(r.outboxDir)).toEqual([]);
    expect(zephyrCycles(sandbox).filter((c) => c.name === name)).toHaveLength(1);
    const want = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`PROJ-${base + i}`, fails(i) ? 2 : 1]));
    expect(zephyrStatuses(sandbox, name)).toEqual(want);
    const csRun = csRuns(sandbox, name);
    expect(csRun).toHaveLength(1);
    expect(csLastStatuses(csRun[0])).toEqual(
      Object.fromEntries(Array.from({ length: 24 }, (_, i) => [base + i, [fails(i) ? 'failed' : 'passed']])),
    );
    const published = runs.map((r) => r.summary?.targets.zephyr?.published ?? 0);
    expect(published.reduce((a, b) => a + b, 0)).toBe(24);
  });
});

/**
 * 24 tests in 6 files; test i maps to PROJ-(zephyrBase+i) and scenario (csBase+i) (the keys of each service apart
 * from every other case's); every 6th fails (see shardSuite); each takes `ms`.
 */
function pacedSuite(zephyrBase: number, csBase: number, ms: number): Record<string, string> {
  return Object.fromEntries(
    Object.entries(shardSuite(zephyrBase, ms)).map(([file, text]) => [
      file,
      text.replace(/'@cs-(\d+)'/g, (_, id) => `'@cs-${Number(id) - zephyrBase + csBase}'`),
    ]),
  );
}

// Both services paced in one pair of shards (their keys are disjoint, their limits apart): each case asserts its
// service as if the shards had published to it alone (two Playwright shards instead of two pairs).
// The same two shards also carry the case of 2 shards started at the same instant with no pacing: a second reporter
// instance each, into a sandbox of its own with no rate limit (a run of two shards fewer).
describe('2 live shards, each service on a tight budget', () => {
  const zephyr = { base: 800, name: 'shards paced' };
  const cs = { base: 850, name: 'cs shards paced' };
  const unpacedName = 'shards 2';
  let unpaced: RunningSandbox;
  let runs: RunResult[];
  const rateLimited = { zephyr: 0, cucumberstudio: 0 };
  beforeAll(async () => {
    const env = {
      ...sandbox.env(),
      ZEPHYR_CYCLE_NAME: zephyr.name,
      ZEPHYR_RATE_LIMIT: '7/2',
      CUCUMBERSTUDIO_TEST_RUN_NAME: cs.name,
      CUCUMBERSTUDIO_RATE_LIMIT: '12/2',
    };
    const before = { zephyr: sandbox.stats().zephyr.rateLimited, cucumberstudio: sandbox.stats().cucumberstudio.rateLimited };
    sandbox.setFaults('zephyr', { rateLimit: { count: 14, windowMs: 2000 } });
    sandbox.setFaults('cucumberstudio', { rateLimit: { count: 12, windowMs: 2000 } });
    unpaced = await testSandbox();
    const u = unpaced.env();
    const second = {
      zephyr: { baseUrl: u.ZEPHYR_BASE_URL, cycleName: unpacedName, rateLimit: 'off' },
      cucumberstudio: { baseUrl: u.CUCUMBERSTUDIO_BASE_URL, testRunName: unpacedName, rateLimit: 'off' },
      outboxDir: 'outbox-unpaced',
      summaryFile: 'summary-unpaced.json',
    };
    try {
      runs = await Promise.all(
        [1, 2].map((i) =>
          runPlaywright({
            files: pacedSuite(zephyr.base, cs.base, 400),
            env,
            workers: 1,
            args: [`--shard=${i}/2`],
            secondReporter: second,
          }),
        ),
      );
    } finally {
      sandbox.setFaults('zephyr', { rateLimit: null });
      sandbox.setFaults('cucumberstudio', { rateLimit: null });
    }
    for (const id of ['zephyr', 'cucumberstudio'] as const) rateLimited[id] = sandbox.stats()[id].rateLimited - before[id];
  }, 300_000);
  afterAll(async () => {
    await unpaced?.close();
  });

  it('unpaced, into a sandbox of their own: exactly one cycle and one test run, with the exact union', () => {
    for (const r of runs) expect(outboxFiles(path.join(r.dir, 'outbox-unpaced'))).toEqual([]);
    expect(zephyrCycles(unpaced).filter((c) => c.name === unpacedName)).toHaveLength(1);
    const want = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`PROJ-${zephyr.base + i}`, fails(i) ? 2 : 1]));
    expect(zephyrStatuses(unpaced, unpacedName)).toEqual(want);
    const held = csRuns(unpaced, unpacedName);
    expect(held).toHaveLength(1);
    expect(csLastStatuses(held[0])).toEqual(
      Object.fromEntries(Array.from({ length: 24 }, (_, i) => [cs.base + i, [fails(i) ? 'failed' : 'passed']])),
    );
    const summaries = runs.map((r) => JSON.parse(fs.readFileSync(path.join(r.dir, 'summary-unpaced.json'), 'utf8')) as RunSummary);
    expect(summaries.map((s) => s.targets.zephyr?.published ?? 0).reduce((a, b) => a + b, 0)).toBe(24);
  });

  it('Zephyr (7 calls per 2 s each, the key allows 14): the exact union, each status set once, no 429', () => {
    // Under such a budget a shard keeps passed results that can share a later bulk call while its window is
    // short of room (ZephyrTarget.batching.pick): whatever it still holds at the end goes with the end's bulk.
    for (const r of runs) expect(outboxFiles(r.outboxDir)).toEqual([]);
    const want = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`PROJ-${zephyr.base + i}`, fails(i) ? 2 : 1]));
    expect(zephyrStatuses(sandbox, zephyr.name)).toEqual(want);
    const cycle = zephyrCycles(sandbox).find((c) => c.name === zephyr.name)!;
    expect(cycle.executions.filter((e) => e.statusChanges !== 1).map((e) => `${e.issueKey}: ${e.statusChanges}`)).toEqual([]);
    expect(rateLimited.zephyr).toBe(0);
  });

  it('CucumberStudio, whose per-IP limit the shards on one machine share (each paced to all of it): exact, no 429', () => {
    // Each shard alone may send 12 calls per 2 s, the service's whole limit; together they count each other's calls.
    for (const r of runs) expect(outboxFiles(r.outboxDir)).toEqual([]);
    expect(csLastStatuses(csRun(sandbox, cs.name))).toEqual(
      Object.fromEntries(Array.from({ length: 24 }, (_, i) => [cs.base + i, [fails(i) ? 'failed' : 'passed']])),
    );
    expect(rateLimited.cucumberstudio).toBe(0);
  });
});

it('a shard that receives no tests publishes nothing and creates nothing', async () => {
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: 'empty shard', CUCUMBERSTUDIO_TEST_RUN_NAME: 'empty shard' };
  const files = { 'one.spec.ts': `const { test } = require('@playwright/test');\ntest('only', { tag: ['@PROJ-1', '@cs-1'] }, () => {});` };
  const run = await runPlaywright({ files, env, args: ['--shard=2/2'] });
  expect(run.exitCode).toBe(0);
  expect(run.output).toContain('no tests');
  expect(zephyrCycles(sandbox).filter((c) => c.name === 'empty shard')).toHaveLength(0);
  expect(csRuns(sandbox, 'empty shard')).toHaveLength(0);
});

it('processes that all create at once (no shard info) converge on one cycle and one run', async () => {
  const name = 'race';
  const env = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name };
  const printer = createPrinter([], false, () => undefined);
  const records = (i: number): TestRecord[] => [
    {
      testId: `t${i}`,
      title: `t${i}`,
      keys: { zephyr: [`PROJ-${700 + i}`], cucumberstudio: [String(700 + i)] },
      outcome: 'passed',
      attempts: 1,
    },
  ];
  const publishers = Array.from({ length: 5 }, (_, i) => {
    const run = new PublishRun(
      { ...resolveConfig({ definitions: TARGETS, options: {}, env }), outboxDir: path.join(tempDir('race'), 'outbox') },
      { printer },
    );
    run.start(records(i));
    return run.finish(records(i), 0);
  });
  const summaries = await Promise.all(publishers);
  for (const s of summaries) expect(s.targets.zephyr).toMatchObject({ published: 1, errors: [] });
  expect(zephyrCycles(sandbox).filter((c) => c.name === name)).toHaveLength(1);
  expect(zephyrStatuses(sandbox, name)).toEqual(Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`PROJ-${700 + i}`, 1])));
  // Runs cannot be deleted: a duplicate keeps its name, says in its description where the results are,
  // and holds none; every process settles on the lowest id.
  const [winner, ...duplicates] = csRuns(sandbox, name).sort((x, y) => x.id - y.id);
  expect(Object.keys(csLastStatuses(winner)).map(Number).sort()).toEqual([700, 701, 702, 703, 704]);
  const held = (sandbox.state().cucumberstudio as { testRuns: Array<{ id: number; description: string }> }).testRuns;
  for (const d of duplicates) {
    expect(held.find((r) => r.id === d.id)!.description).toContain(`Unused duplicate of test run ${winner.id}`);
    expect(csLastStatuses(d)).toEqual({});
  }
});
