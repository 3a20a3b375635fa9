import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runPlaywright, runReplay, testSandbox, xrayOnly } from './harness';
import { xrayExecution, xrayState } from './xray-helpers';

/**
 * Xray evidence by the `attachments` policy (default `failed`): the small files of a failed test go inline in the
 * import that carries its status (`evidence`, `contentType`), the full error text as `error.txt` when the comment
 * was cut; a file over the inline budget goes on its run with `addEvidenceToTestRun` (its `mimeType` kept). A file is
 * never on a run twice — after an import or an `addEvidenceToTestRun` answer that came once it was applied
 * (whether Xray keeps or drops a run's files on re-import), nor through an outage and replay (which sends by
 * `addEvidenceToTestRun`, looking first).
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Over the 1 MiB inline budget per file (results.ts INLINE_EVIDENCE): it goes by addEvidenceToTestRun. */
const BIG = 1536 * 1024;
const files = {
  'e.spec.ts': `import { test } from '@playwright/test';
test('fails with a file', { tag: '@XT-4' }, async ({}, info) => {
  await info.attach('notes', { body: 'what the test saw', contentType: 'text/plain' });
  await info.attach('dump', { body: Buffer.alloc(${BIG}, 7), contentType: 'application/octet-stream' });
  throw new Error('xt4 broke');
});
test('fails long', { tag: '@XT-5' }, () => { throw new Error('long '.repeat(2000)); });
test('passes with a file', { tag: '@XT-1' }, async ({}, info) => {
  await info.attach('notes', { body: 'not sent: the test passed', contentType: 'text/plain' });
});`,
};

/** What the sandbox counted: imports, addEvidenceToTestRun calls. */
function counts(): { imports: number; evidenceAdded: number } {
  const { imports, evidenceAdded } = xrayState(sandbox).counters;
  return { imports, evidenceAdded };
}
const since = (before: ReturnType<typeof counts>) => {
  const now = counts();
  return { imports: now.imports - before.imports, evidenceAdded: now.evidenceAdded - before.evidenceAdded };
};

/** testKey -> the names of its run's files, sorted. */
function evidenceOf(summary: string): Record<string, string[]> {
  const e = xrayExecution(sandbox, summary);
  return Object.fromEntries(e.runs.map((r) => [r.testKey, r.evidence.map((f) => `${f.filename} ${f.mimeType}`).sort()]));
}

/** Playwright adds its own `error-context.md` to a failed test. */
const EXPECTED = {
  'XT-1': [],
  'XT-4': ['dump.bin application/octet-stream', 'error-context.md text/markdown', 'notes.txt text/plain'],
  'XT-5': ['error-context.md text/markdown', 'error.txt text/plain'],
};

it('small files go inline in the import, the large one by addEvidenceToTestRun; each once, even after an answer that came once it was added', async () => {
  const summary = 'xray evidence';
  const before = counts();
  sandbox.configure('xray', { operationFaults: [{ operation: 'addEvidenceToTestRun', applied: true, status: 500, times: 1 }] });
  let run;
  try {
    run = await runPlaywright({ files, env: xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary }) });
  } finally {
    sandbox.configure('xray', { operationFaults: [] });
  }
  const xray = run.summary!.targets.xray;
  expect(xray, run.output).toMatchObject({ published: 3, unsent: 0, errors: [], verify: { ok: true } });
  expect(evidenceOf(summary)).toEqual(EXPECTED);
  const notes = xrayExecution(sandbox, summary)
    .runs.find((r) => r.testKey === 'XT-4')!
    .evidence.find((f) => f.filename === 'notes.txt')!;
  expect(notes.size).toBe(Buffer.byteLength('what the test saw'));
  // One import carries the 3 results and the 4 small files; dump.bin alone is added (once: the fault's answer
  // came after it was applied, and the look before repeating found it).
  expect(since(before)).toEqual({ imports: 1, evidenceAdded: 1 });
  expect(xray?.attachments).toEqual({ uploaded: 4, present: 1, skipped: [], failed: [] });
  // authenticate, getStatuses, 3 to find-or-create the execution, getTests, the import, getTestRun +
  // addEvidenceToTestRun + getTestRun (the look after the fault), the read-back. By attach alone: 19 (2 per small file).
  expect(xray?.calls).toBe(11);
});

it.each(['keep', 'drop'] as const)(
  'an import carrying files answered 500 after it was applied (a re-import %ss earlier files): every file once',
  async (evidenceOnReimport) => {
    const summary = `xray evidence import fault ${evidenceOnReimport}`;
    const before = counts();
    sandbox.configure('xray', { evidenceOnReimport, operationFaults: [{ operation: 'import', applied: true, status: 500, times: 1 }] });
    let run;
    try {
      run = await runPlaywright({ files, env: xrayOnly(sandbox.env(), { XRAY_TEST_EXECUTION_SUMMARY: summary }) });
    } finally {
      sandbox.configure('xray', { evidenceOnReimport: 'keep', operationFaults: [] });
    }
    expect(run.summary!.targets.xray, run.output).toMatchObject({ published: 3, unsent: 0, errors: [], verify: { ok: true } });
    expect(evidenceOf(summary)).toEqual(EXPECTED);
    // The import again without files, then each file by addEvidenceToTestRun after a look: present when kept.
    expect(since(before)).toEqual({ imports: 2, evidenceAdded: evidenceOnReimport === 'keep' ? 1 : 5 });
  },
);

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
  const before = counts();
  const first = await runReplay(run.outboxDir, env);
  expect(first.exitCode, first.output).toBe(0);
  expect(evidenceOf(summary)).toEqual(EXPECTED);
  // A replay sends no file inline (an earlier process may have sent some): each by addEvidenceToTestRun, after a look.
  expect(since(before)).toEqual({ imports: 1, evidenceAdded: 5 });
  const second = await runReplay(run.outboxDir, env);
  expect(second.exitCode, second.output).toBe(0);
  expect(evidenceOf(summary)).toEqual(EXPECTED);
  expect(since(before)).toEqual({ imports: 1, evidenceAdded: 5 });
});
