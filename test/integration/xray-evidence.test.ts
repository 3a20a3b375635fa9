import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { runReplay, testSandbox, xrayOnly } from './harness';
import { runInstances, type Instances } from './shared-run';
import { xrayExecution, xrayState } from './xray-helpers';

/**
 * Xray evidence by the `attachments` policy (default `failed`): the small files of a failed test go inline in the
 * import that carries its status (`evidence`, `contentType`), the full error text as `error.txt` when the comment
 * was cut; a file over the inline budget goes on its run with `addEvidenceToTestRun` (its `mimeType` kept). A file is
 * never on a run twice — after an import or an `addEvidenceToTestRun` answer that came once it was applied
 * (whether Xray keeps or drops a run's files on re-import), nor through an outage and replay (which sends by
 * `addEvidenceToTestRun`, looking first).
 *
 * The four cases are ONE `playwright test` run (its failed tests restart a worker each: a run per case cost that
 * four times), a reporter instance per case, each publishing to a sandbox of its own with the case's fault, so
 * each sandbox's counters are its case's alone.
 */
type Case = 'evidence' | 'keep' | 'drop' | 'outage';
const CASES: Case[] = ['evidence', 'keep', 'drop', 'outage'];
const SUMMARY: Record<Case, string> = {
  evidence: 'xray evidence',
  keep: 'xray evidence import fault keep',
  drop: 'xray evidence import fault drop',
  outage: 'xray evidence outage',
};
const sandboxes = {} as Record<Case, RunningSandbox>;
let run: Instances<Case>;

/** Over the 1 MiB inline budget per file (results.ts INLINE_EVIDENCE): it goes by addEvidenceToTestRun. */
const BIG = 1536 * 1024;
const files = {
  'e.spec.ts': `const { test } = require('@playwright/test');
test('passes with a file', { tag: '@XT-1' }, async ({}, info) => {
  await info.attach('notes', { body: 'not sent: the test passed', contentType: 'text/plain' });
});
test('fails with a file', { tag: '@XT-4' }, async ({}, info) => {
  await info.attach('notes', { body: 'what the test saw', contentType: 'text/plain' });
  await info.attach('dump', { body: Buffer.alloc(${BIG}, 7), contentType: 'application/octet-stream' });
  throw new Error('xt4 broke');
});
test('fails long', { tag: '@XT-5' }, () => { throw new Error('long '.repeat(2000)); });
`,
};

/** What the case's sandbox counted: imports, addEvidenceToTestRun calls. */
function counts(c: Case): { imports: number; evidenceAdded: number } {
  const { imports, evidenceAdded } = xrayState(sandboxes[c]).counters;
  return { imports, evidenceAdded };
}
const since = (c: Case, before: ReturnType<typeof counts>) => {
  const now = counts(c);
  return { imports: now.imports - before.imports, evidenceAdded: now.evidenceAdded - before.evidenceAdded };
};
/** Each case's counts before the run. */
const start = {} as Record<Case, ReturnType<typeof counts>>;

/** testKey -> the names of its run's files, sorted. */
function evidenceOf(c: Case): Record<string, string[]> {
  const e = xrayExecution(sandboxes[c], SUMMARY[c]);
  return Object.fromEntries(e.runs.map((r) => [r.testKey, r.evidence.map((f) => `${f.filename} ${f.mimeType}`).sort()]));
}

/** Playwright adds its own `error-context.md` to a failed test. */
const EXPECTED = {
  'XT-1': [],
  'XT-4': ['dump.bin application/octet-stream', 'error-context.md text/markdown', 'notes.txt text/plain'],
  'XT-5': ['error-context.md text/markdown', 'error.txt text/plain'],
};

