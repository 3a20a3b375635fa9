/**
 * A `.lock` left by a replay that was killed must not block its journal forever: replay takes over a
 * lock whose process is gone (and says so), and still refuses one whose process is alive.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { outboxFiles, runPlaywright, runReplay, testSandbox, zephyrStatuses } from './harness';

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
      'l.spec.ts': `import { test } from '@playwright/test';\ntest('a', { tag: '@PROJ-1' }, () => {});\ntest('b', { tag: '@PROJ-2' }, () => { throw new Error('x'); });`,
    },
    env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name },
  });
  sandbox.setFaults('zephyr', { down: false });
  const [file] = outboxFiles(run.outboxDir);
  expect(file, run.output).toBeDefined();
  const journal = path.join(run.outboxDir, file);

  // A replay still running (this very process) holds it: skipped, journal kept.
  lockOf(journal, process.pid);
  const refused = await runReplay(run.outboxDir, sandbox.env());
  expect(refused.output).toMatch(new RegExp(`is being replayed by process ${process.pid}`));
  expect(outboxFiles(run.outboxDir)).toEqual([file]);

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
