import { createHash } from 'node:crypto';
import type { RunningSandbox } from '../../src/sandbox';
import { csRun, zephyrCycles } from './harness';

/** What the evidence tests share: a suite with files and steps, and readers of what the sandbox holds. */

/** 64 bytes 0..255 repeated: not valid UTF-8, so a client that sends text would change them. */
export const PNG = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
export const NOTES = 'notes of the failing test\n';
export const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export const SUITE = {
  'evidence.spec.ts': `
const { test, expect } = require('@playwright/test');
const fs = require('node:fs');

test('checkout fails at payment @cs-3 @PROJ-3', async ({}, testInfo) => {
  await testInfo.attach('shot', { body: Buffer.from(${JSON.stringify([...PNG])}), contentType: 'image/png' });
  const notes = testInfo.outputPath('notes.txt');
  fs.writeFileSync(notes, ${JSON.stringify(NOTES)});
  await testInfo.attach('notes', { path: notes, contentType: 'text/plain' });
  await test.step('open cart', async () => {});
  await test.step('pay', async () => { expect('declined').toBe('accepted'); });
  await test.step('see receipt', async () => {});
});

test('catalogue works @cs-4 @PROJ-4', async ({}, testInfo) => {
  await testInfo.attach('passed-note', { body: 'not uploaded under the failed policy', contentType: 'text/plain' });
  await test.step('list', async () => {});
  await test.step('filter', async () => {});
  await test.step('open item', async () => {});
});
`,
};

export interface ZEvidence {
  issueKey: string;
  statusId: number;
  comment: string;
  stepResults: Array<{ orderId: number; statusId: number; changes: number }>;
  attachments: Array<{ id: string; fileName: string; size: number; sha256: string }>;
}

/** Readers of the sandbox a test file started (`sandbox()` is read when called, after its beforeAll). */
export function evidenceReaders(sandbox: () => RunningSandbox) {
  function resultOf(name: string, scenarioId: number) {
    const run = csRun(sandbox(), name);
    const snap = run.snapshots.find((s) => s.scenarioId === scenarioId)!;
    return snap.results[snap.results.length - 1] as unknown as {
      status: string;
      description: string;
      stepStatuses: string[];
      stepStatusesSent?: unknown;
      attachments: Array<{ fileName: string; size: number; sha256: string }>;
    };
  }
  function executionOf(cycleName: string, key: string): ZEvidence {
    const cycle = zephyrCycles(sandbox()).find((c) => c.name === cycleName)!;
    return (cycle.executions as unknown as ZEvidence[]).find((e) => e.issueKey === key)!;
  }
  const zephyrBytes = (id: string) =>
    (sandbox().modules.find((m) => m.name === 'zephyr') as unknown as { attachmentBytes(id: string): Buffer }).attachmentBytes(id);
  const envFor = (name: string, extra: Record<string, string> = {}) => ({
    ...sandbox().env(),
    CUCUMBERSTUDIO_TEST_RUN_NAME: name,
    ZEPHYR_CYCLE_NAME: name,
    ...extra,
  });
  const uploadsTo = (runId: number) =>
    sandbox()
      .log()
      .filter(
        (e) =>
          e.service === 'cucumberstudio' &&
          e.method === 'POST' &&
          e.target.includes(`/test_runs/${runId}/`) &&
          e.target.endsWith('/attachments'),
      );
  return { resultOf, executionOf, zephyrBytes, envFor, uploadsTo };
}