beforeAll(async () => {
  for (const c of CASES) sandboxes[c] = await testSandbox();
  for (const c of CASES) start[c] = counts(c);
  sandboxes.evidence.configure('xray', { operationFaults: [{ operation: 'addEvidenceToTestRun', applied: true, status: 500, times: 1 }] });
  for (const c of ['keep', 'drop'] as const)
    sandboxes[c].configure('xray', {
      evidenceOnReimport: c,
      operationFaults: [{ operation: 'import', applied: true, status: 500, times: 1 }],
    });
  sandboxes.outage.setFaults('xray', { down: true });
  try {
    const instance = (c: Case) => ({ xray: { testExecutionSummary: SUMMARY[c], baseUrl: sandboxes[c].env().XRAY_BASE_URL } });
    run = await runInstances(
      { files, env: xrayOnly(sandboxes.evidence.env()) },
      {
        evidence: instance('evidence'),
        keep: instance('keep'),
        drop: instance('drop'),
        outage: { ...instance('outage'), publishTimeout: 3 },
      },
    );
  } finally {
    sandboxes.outage.setFaults('xray', { down: false });
  }
}, 300_000);
afterAll(async () => {
  for (const c of CASES) await sandboxes[c]?.close();
});

it('small files go inline in the import, the large one by addEvidenceToTestRun; each once, even after an answer that came once it was added', () => {
  const xray = run.evidence.summary.targets.xray;
  expect(xray, run.evidence.output).toMatchObject({ published: 3, unsent: 0, errors: [], verify: { ok: true } });
  expect(evidenceOf('evidence')).toEqual(EXPECTED);
  const notes = xrayExecution(sandboxes.evidence, SUMMARY.evidence)
    .runs.find((r) => r.testKey === 'XT-4')!
    .evidence.find((f) => f.filename === 'notes.txt')!;
  expect(notes.size).toBe(Buffer.byteLength('what the test saw'));
  // One import carries the 3 results and the 4 small files; dump.bin alone is added (once: the fault's answer
  // came after it was applied, and the look before repeating found it).
  expect(since('evidence', start.evidence)).toEqual({ imports: 1, evidenceAdded: 1 });
  expect(xray?.attachments).toEqual({ uploaded: 4, present: 1, skipped: [], failed: [] });
  // authenticate, getStatuses, 3 to find-or-create the execution, getTests, the import, getTestRun +
  // addEvidenceToTestRun + getTestRun (the look after the fault), the read-back. By attach alone: 19 (2 per small file).
  expect(xray?.calls).toBe(11);
  expect((sandboxes.evidence.settings().xray as { operationFaults: unknown[] }).operationFaults).toEqual([]);
});

it.each(['keep', 'drop'] as const)(
  'an import carrying files answered 500 after it was applied (a re-import %ss earlier files): every file once',
  (evidenceOnReimport) => {
    const r = run[evidenceOnReimport];
    expect(r.summary.targets.xray, r.output).toMatchObject({ published: 3, unsent: 0, errors: [], verify: { ok: true } });
    expect(evidenceOf(evidenceOnReimport)).toEqual(EXPECTED);
    // The import again without files, then each file by addEvidenceToTestRun after a look: present when kept.
    expect(since(evidenceOnReimport, start[evidenceOnReimport])).toEqual({
      imports: 2,
      evidenceAdded: evidenceOnReimport === 'keep' ? 1 : 5,
    });
  },
);

it('down for the whole run, then replay twice: every file once', async () => {
  const env = xrayOnly(sandboxes.outage.env(), { XRAY_TEST_EXECUTION_SUMMARY: SUMMARY.outage, PW_TMS_PUBLISH_TIMEOUT: '3' });
  expect(run.outage.summary.targets.xray, run.outage.output).toMatchObject({ published: 0, unsent: 3 });
  const before = counts('outage');
  const first = await runReplay(run.outage.outboxDir, env);
  expect(first.exitCode, first.output).toBe(0);
  expect(evidenceOf('outage')).toEqual(EXPECTED);
  // A replay sends no file inline (an earlier process may have sent some): each by addEvidenceToTestRun, after a look.
  expect(since('outage', before)).toEqual({ imports: 1, evidenceAdded: 5 });
  const second = await runReplay(run.outage.outboxDir, env);
  expect(second.exitCode, second.output).toBe(0);
  expect(evidenceOf('outage')).toEqual(EXPECTED);
  expect(since('outage', before)).toEqual({ imports: 1, evidenceAdded: 5 });
});
