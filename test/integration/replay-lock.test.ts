/**
 * A `.lock` left by a replay that was killed must not block its journal forever: replay takes over a
 * lock whose process is gone (and says so), and still refuses one whose process is alive.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPrinter } from '../../src/shared/output';
import { replay } from '../../src/commands/replay';
import type { RunningSandbox } from '../../src/sandbox';
import { baseEnv, outboxFiles, REPO, runPlaywright, runReplay, testSandbox, zephyrStatuses } from './harness';
import { TEST_BATCH_WAIT_ENV } from '../../src/playwright/test-knobs';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(() => sandbox.close());

const lockOf = (journal: string, pid: number) =>
  fs.writeFileSync(
    `${journal}.lock`,
    JSON.stringify({ pid, hostname: os.hostname(), startedAt: new Date(Date.now() - 60_000).toISOString() }),
  );

it('replay refuses a live lock, takes over a dead one with a line, and sends exactly once', async () => {
  const name = 'stale lock';
  sandbox.setFaults('zephyr', { down: true });
  const run = await runPlaywright({
    files: {
      'l.spec.ts': `const { test } = require('@playwright/test');\ntest('a', { tag: '@PROJ-1' }, () => {});\ntest('b', { tag: '@PROJ-2' }, () => { throw new Error('x'); });`,
    },
    env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, PW_TMS_PUBLISH_TIMEOUT: '3' }, // down: no need to wait out the retries
  });
  sandbox.setFaults('zephyr', { down: false });
  const [file] = outboxFiles(run.outboxDir);
  expect(file, run.output).toBeDefined();
  const journal = path.join(run.outboxDir, file);

  // A replay still running (this very process) holds it: skipped, journal kept.
  lockOf(journal, process.pid);
  const refused = await runReplay(run.outboxDir, sandbox.env());
  expect(refused.output).toMatch(new RegExp(`is in use by process ${process.pid}`));
  expect(outboxFiles(run.outboxDir)).toEqual([file]);

  // Ctrl+C during a replay: the sending stops, a line says so and what stays, the lock goes with it.
  fs.rmSync(`${journal}.lock`);
  sandbox.setFaults('zephyr', { latencyMs: 60_000 });
  try {
    const before = sandbox.stats().zephyr.requests;
    const child = spawn(process.execPath, [path.join(REPO, 'bin/playwright-tms-reporter.js'), 'replay', run.outboxDir], {
      cwd: REPO,
      env: baseEnv(sandbox.env()),
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Its first request is held by the sandbox's latency: the replay is sending.
    for (let i = 0; i < 600 && sandbox.stats().zephyr.requests === before; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited, output).toBe(1);
    expect(output).toContain('SIGINT: stopping the replay; what is not sent yet stays in the outbox');
    expect(output).toMatch(/2 not sent/);
    expect(fs.existsSync(`${journal}.lock`)).toBe(false);
    expect(outboxFiles(run.outboxDir)).toEqual([file]);
  } finally {
    sandbox.setFaults('zephyr', { latencyMs: 0 });
  }

  // A replay that was killed: its process is gone.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  lockOf(journal, dead);
  const taken = await runReplay(run.outboxDir, sandbox.env());
  expect(taken.exitCode, taken.output).toBe(0);
  expect(taken.output).toMatch(new RegExp(`took over a stale lock .*process ${dead}: not running`));
  expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 2 });
  expect(outboxFiles(run.outboxDir)).toEqual([]);
  expect(fs.readdirSync(run.outboxDir).filter((f) => f.includes('.lock'))).toEqual([]);
  fs.rmSync(run.dir, { recursive: true, force: true });
});

it("a replay started while a run still publishes leaves that run's journal alone; what the run could not send is replayed once", async () => {
  // The second test replays the outbox in the middle of the run, then takes the service down: the run's
  // journal must survive (the replay skips it as in use) and hold what the run could not send.
  const name = 'replay meanwhile';
  const run = await runPlaywright({
    files: {
      'm.spec.ts': `
const { test, expect } = require('@playwright/test');
const { spawnSync } = require('node:child_process');
test.describe.configure({ mode: 'serial' });
const admin = (p, body) => fetch(process.env.SANDBOX_ORIGIN + '/__sandbox' + p, body ? { method: 'POST', body: JSON.stringify(body) } : undefined);
test('a', { tag: '@PROJ-1' }, () => {});
test('replays meanwhile', { tag: '@PROJ-2' }, async () => {
  test.setTimeout(90_000);
  for (;;) {
    const s = await (await admin('/state')).json();
    if (s.zephyr.cycles.filter((c) => c.name === ${JSON.stringify(name)}).flatMap((c) => c.executions).some((e) => e.issueKey === 'PROJ-1' && e.statusId === 1)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const replay = spawnSync(process.execPath, [process.env.TMS_BIN, 'replay', process.env.PW_TMS_OUTBOX_DIR], { encoding: 'utf8' });
  expect(replay.stdout + replay.stderr).toMatch(/in use by process/);
  await admin('/faults', { zephyr: { down: true } });
});
test('c', { tag: '@PROJ-3' }, () => { throw new Error('c'); });
`,
    },
    workers: 1,
    env: {
      ...sandbox.env(),
      SANDBOX_ORIGIN: sandbox.origin,
      TMS_BIN: path.join(REPO, 'bin/playwright-tms-reporter.js'),
      ZEPHYR_CYCLE_NAME: name,
      PW_TMS_PUBLISH_TIMEOUT: '5',
      // The second test waits for PROJ-1's status, not for Zephyr's 3 s batching window.
      [TEST_BATCH_WAIT_ENV]: '200',
    },
  });
  sandbox.setFaults('zephyr', { down: false });
  expect(run.output).toMatch(/2 passed/);
  expect(outboxFiles(run.outboxDir), run.output).toHaveLength(1);
  const replayed = await runReplay(run.outboxDir, sandbox.env());
  expect(replayed.exitCode, replayed.output).toBe(0);
  expect(replayed.output).toMatch(/replaying 3 test results of a run \d+ min ago \(\d{4}-\d\d-\d\dT/);
  expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 1, 'PROJ-3': 2 });
  expect(outboxFiles(run.outboxDir)).toEqual([]);
  expect(fs.readdirSync(run.outboxDir).filter((f) => f.includes('.lock'))).toEqual([]);
});

it('a journal its run completed after giving up on it (work past publishTimeout) is removed by replay, not kept forever', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tms-complete-'));
  try {
    const file = path.join(dir, 'run-late.jsonl');
    const lines = [
      {
        t: 'meta',
        v: 2,
        runId: 'run-late',
        createdAt: new Date().toISOString(),
        targets: { zephyr: { settings: { projectId: 10000 }, containerName: 'late' } },
      },
      { t: 'test', rec: { testId: 't1', title: 'a', keys: { zephyr: ['PROJ-1'] }, outcome: 'passed', attempts: 1 } },
      { t: 'done', target: 'zephyr', items: [['PROJ-1', 1]] },
      { t: 'complete', target: 'zephyr' },
    ];
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const before = sandbox.stats().zephyr.requests;
    const replayed = await runReplay(dir, sandbox.env());
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).toContain('already complete; removed');
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(sandbox.stats().zephyr.requests).toBe(before);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('a journal of another version (a CI artifact replayed with another version of the package) is kept, not replayed', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tms-version-'));
  try {
    const file = path.join(dir, 'run-v3.jsonl');
    const lines = [
      {
        t: 'meta',
        v: 3,
        runId: 'run-v3',
        createdAt: new Date().toISOString(),
        targets: { zephyr: { settings: { projectId: 10000 }, containerName: 'v3' } },
      },
      { t: 'test', rec: { testId: 't1', title: 'a', keys: { zephyr: ['PROJ-1'] }, outcome: 'passed', attempts: 1 } },
    ];
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const before = sandbox.stats().zephyr.requests;
    const replayed = await runReplay(dir, sandbox.env());
    expect(replayed.exitCode, replayed.output).not.toBe(0);
    expect(replayed.output).toContain('journal version 3, written by another version of this package; kept, not replayed');
    expect(fs.readdirSync(dir)).toEqual(['run-v3.jsonl']);
    expect(sandbox.stats().zephyr.requests).toBe(before);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('an outbox copied from a run killed on another machine (its lock inside) is replayed, after a watch for a sign of life', async () => {
  // SIGTERM leaves the run's lock beside its journal; the CI artifact carries it to another runner, where
  // it is downloaded with a fresh mtime. Nobody touches it there: the replay takes it over and sends.
  const name = 'copied lock';
  const zephyrOnly = Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
  sandbox.setFaults('zephyr', { down: true });
  const run = await runPlaywright({
    files: { 'c.spec.ts': `const { test } = require('@playwright/test');\ntest('a', { tag: '@PROJ-3' }, () => {});` },
    env: { ...zephyrOnly, ZEPHYR_CYCLE_NAME: name, PW_TMS_PUBLISH_TIMEOUT: '3' },
  });
  sandbox.setFaults('zephyr', { down: false });
  const [file] = outboxFiles(run.outboxDir);
  expect(file, run.output).toBeDefined();
  const journal = path.join(run.outboxDir, file);
  fs.writeFileSync(`${journal}.lock`, JSON.stringify({ pid: 4242, hostname: 'runner-job1-7f3a', startedAt: new Date().toISOString() }));
  const lines: string[] = [];
  const result = await replay(
    run.outboxDir,
    {},
    zephyrOnly,
    createPrinter([], false, (t) => void lines.push(t)),
    undefined,
    undefined,
    {
      watchMs: 600,
      pollMs: 100,
    },
  );
  const output = lines.join('');
  expect(output).toMatch(/is locked by process 4242 on runner-job1-7f3a \(another machine\): watching the lock/);
  expect(output).toMatch(/took over a stale lock .*process 4242: no sign of life/);
  expect(result.unsent, output).toBe(0);
  expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-3': 1 });
  expect(outboxFiles(run.outboxDir)).toEqual([]);
  fs.rmSync(run.dir, { recursive: true, force: true });
});
