import * as fs from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import { allFileText, outboxFiles, runPlaywright, runReplay, testSandbox, zephyrCycles, zephyrStatuses, type RunResult } from './harness';
import { bulkSuite } from './suites';
import { TEST_BACKOFF_ENV, TEST_UNREACHABLE_ENV } from '../../src/playwright/test-knobs';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const N = 60;
// Two failures (PROJ-130, and PROJ-160 the last test to run): failed results take calls of their own (a comment),
// and every failure but the last costs a new Playwright worker; six of them proved no more than two.
const expected = Object.fromEntries(Array.from({ length: N }, (_, i) => [`PROJ-${i + 101}`, (i + 1) % 30 === 0 ? 2 : 1]));

describe.each(['live'] as const)('Zephyr under faults (%s)', (mode) => {
  it('20 % errorCode 104, 5 % applied-then-500 and a rate limit: exact state, no duplicates', async () => {
    const name = `faults ${mode}`;
    // Every retry as the product makes it, 20 ms apart instead of its backoff (seconds, 20 of this test's 30):
    // what is checked is the state the retries leave, not how long they wait. The 429s keep their own waits.
    sandbox.setFaults('zephyr', { faultRate: 0.2, appliedFaultRate: 0.05, rateLimit: { count: 15, windowMs: 1000 } });
    try {
      const run = await runPlaywright({
        files: bulkSuite(N, 30, 100),
        env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, [TEST_BACKOFF_ENV]: '20' },
        mode,
      });
      expect(zephyrCycles(sandbox).filter((c) => c.name === name)).toHaveLength(1);
      expect(zephyrStatuses(sandbox, name)).toEqual(expected);
      expect(run.summary!.targets.zephyr).toMatchObject({ published: N, unsent: 0, errors: [] });
      const stats = sandbox.stats().zephyr;
      expect(stats.faultsInjected + stats.appliedFaults).toBeGreaterThan(0);
      expect(outboxFiles(run.outboxDir)).toEqual([]);
    } finally {
      sandbox.setFaults('zephyr', { faultRate: 0, appliedFaultRate: 0, rateLimit: null });
    }
  });
});

describe.each(['live'] as const)('Zephyr down for the whole run (%s)', (mode) => {
  it('keeps 100 % in the outbox; replay sends it exactly; a second replay changes nothing', async () => {
    const name = `outage ${mode}`;
    const env: Record<string, string> = { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name };
    sandbox.setFaults('zephyr', { down: true });
    let run;
    try {
      // Given up after its 3 tries, 20 ms apart (the test knob), not UNREACHABLE's 1 s and 3 s (unreachable.test.ts's).
      run = await runPlaywright({
        // One failure (PROJ-312, the last test to run: no new worker after it) is enough for the exit code.
        files: bulkSuite(12, 12, 300),
        env: { ...env, [TEST_UNREACHABLE_ENV]: '20', [TEST_BACKOFF_ENV]: '20' },
        mode,
      });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    // Given up at the test knob's pace (under 3 s), not UNREACHABLE's (3 tries over 4 s): the knob reached the run.
    expect(run.output).toMatch(/Zephyr unreachable: connection reset at \S+ \(3 tries over [0-2](\.\d)? s\)/);
    // The suite has failing tests; publishing must not change the exit code (merge-reports always exits 0).
    expect(run.exitCode).toBe(mode === 'live' ? 1 : 0);
    expect(zephyrCycles(sandbox).filter((c) => c.name === name)).toHaveLength(0);
    expect(run.summary!.targets.zephyr).toMatchObject({ published: 0, unsent: 12 });
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    expect(run.output).toContain('npx playwright-tms-reporter replay');

    if (mode === 'live') {
      // A replay with bad credentials: one clear line, exit 1, and the outbox untouched.
      const bad = await runReplay(run.outboxDir, { ...env, ZEPHYR_SECRET_KEY: 'replay-wrong-secret-123' });
      expect(bad.exitCode).toBe(1);
      expect(bad.output).toContain('Zephyr rejected the credentials');
      expect(bad.output).not.toMatch(/HttpError|\n\s+at .+:\d+:\d+/);
      expect(bad.output).not.toContain('replay-wrong-secret-123');
      expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    }

    const first = await runReplay(run.outboxDir, env);
    expect(first.exitCode, first.output).toBe(0);
    const want = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`PROJ-${i + 301}`, (i + 1) % 12 === 0 ? 2 : 1]));
    expect(zephyrStatuses(sandbox, name)).toEqual(want);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    const before = JSON.stringify(zephyrCycles(sandbox).find((c) => c.name === name));
    const calls = sandbox.stats().zephyr.requests;

    const second = await runReplay(run.outboxDir, env);
    expect(second.exitCode).toBe(0);
    expect(second.output).toContain('nothing to replay');
    expect(JSON.stringify(zephyrCycles(sandbox).find((c) => c.name === name))).toBe(before);
    expect(sandbox.stats().zephyr.requests).toBe(calls);
    for (const s of [env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY]) {
      expect(allFileText(run.dir) + run.output + first.output).not.toContain(s);
    }
  });
});

