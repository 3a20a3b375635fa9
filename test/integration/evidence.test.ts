import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { allFileText, csRun, MODES, outboxFiles, runPlaywright, runReplay, testSandbox, zephyrCycles } from './harness';

/**
 * Evidence with every result: files, step statuses. Real `playwright test` runs (live and through blob ->
 * merge-reports) against the sandbox; assertions on what the sandbox holds.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** 64 bytes 0..255 repeated: not valid UTF-8, so a client that sends text would change them. */
const PNG = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const NOTES = 'notes of the failing test\n';
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const SUITE = {
  'evidence.spec.ts': `
import { test, expect } from '@playwright/test';
import * as fs from 'node:fs';

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

function resultOf(name: string, scenarioId: number) {
  const run = csRun(sandbox, name);
  const snap = run.snapshots.find((s) => s.scenarioId === scenarioId)!;
  return snap.results[snap.results.length - 1] as unknown as {
    status: string;
    description: string;
    stepStatuses: string[];
    stepStatusesSent?: unknown;
    attachments: Array<{ fileName: string; size: number; sha256: string }>;
  };
}

interface ZEvidence {
  issueKey: string;
  statusId: number;
  comment: string;
  stepResults: Array<{ orderId: number; statusId: number; changes: number }>;
  attachments: Array<{ id: string; fileName: string; size: number; sha256: string }>;
}
function executionOf(cycleName: string, key: string): ZEvidence {
  const cycle = zephyrCycles(sandbox).find((c) => c.name === cycleName)!;
  return (cycle.executions as unknown as ZEvidence[]).find((e) => e.issueKey === key)!;
}
const zephyrBytes = (id: string) =>
  (sandbox.modules.find((m) => m.name === 'zephyr') as unknown as { attachmentBytes(id: string): Buffer }).attachmentBytes(id);
const envFor = (name: string, extra: Record<string, string> = {}) => ({
  ...sandbox.env(),
  CUCUMBERSTUDIO_TEST_RUN_NAME: name,
  ZEPHYR_CYCLE_NAME: name,
  ...extra,
});

const uploadsTo = (runId: number) =>
  sandbox
    .log()
    .filter(
      (e) =>
        e.service === 'cucumberstudio' &&
        e.method === 'POST' &&
        e.target.includes(`/test_runs/${runId}/`) &&
        e.target.endsWith('/attachments'),
    );

describe.each(MODES)('evidence (%s)', (mode) => {
  it('Zephyr: the failed execution gets both files and per-step results; the passed one PASS steps and no file', async () => {
    const name = `evidence z ${mode}`;
    const run = await runPlaywright({ files: SUITE, env: envFor(name, { ZEPHYR_STEP_RESULTS: 'detailed' }), mode });
    expect(run.summary?.targets.zephyr).toMatchObject({ published: 2, unsent: 0, errors: [] });
    const failed = executionOf(name, 'PROJ-3');
    expect(failed.statusId).toBe(2);
    const files = Object.fromEntries(failed.attachments.map((a) => [a.fileName, a]));
    const tally = JSON.stringify(run.summary?.targets.zephyr?.attachments);
    // Ours, plus the error context Playwright attaches to every failed test.
    expect(Object.keys(files).sort(), tally).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(zephyrBytes(files['shot.png'].id).equals(PNG)).toBe(true);
    expect(files['notes.txt'].sha256).toBe(sha(NOTES));
    // Steps before the failure PASS, the failing one FAIL, the one never reached untouched.
    expect(failed.stepResults.map((r) => r.statusId)).toEqual([1, 2, -1]);
    const passed = executionOf(name, 'PROJ-4');
    expect(passed.statusId).toBe(1);
    expect(passed.stepResults.map((r) => r.statusId)).toEqual([1, 1, 1]);
    expect(passed.attachments).toEqual([]);
    expect(run.output).toMatch(/Zephyr Squad: .*3 attachments uploaded/);
    const env = sandbox.env();
    const text = run.output + allFileText(run.dir);
    for (const secret of [env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY, env.CUCUMBERSTUDIO_ACCESS_TOKEN])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/JWT eyJ/);
  });

  it("`trace: 'on-first-retry'` with retries 2: the trace of the first retry goes up with the last attempt's files", async () => {
    const name = `evidence trace ${mode}`;
    const files = {
      'trace.spec.ts': `import { test, expect } from '@playwright/test';
test('always fails @PROJ-5', async () => { await test.step('check', async () => { expect(1).toBe(2); }); });`,
    };
    const run = await runPlaywright({ files, env: envFor(name), mode, retries: 2, use: { trace: 'on-first-retry' } });
    expect(run.summary?.targets.zephyr).toMatchObject({ published: 1, unsent: 0, errors: [] });
    const names = executionOf(name, 'PROJ-5').attachments.map((a) => a.fileName);
    expect(names.sort(), JSON.stringify(run.summary?.targets.zephyr?.attachments)).toEqual(['error-context.md', 'trace.zip']);
  });

  it('CucumberStudio: a failed test sends its steps and both files; a passed test its steps and no file', async () => {
    const name = `evidence cs ${mode}`;
    const run = await runPlaywright({ files: SUITE, env: envFor(name), mode });
    expect(run.summary?.targets.cucumberstudio, run.output.slice(-3000)).toMatchObject({ published: 2, unsent: 0, errors: [] });
    const failed = resultOf(name, 3);
    expect(failed.status).toBe('failed');
    expect(failed.stepStatusesSent).toEqual(['passed', 'failed', 'skipped']);
    expect(failed.stepStatuses).toEqual(['passed', 'failed', 'skipped']);
    const files = Object.fromEntries(failed.attachments.map((a) => [a.fileName, a]));
    const tally = JSON.stringify(run.summary?.targets.cucumberstudio?.attachments);
    expect(Object.keys(files).sort(), tally).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(files['shot.png'].sha256).toBe(sha(PNG));
    expect(files['notes.txt'].sha256).toBe(sha(NOTES));
    const passed = resultOf(name, 4);
    expect(passed.stepStatusesSent).toEqual(['passed', 'passed', 'passed']);
    expect(passed.attachments).toEqual([]);
    expect(run.summary?.targets.cucumberstudio?.attachments).toMatchObject({ uploaded: 3, skipped: [], failed: [] });
    expect(run.output).toMatch(/CucumberStudio: .*3 attachments uploaded/);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('steps as the attempt ended: a timeout fails the step it cut off only, a skip or an expected failure fails none', async () => {
    const name = `evidence step endings ${mode}`;
    await runPlaywright({
      files: {
        'steps.spec.ts': `import { test } from '@playwright/test';
test('times out after its steps @cs-6', async () => {
  test.setTimeout(1000);
  await test.step('s1', async () => {});
  await test.step('s2', async () => {});
  await new Promise((r) => setTimeout(r, 5000));
});
test('hangs in its second step @cs-8', async () => {
  test.setTimeout(1000);
  await test.step('s1', async () => {});
  await test.step('s2', () => new Promise(() => {}));
});
test('skips itself inside a step @cs-9', async () => {
  await test.step('s1', async () => {});
  await test.step('s2', async () => test.skip(true, 'not here'));
});
test('fails as it expects @cs-10', async () => {
  test.fail();
  await test.step('s1', async () => {});
  await test.step('s2', async () => { throw new Error('known bug'); });
});`,
      },
      env: envFor(name),
      mode,
    });
    const steps = (id: number) => [resultOf(name, id).status, resultOf(name, id).stepStatuses];
    expect(steps(6)).toEqual(['failed', ['passed', 'passed', 'skipped']]);
    expect(steps(8)).toEqual(['failed', ['passed', 'failed', 'skipped']]);
    expect(steps(9)).toEqual(['skipped', ['passed', 'skipped', 'skipped']]);
    expect(steps(10)).toEqual(['passed', ['passed', 'passed', 'skipped']]);
  });
});

describe('evidence: policies, limits, replay (live)', () => {
  it('attachments: none makes no upload call; the steps still go', async () => {
    const name = 'evidence cs none';
    await runPlaywright({ files: SUITE, env: envFor(name, { PW_TMS_ATTACHMENTS: 'none' }) });
    const runId = csRun(sandbox, name).id;
    expect(uploadsTo(runId)).toEqual([]);
    const cycleId = zephyrCycles(sandbox).find((c) => c.name === name)!.id;
    expect(sandbox.log().filter((e) => e.service === 'zephyr' && e.target.includes('/attachment') && e.target.includes(cycleId))).toEqual(
      [],
    );
    expect(executionOf(name, 'PROJ-3').attachments).toEqual([]);
    expect(resultOf(name, 3).stepStatusesSent).toEqual(['passed', 'failed', 'skipped']);
    // stepResults `passed` (the default): the passed test's steps PASS in the bulk call, the failed test's untouched.
    expect(executionOf(name, 'PROJ-4').stepResults.map((r) => r.statusId)).toEqual([1, 1, 1]);
    expect(executionOf(name, 'PROJ-3').stepResults.map((r) => r.statusId)).toEqual([-1, -1, -1]);
  });

  it('every error of a test is in its comment and description: soft expects, the error thrown and its cause', async () => {
    const name = 'evidence errors';
    await runPlaywright({
      files: {
        'errors.spec.ts': `import { test, expect } from '@playwright/test';
test('several errors', { tag: ['@PROJ-31', '@cs-31'] }, () => {
  expect.soft(1, 'first soft').toBe(2);
  expect.soft('a', 'second soft').toBe('b');
  throw new Error('request failed', { cause: new Error('ECONNRESET from the stub') });
});`,
      },
      env: envFor(name),
    });
    const comment = executionOf(name, 'PROJ-31').comment;
    expect(comment).toContain('first soft');
    expect(comment).toContain('--- error 2 of 3 ---');
    expect(comment).toContain('second soft');
    expect(comment).toMatch(/--- error 3 of 3 ---\nError: request failed\n\[cause\]: Error: ECONNRESET from the stub/);
    expect(resultOf(name, 31).description).toContain('[cause]: Error: ECONNRESET from the stub');
  });

  it('CucumberStudio: every write applied but answered 500: each file is attached once and each result posted once', async () => {
    const name = 'evidence ambiguous';
    // (Zephyr cannot publish at all under this: its job tokens would never arrive. Its upload's look-before-retry is unit-tested.)
    sandbox.setFaults('cucumberstudio', { appliedFaultRate: 1 });
    let run;
    try {
      run = await runPlaywright({ files: SUITE, env: { ...envFor(name), ZEPHYR_ACCESS_KEY: undefined, ZEPHYR_SECRET_KEY: undefined } });
    } finally {
      sandbox.setFaults('cucumberstudio', { appliedFaultRate: 0 });
    }
    const ALL = ['error-context.md', 'notes.txt', 'shot.png'];
    expect(
      resultOf(name, 3)
        .attachments.map((a) => a.fileName)
        .sort(),
      JSON.stringify(run.summary?.targets.cucumberstudio) + run.output.slice(-2000),
    ).toEqual(ALL);
    for (const id of [3, 4]) expect(csRun(sandbox, name).snapshots.find((s) => s.scenarioId === id)!.results).toHaveLength(1);
    expect(run.summary?.targets.cucumberstudio).toMatchObject({ unsent: 0 });
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('a file over attachmentMaxBytes is skipped and named; the others go', async () => {
    const name = 'evidence cs oversize';
    const run = await runPlaywright({
      files: SUITE,
      env: envFor(name, { PW_TMS_ATTACHMENT_MAX_BYTES: '100' }),
    });
    // notes.txt is 26 bytes; shot.png 256 and Playwright's error context a few kB are over the limit.
    expect(resultOf(name, 3).attachments.map((a) => a.fileName)).toEqual(['notes.txt']);
    expect(run.summary?.targets.cucumberstudio?.attachments?.skipped).toContain('shot.png (256 bytes, over attachmentMaxBytes 100)');
    expect(run.summary?.targets.zephyr?.attachments?.skipped).toContain('shot.png (256 bytes, over attachmentMaxBytes 100)');
    expect(executionOf(name, 'PROJ-3').attachments.map((a) => a.fileName)).toEqual(['notes.txt']);
    expect(run.output).toMatch(/CucumberStudio: .*skipped: .*shot\.png \(256 bytes/);
    expect(run.output).toMatch(/Zephyr Squad: .*skipped: .*shot\.png \(256 bytes/);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('a folder given as a path is skipped and named, not kept for replay; a name with a dot in it keeps its type', async () => {
    const name = 'evidence odd files';
    const run = await runPlaywright({
      files: {
        'odd.spec.ts': `import { test } from '@playwright/test';
test('odd files @cs-5 @PROJ-5', async ({}, testInfo) => {
  testInfo.attachments.push({ name: 'output folder', path: testInfo.outputDir, contentType: 'text/plain' });
  await testInfo.attach('my report.final v2', { body: 'all done', contentType: 'text/plain' });
  throw new Error('broke');
});`,
      },
      env: envFor(name),
    });
    expect(resultOf(name, 5).attachments.map((a) => a.fileName)).toContain('my_report.final_v2.txt');
    expect(executionOf(name, 'PROJ-5').attachments.map((a) => a.fileName)).toContain('my_report.final_v2.txt');
    for (const target of ['zephyr', 'cucumberstudio'] as const) {
      const files = run.summary?.targets[target]?.attachments;
      expect(files?.skipped).toEqual([expect.stringMatching(/^output_folder\.txt \(not a file: .+\)$/)]);
      expect(files?.failed).toEqual([]);
      expect(run.summary?.targets[target]).toMatchObject({ unsent: 0, errors: [] });
    }
    expect(outboxFiles(run.outboxDir)).toEqual([]);
  });

  it('uploads refused during the run stay in the outbox; replay attaches each file exactly once', async () => {
    const name = 'evidence cs replay';
    const outage = {
      method: 'POST',
      pathIncludes: '/attachment',
      status: 503,
      body: 'Service Unavailable',
      headers: { 'content-type': 'text/plain' },
    };
    sandbox.setFaults('cucumberstudio', { overrides: [outage] });
    sandbox.setFaults('zephyr', { overrides: [outage] });
    let run;
    try {
      run = await runPlaywright({ files: SUITE, env: envFor(name, { PW_TMS_PUBLISH_TIMEOUT: '20' }) });
    } finally {
      sandbox.setFaults('cucumberstudio', { overrides: [] });
      sandbox.setFaults('zephyr', { overrides: [] });
    }
    expect(run.exitCode).toBe(1); // the test itself fails; publishing problems never fail the run
    expect(resultOf(name, 3).attachments).toEqual([]);
    expect(run.summary?.targets.cucumberstudio?.attachments?.failed).toHaveLength(3);
    expect(run.summary?.targets.zephyr?.attachments?.failed).toHaveLength(3);
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    expect(executionOf(name, 'PROJ-3').attachments).toEqual([]);
    const replay = await runReplay(run.outboxDir, sandbox.env());
    expect(replay.exitCode, replay.output).toBe(0);
    expect(
      resultOf(name, 3)
        .attachments.map((a) => a.fileName)
        .sort(),
    ).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(
      executionOf(name, 'PROJ-3')
        .attachments.map((a) => a.fileName)
        .sort(),
    ).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(outboxFiles(run.outboxDir)).toEqual([]);
    // A second replay has nothing to send.
    const again = await runReplay(run.outboxDir, sandbox.env());
    expect(again.exitCode).toBe(0);
    expect(resultOf(name, 3).attachments).toHaveLength(3);
    expect(executionOf(name, 'PROJ-3').attachments).toHaveLength(3);
    // Results were posted once each (the replay only attached the files).
    const run3 = csRun(sandbox, name).snapshots.find((s) => s.scenarioId === 3)!;
    expect(run3.results).toHaveLength(1);
  });
});

describe('CI metadata and links (live)', () => {
  it('a cycle / run this reporter creates carries the CI build, environment and run link; the summary links to them', async () => {
    const name = 'evidence ci';
    const ci = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_RUN_ID: '987654',
      GITHUB_RUN_NUMBER: '42',
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
      ZEPHYR_JIRA_URL: 'https://acme.atlassian.net',
      PW_TMS_ENVIRONMENT: 'staging',
    };
    const run = await runPlaywright({ files: SUITE, env: envFor(name, ci) });
    const cycle = zephyrCycles(sandbox).find((c) => c.name === name) as unknown as {
      id: string;
      build: string;
      environment: string;
      description: string;
    };
    expect(cycle.build).toBe('42');
    expect(cycle.environment).toBe('staging');
    expect(cycle.description).toContain('https://github.com/acme/shop/actions/runs/987654');
    expect(cycle.description).toContain('main');
    expect(csRun(sandbox, name).description).toContain('https://github.com/acme/shop/actions/runs/987654');
    expect(run.summary?.targets.zephyr?.link).toMatch(/^https:\/\/acme\.atlassian\.net\/projects\/PROJ\?.*cycleId=/);
    expect(run.summary?.targets.zephyr?.link).toContain(cycle.id);
    expect(run.output).toContain(run.summary!.targets.zephyr!.link!);
    expect(run.summary?.targets.cucumberstudio?.link).toBe(`${sandbox.origin}/projects/1/test-runs/${csRun(sandbox, name).id}`);
    // A second run reuses both and leaves them as they are.
    await runPlaywright({ files: SUITE, env: envFor(name, { ...ci, GITHUB_RUN_ID: '111', GITHUB_RUN_NUMBER: '43' }) });
    const again = zephyrCycles(sandbox).find((c) => c.name === name) as unknown as { build: string; description: string };
    expect(again.build).toBe('42');
    expect(csRun(sandbox, name).description).toContain('987654');
  });
});

describe('projects (live)', () => {
  it('a created cycle names as its environment only the projects that ran (--project)', async () => {
    const name = 'evidence projects';
    await runPlaywright({
      files: { 'p.spec.ts': `import { test } from '@playwright/test';\ntest('p', { tag: '@PROJ-95' }, () => {});` },
      projects: ['alpha', 'beta'],
      args: ['--project=alpha'],
      env: { ...sandbox.env(), ZEPHYR_CYCLE_NAME: name },
    });
    const cycle = zephyrCycles(sandbox).find((c) => c.name === name) as unknown as { environment: string };
    expect(cycle.environment).toBe('alpha');
  });
});

describe('evidence kept for replay (live)', () => {
  it('files attached by path are copied beside a kept journal: replayed from another folder after test-results is gone, each goes up once', async () => {
    const name = 'evidence moved';
    const zephyrOnly = Object.fromEntries(Object.entries(envFor(name)).filter(([k]) => !k.startsWith('CUCUMBERSTUDIO_')));
    sandbox.setFaults('zephyr', { down: true });
    let run;
    try {
      run = await runPlaywright({ files: SUITE, env: { ...zephyrOnly, PW_TMS_PUBLISH_TIMEOUT: '3' } });
    } finally {
      sandbox.setFaults('zephyr', { down: false });
    }
    expect(outboxFiles(run.outboxDir)).toHaveLength(1);
    // The next run empties test-results; the outbox travels as a CI artifact to another folder.
    fs.rmSync(path.join(run.dir, 'test-results'), { recursive: true, force: true });
    const moved = path.join(run.dir, 'artifact', 'outbox');
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.renameSync(run.outboxDir, moved);
    const replayed = await runReplay(moved, zephyrOnly);
    expect(replayed.exitCode, replayed.output).toBe(0);
    expect(replayed.output).not.toContain('gone');
    const files = Object.fromEntries(executionOf(name, 'PROJ-3').attachments.map((a) => [a.fileName, a]));
    expect(Object.keys(files).sort()).toEqual(['error-context.md', 'notes.txt', 'shot.png']);
    expect(files['notes.txt'].sha256).toBe(sha(NOTES));
    expect(files['shot.png'].sha256).toBe(sha(PNG));
  });
});
