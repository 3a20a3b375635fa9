import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

// Figure 8 reads a run's sessions (private fields: the stream, the ledger, the lane) to report what the
// engine holds at the end of the run. A rename in the engine broke that figure once without any test
// noticing; this runs the bench's own reader against the built package.
const require = createRequire(import.meta.url);
const L = require('../../bench/lib.js');
const { sessionState } = require('../../bench/tail.js');

const dir = mkdtempSync(path.join(tmpdir(), 'bench-state-'));
// The bench's own folders (figure 11's driver makes one under .tmp) go with this file, not at the fork's exit.
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  L.removeTmpDirs();
});

it("bench figure 8 reads a run's engine state (streaming, confirmed, lane calls)", async () => {
  const sandbox = await L.startSandbox({ port: 0 });
  try {
    const config = L.resolveConfig(
      { outboxDir: path.join(dir, 'outbox'), summaryFile: path.join(dir, 'summary.json'), zephyr: { cycleName: 'bench state' } },
      L.pick(sandbox.env(), 'ZEPHYR_'),
      dir,
    );
    expect(config.problems).toEqual([]);
    const run = new L.PublishRun(config, { printer: L.silentPrinter() });
    const recs = L.records(3, { failEvery: 0 });
    run.start(recs.map((r: { testId: string; keys: unknown }) => ({ testId: r.testId, keys: r.keys })));
    for (const r of recs) run.record(r);
    // While the run goes on (before finish): the stream sends the three results; wait for the ledger to hold them.
    await expect.poll(() => sessionState(run)[0].confirmed, { timeout: 30_000 }).toBe(3);
    const [state] = sessionState(run);
    expect(state).toMatchObject({ target: 'zephyr', streaming: true, queued: 0, inflight: 0, lane429: 0 });
    expect(state.laneCalls).toBeGreaterThan(0);
    await run.finish(recs, 0);
  } finally {
    await sandbox.close();
  }
});

// Figure 10 drives the reporter in a child process and reads its summary file; it too is only run by hand.
it("bench figure 10's driver publishes every synthetic test and reports each phase's CPU", async () => {
  const sandbox = await L.startSandbox({ port: 0 });
  try {
    const n = 20;
    const env = L.cleanEnv({
      ...L.pick(sandbox.env(), 'ZEPHYR_'),
      ZEPHYR_CYCLE_NAME: 'bench figure 10',
      ZEPHYR_RATE_LIMIT: 'off',
      PW_TMS_OUTBOX_DIR: path.join(dir, 'cpu-outbox'),
      PW_TMS_SUMMARY_FILE: path.join(dir, 'summary.json'),
      BENCH_N: String(n),
      BENCH_TEST_EVERY_MS: '1',
      BENCH_PREPARE_MS: '200',
      BENCH_DIR: dir,
      BENCH_DIST: L.DIST,
    });
    const res = await L.exec(process.execPath, [path.join(L.REPO, 'bench', 'reporter-cpu-child.js')], { env });
    expect(res.exitCode, res.output).toBe(0);
    const m = JSON.parse(res.output.split('\n').find((l: string) => l.startsWith('{')));
    expect(m.published).toBe(n);
    for (const k of ['load', 'begin', 'prepare', 'results', 'end', 'onTestEndUs']) expect(m[k]).toBeGreaterThan(0);
  } finally {
    await sandbox.close();
  }
});

// Figure 11 watches the sandbox's cycle while a paced run ends, then replays what publishTimeout left.
it("bench figure 11's driver sees every status, comment and file land, after the last test", async () => {
  const { scenario } = require('../../bench/statuses-first.js');
  const lines: string[] = [];
  const row = await scenario((line: string) => lines.push(line), { runRealMs: 30_000, n: 20 });
  expect(row.failed).toBe(2);
  expect(row.statusesS).not.toBeNull();
  expect(row.everythingS).not.toBeNull();
  expect(row.replay.after).toEqual({ statuses: 20, comments: 2, files: 2, duplicateFiles: 0 });
  expect(row.target).toEqual({ statuses: true, exactAfterReplay: true });
  expect(lines.join('\n')).toContain('statuses all in');
});
