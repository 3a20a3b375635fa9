/**
 * The progress line of a service that answers nothing (issue 30 item 2: "the progress line gives no cause"):
 * while its requests get no answer the line says for how long and why, and once it is given up, that it is
 * and that the rest stays in the outbox. In process, against a relay that accepts and never answers, with a
 * short request timeout and a fast line cadence.
 */
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { PublishRun } from '../../src/engine/run';
import type { TestRecord } from '../../src/shared/model';
import { createPrinter } from '../../src/shared/output';
import type { RunningSandbox } from '../../src/sandbox';
import { TARGETS } from '../../src/targets';
import { baseEnv, tempDir, testSandbox } from './harness';
import { switchableProxy, type SwitchableProxy } from './switchable-proxy';

let sandbox: RunningSandbox;
let proxy: SwitchableProxy;
beforeAll(async () => {
  sandbox = await testSandbox();
  proxy = await switchableProxy(sandbox.origin);
});
afterAll(async () => {
  await proxy?.close();
  await sandbox?.close();
});

describe('end of the run: a service that answers nothing', () => {
  it('the progress line names the silence and its cause, then that the service is given up', async () => {
    await proxy.switchTo('hang');
    const env = baseEnv({
      ...Object.fromEntries(Object.entries(sandbox.env()).filter(([k]) => k.startsWith('ZEPHYR_'))),
      ZEPHYR_BASE_URL: sandbox.env().ZEPHYR_BASE_URL.replace(sandbox.origin, proxy.origin),
      ZEPHYR_CYCLE_NAME: 'progress of a silent service',
    });
    const lines: string[] = [];
    const printer = createPrinter([], false, (text) => lines.push(text.trim()));
    const records: TestRecord[] = [
      { testId: 'a', title: 'a', keys: { zephyr: ['PROJ-1'] }, outcome: 'passed', attempts: 1 },
      { testId: 'b', title: 'b', keys: { zephyr: ['PROJ-2'] }, outcome: 'passed', attempts: 1 },
    ];
    const config = {
      ...resolveConfig({ definitions: TARGETS, options: {}, env }),
      outboxDir: path.join(tempDir('silent'), 'outbox'),
      requestTimeoutMs: 300,
    };
    const run = new PublishRun(config, { printer, progressEveryMs: 100, quietEndMs: 0 });
    run.start(records);
    const summary = await run.finish(records, 0);

    const cause = `no answer within the request timeout at ${proxy.host}`;
    expect(summary.targets.zephyr).toMatchObject({ published: 0, unsent: 2 });
    expect(summary.targets.zephyr!.errors[0]).toContain(`Zephyr unreachable: ${cause}`);
    const progress = lines.filter((l) => l.includes('publishing:'));
    expect(progress.some((l) => new RegExp(`Zephyr Squad 0/2 results sent, no answer for [\\d.]+ s: ${cause}`).test(l))).toBe(true);
  });
});