/** The lines one reporter instance of a shared run printed (a line without a prefix goes with the one before it). */
function instanceLines(output: string, n: number): string {
  let current = 0;
  const mine: string[] = [];
  for (const line of output.split('\n')) {
    const prefixed = /^\[tms-reporter (\d+)\] /.exec(line);
    if (prefixed) current = Number(prefixed[1]);
    if (current === n) mine.push(line);
  }
  return mine.join('\n');
}

describe.each(['live'] as const)('Zephyr bad credentials and bad keys (%s)', (mode) => {
  // One Playwright run, a reporter instance per case (their cycles, outboxes and summaries apart; instance N prints
  // `[tms-reporter N]`): the wrong secret comes from the env as a user's would; the other instances are given the
  // sandbox's own secret as an option, and each its own bad base URL or cycle.
  const files = {
    'k.spec.ts': `const { test } = require('@playwright/test');\ntest('real', { tag: '@PROJ-1' }, () => {});\ntest('ghost', { tag: '@PROJ-999999' }, () => {});`,
  };
  const order = ['secret', 'baseUrl', 'qsh', 'badKey'] as const;
  let shared: RunResult;
  beforeAll(async () => {
    // The qsh case: the service recomputes the qsh from the request it receives, so any rewrite breaks the signature.
    const target = new URL(sandbox.origin);
    const proxy = createServer((req, res) => {
      const url = `${req.url}${req.url!.includes('?') ? '&' : '?'}via=proxy`;
      const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const e = sandbox.env();
    const good = { secretKey: e.ZEPHYR_SECRET_KEY };
    try {
      const instances = {
        secret: { zephyr: { cycleName: 'wrong secret' } },
        // A base URL without the context path.
        baseUrl: { zephyr: { ...good, baseUrl: e.ZEPHYR_BASE_URL.replace(/\/connect$/, '') } },
        qsh: { zephyr: { ...good, baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/connect` } },
        badKey: { zephyr: { ...good, cycleName: `bad key ${mode}` } },
      };
      const options = order.map((name) => ({ ...instances[name], outboxDir: `outbox-${name}`, summaryFile: `summary-${name}.json` }));
      shared = await runPlaywright({
        files,
        env: { ...e, ZEPHYR_SECRET_KEY: 'wrong-secret-0123456789' },
        mode,
        options: options[0],
        moreReporters: options.slice(1),
      });
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  }, 300_000);
  type Case = (typeof order)[number];
  const linesOf = (name: Case) => instanceLines(shared.output, order.indexOf(name) + 1);
  const outboxOf = (name: Case) => path.join(shared.dir, `outbox-${name}`);

  it('a wrong secret gives one clear line within the run, and does not fail it', () => {
    // Exit 0: no instance's publishing fails the run (every test passes; 'ghost' is only a bad key).
    expect(shared.exitCode).toBe(0);
    const lines = linesOf('secret')
      .split('\n')
      .filter((l) => l.includes('rejected the credentials'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toContain('ZEPHYR_SECRET_KEY');
    expect(shared.output).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
    expect(shared.output).not.toContain('wrong-secret-0123456789');
    expect(zephyrCycles(sandbox).filter((c) => c.name === 'wrong secret')).toHaveLength(0);
    expect(outboxFiles(outboxOf('secret'))).toHaveLength(1);
  });

  it('failOnPublishError turns a publish failure into a failed run', async () => {
    const env = { ...sandbox.env(), ZEPHYR_SECRET_KEY: 'wrong-secret-0123456789', PW_TMS_FAIL_ON_ERROR: '1' };
    const run = await runPlaywright({
      files: { 'ok.spec.ts': `const { test } = require('@playwright/test');\ntest('ok', { tag: '@PROJ-1' }, () => {});` },
      env,
    });
    expect(run.exitCode).toBe(1);
    expect(run.output).toContain('failOnPublishError');
  });

  it('a base URL without the context path names ZEPHYR_BASE_URL and the /connect root', () => {
    expect(shared.exitCode).toBe(0);
    expect(linesOf('baseUrl')).toMatch(/Zephyr has no GET .*\(404.*ZEPHYR_BASE_URL \(zephyr\.baseUrl\).*\/connect/);
  });

  it('a request changed on its way (a proxy adding to the query) gives the qsh hint', () => {
    expect(shared.exitCode).toBe(0);
    expect(linesOf('qsh')).toMatch(/Zephyr rejected the request signature \(401, qsh mismatch/);
    expect(linesOf('qsh')).toContain('ZEPHYR_BASE_URL');
  });

  it('a key that is not a Test issue is refused, named with what to do, and not kept for replay; the others publish', () => {
    const summary = JSON.parse(fs.readFileSync(path.join(shared.dir, 'summary-badKey.json'), 'utf8')) as RunSummary;
    expect(zephyrStatuses(sandbox, `bad key ${mode}`)).toEqual({ 'PROJ-1': 1 });
    expect(summary.targets.zephyr).toMatchObject({ published: 1, unsent: 0, refused: 1 });
    expect(summary.targets.zephyr!.errors).toEqual([
      "PROJ-999999 is not a Test issue of project 10000 (Zephyr rejected it) — fix the test's key (tag or annotation); not kept for replay",
    ]);
    expect(linesOf('badKey')).toContain('1 refused by the service');
    expect(linesOf('badKey')).not.toContain('replay`');
    // Sending it again cannot help: nothing is left for a replay step to fail on, run after run.
    expect(outboxFiles(outboxOf('badKey'))).toEqual([]);
  });
});

describe('reporter loading', () => {
  it.each(['esm', 'cjs'] as const)('loads by package name from a %s config, also without require(esm)', async (config) => {
    const name = `config ${config}`;
    const run = await runPlaywright({
      files: { 'ok.spec.ts': `const { test } = require('@playwright/test');\ntest('ok', { tag: '@PROJ-2' }, () => {});` },
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name },
      config,
      nodeOptions: '--no-experimental-require-module',
    });
    expect(run.exitCode, run.output).toBe(0);
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-2': 1 });
  });

  it('dryRun maps and prints, and sends nothing', async () => {
    const before = sandbox.stats();
    const run = await runPlaywright({
      files: {
        'ok.spec.ts': `const { test } = require('@playwright/test');\ntest('ok', { tag: ['@PROJ-3', '@cs-3'] }, () => {});\ntest('bad', { tag: '@PROJ-4' }, () => { throw new Error('x'); });`,
      },
      env: { ...sandbox.env(), PW_TMS_DRY_RUN: '1' },
    });
    expect(run.output).toContain('dry run: Zephyr Squad PROJ-3 -> PASS');
    expect(run.output).toContain('dry run: Zephyr Squad PROJ-4 -> FAIL (with comment)');
    expect(run.output).toContain('dry run: CucumberStudio 3 -> passed');
    expect(run.summary!.targets.zephyr).toMatchObject({ dryRun: true, published: 2, calls: 0 });
    const after = sandbox.stats();
    expect(after.zephyr.requests).toBe(before.zephyr.requests);
    expect(after.cucumberstudio.requests).toBe(before.cucumberstudio.requests);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('with no credentials prints one line and does nothing', async () => {
    const run = await runPlaywright({ files: { 'ok.spec.ts': `const { test } = require('@playwright/test');\ntest('ok', () => {});` } });
    expect(run.exitCode).toBe(0);
    expect(run.output.match(/no target enabled/g)).toHaveLength(1);
  });
});
