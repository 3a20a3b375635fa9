import * as path from 'node:path';
/**
 * The progress lines of a slow end of the run (issue 10): while results are still going out they say
 * how many and how long at the current rate; once the statuses are all out they say what is left (the
 * attachments; the read-back, which goes alongside them, when it outlasts them: test/unit/session-early)
 * instead of "0 s left". In process against the sandbox, whose every answer takes 400 ms here, so each
 * stage lasts far longer than the line cadence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { resolveConfig } from '../../src/config/config';
import { createPrinter } from '../../src/shared/output';
import { PublishRun } from '../../src/engine/run';
import { TARGETS } from '../../src/targets';
import type { TestRecord } from '../../src/shared/model';
import { baseEnv, testSandbox, tempDir, zephyrStatuses } from './harness';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox({ faults: { zephyr: { latencyMs: 400 } } });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('end of the run: progress lines', () => {
  it('count results while they go out, then name the attachments left; never "0 s left"', async () => {
    const name = 'progress lines';
    const env = baseEnv({ ...sandbox.env(), ZEPHYR_CYCLE_NAME: name });
    const lines: string[] = [];
    const printer = createPrinter([], false, (text) => lines.push(text.trim()));
    const records: TestRecord[] = [
      { testId: 'a', title: 'a', keys: { zephyr: ['PROJ-1'] }, outcome: 'passed', attempts: 1 },
      {
        testId: 'b',
        title: 'b',
        keys: { zephyr: ['PROJ-2'] },
        outcome: 'failed',
        error: 'Error: expected 1 to be 0',
        attempts: 1,
        evidence: true,
        // Six files: they go up two at a time from when this result is confirmed (its own PUT), and outlast
        // the other result's bulk call and job by at least one round trip.
        attachments: ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'].map((n) => ({
          name: n,
          contentType: 'text/plain',
          body: Buffer.from(n),
        })),
      },
    ];
    const config = { ...resolveConfig({ definitions: TARGETS, options: {}, env }), outboxDir: path.join(tempDir('progress'), 'outbox') };
    const run = new PublishRun(config, { printer, progressEveryMs: 100, quietEndMs: 0 });
    run.start(records);
    const summary = await run.finish(records, 0);

    expect(summary.targets.zephyr).toMatchObject({ published: 2, unsent: 0, errors: [] });
    expect(summary.targets.zephyr!.attachments).toMatchObject({ uploaded: 6 });
    expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-1': 1, 'PROJ-2': 2 });
    const progress = lines.filter((l) => l.includes('publishing:'));
    expect(progress.some((l) => /Zephyr Squad [0-2]\/2 results sent/.test(l))).toBe(true);
    expect(progress.some((l) => /Zephyr Squad 2\/2 results sent, uploading attachments \([1-4] left\)/.test(l))).toBe(true);
    expect(progress.filter((l) => / 0 s left/.test(l))).toEqual([]);
  });

  it('a service done while another still sends says so, not the stage it last was in', async () => {
    const name = 'progress one done';
    const env = baseEnv({ ...sandbox.env(), ZEPHYR_CYCLE_NAME: name, CUCUMBERSTUDIO_TEST_RUN_NAME: name });
    const lines: string[] = [];
    const ZEPHYR_DONE = 'Zephyr Squad 1/1 results sent, done; CucumberStudio';
    const printer = createPrinter([], false, (text) => {
      lines.push(text.trim());
      // Seen once: CucumberStudio need not stay slow for the rest of its calls (it held this test 20 s).
      if (text.includes(ZEPHYR_DONE)) sandbox.setFaults('cucumberstudio', { latencyMs: 0 });
    });
    const records: TestRecord[] = [
      { testId: 'a', title: 'a', keys: { zephyr: ['PROJ-1'], cucumberstudio: ['1'] }, outcome: 'passed', attempts: 1 },
    ];
    const config = { ...resolveConfig({ definitions: TARGETS, options: {}, env }), outboxDir: path.join(tempDir('progress'), 'outbox') };
    // CucumberStudio answers slower than Zephyr (1.5 s a call) until a progress line has said that Zephyr is done
    // while it still sends: it is still at work then, whatever the machine's load.
    sandbox.setFaults('cucumberstudio', { latencyMs: 1_500 });
    try {
      const run = new PublishRun(config, { printer, progressEveryMs: 100, quietEndMs: 0 });
      run.start(records);
      const summary = await run.finish(records, 0);
      expect(summary.targets.zephyr).toMatchObject({ published: 1, errors: [] });
      expect(summary.targets.cucumberstudio).toMatchObject({ published: 1, errors: [] });
    } finally {
      sandbox.setFaults('cucumberstudio', { latencyMs: 0 });
    }
    const progress = lines.filter((l) => l.includes('publishing:'));
    expect(progress.some((l) => l.includes(ZEPHYR_DONE))).toBe(true);
    expect(progress.filter((l) => l.includes('Zephyr Squad 1/1 results sent, reading them back') && l.endsWith('s left'))).toEqual([]);
  });
});
