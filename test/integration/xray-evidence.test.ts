import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, runReplay, testSandbox, xrayOnly } from './harness';
import { xrayExecution } from './xray-helpers';

/**
 * Xray evidence by the `attachments` policy (default `failed`): each file of a failed test goes on its run with
 * `addEvidenceToTestRun` (its `mimeType` kept), the full error text as `error.txt` when the comment was cut; a file
 * is never on a run twice — after an answer that came once the file was added, nor through an outage and replay.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const files = {
  'e.spec.ts': `import { test } from '@playwright/test';
test('fails with a file', { tag: '@XT-4' }, async ({}, info) => {
  await info.attach('notes', { body: 'what the test saw', contentType: 'text/plain' });
  throw new Error('xt4 broke');
});
test('fails long', { tag: '@XT-5' }, () => { throw new Error('long '.repeat(2000)); });
test('passes with a file', { tag: '@XT-1' }, async ({}, info) => {
  await info.attach('notes', { body: 'not sent: the test passed', contentType: 'text/plain' });
});`,
};

/** testKey -> the names of its run's files, sorted. */
function evidenceOf(summary: string): Record<string, string[]> {
  const e = xrayExecution(sandbox, summary);
  return Object.fromEntries(e.runs.map((r) => [r.testKey, r.evidence.map((f) => `${f.filename} ${f.mimeType}`).sort()]));
}

/** Playwright adds its own `error-context.md` to a failed test. */
const EXPECTED = {
  'XT-1': [],
  'XT-4': ['error-context.md text/markdown', 'notes.txt text/plain'],
  'XT-5': ['error-context.md text/markdown', 'error.txt text/plain'],
};

it('the files of failed tests go on their runs, each once, even after an answer that came once the file was added', async () => {
  const summary = 'xray evidence';
  sandbox.configure('xray', { operationFaults: [{ operation: 'addEvidenceToTestRun', applied: true, status: 500, times: 1 }] });
  let run;
  try {
    run = await runPlaywright({ files, env: xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary }) });
  } finally {
    sandbox.configure('xray', { operationFaults: [] });
  }
  expect(run.summary!.targets.xray, run.output).toMatchObject({ published: 3, unsent: 0, errors: [], verify: { ok: true } });
  expect(evidenceOf(summary)).toEqual(EXPECTED);
  const notes = xrayExecution(sandbox, summary).runs.find((r) => r.testKey === 'XT-4')!.evidence[0];
  expect(notes.size).toBe(Buffer.byteLength('what the test saw'));
});

it('down for the whole run, then replay twice: every file once', async () => {
  const summary = 'xray evidence outage';
  const env = xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary, PW_TMS_PUBLISH_TIMEOUT: '3' });
  sandbox.setFaults('xray', { down: true });
  let run;
  try {
    run = await runPlaywright({ files, env });
  } finally {
    sandbox.setFaults('xray', { down: false });
  }
  expect(run.summary!.targets.xray).toMatchObject({ published: 0, unsent: 3 });
  const first = await runReplay(run.outboxDir, env);
  expect(first.exitCode, first.output).toBe(0);
  expect(evidenceOf(summary)).toEqual(EXPECTED);
  const second = await runReplay(run.outboxDir, env);
  expect(second.exitCode, second.output).toBe(0);
  expect(evidenceOf(summary)).toEqual(EXPECTED);
});
