import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { evidenceReaders } from './evidence-helpers';
import { runPlaywright, testSandbox } from './harness';

/**
 * What a result says beside its status, seen through real `playwright test` runs against the sandbox
 * (issue 31): steps past the service test's last one, which test a file came from, a comment whose error
 * comes before a huge title, with paths relative to the project.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});
const { resultOf, executionOf, envFor } = evidenceReaders(() => sandbox);

/** Longer than the whole 750-character Zephyr comment. */
const HUGE = `checkout ${'with a very long generated title '.repeat(40)}`.trim();

const FILES = {
  'tests/output.spec.ts': `
const { test, expect } = require('@playwright/test');

test('passes first @PROJ-21', async () => {});

test(${JSON.stringify(`${HUGE} @PROJ-21 @cs-21`)}, async ({}, testInfo) => {
  await testInfo.attach('shot', { body: Buffer.from('the failing test\\'s file'), contentType: 'text/plain' });
  await test.step('one', async () => {});
  await test.step('two', async () => {});
  await test.step('three', async () => {});
  await test.step('four', async () => { expect('declined').toBe('accepted'); });
});

// Four tests on one key, two failing: a comment that fits whole, though each title is longer than a quarter's share.
for (const n of ['one', 'two']) {
  test(\`\${n} passes on the shared key @PROJ-22\`, async () => {});
  test(\`\${n} fails on the shared key, its title whole in the comment @PROJ-22\`, async () => {
    await test.step('check', async () => { expect(1).toBe(2); });
  });
}
`,
};

describe('what a result says beside its status (real run)', () => {
  it('four steps on a three-step test FAIL the last; the file names its test; the error leads the comment, paths relative', async () => {
    const name = 'output of a result';
    const run = await runPlaywright({ files: FILES, env: envFor(name, { ZEPHYR_STEP_RESULTS: 'detailed' }), workers: 1 });
    expect(run.summary?.targets.zephyr, run.output.slice(-3000)).toMatchObject({ published: 2, unsent: 0, errors: [] });
    expect(run.summary?.targets.cucumberstudio, run.output.slice(-3000)).toMatchObject({ published: 1, unsent: 0, errors: [] });
    const e = executionOf(name, 'PROJ-21');
    expect(e.statusId).toBe(2);
    // Item 2: the failure in Playwright's fourth step is not three PASS steps, in either service; said once each.
    expect(e.stepResults.map((r) => r.statusId)).toEqual([1, 1, 2]);
    const result = resultOf(name, 21);
    expect(result.status).toBe('failed');
    expect(result.stepStatusesSent).toEqual(['passed', 'passed', 'failed']);
    expect(run.output.match(/Zephyr Squad: the step counts of 1 test differ .*\(PROJ-21: 3 here, 4 in Playwright\)/g)).toHaveLength(1);
    expect(run.output).toMatch(/CucumberStudio: the step counts of 1 test differ .*\(scenario 21: 3 here, 4 in Playwright\)/);
    // Item 10: the error first, then where (relative to the project), then the title cut to its share.
    expect(e.comment.length).toBeLessThanOrEqual(750);
    expect(e.comment).toMatch(/^Failed: Error: expect\(received\)\.toBe\(expected\).*\nat tests\/output\.spec\.ts:\d+:\d+\nin /);
    expect(e.comment).toContain('Expected: "accepted"');
    expect(e.comment).not.toContain(run.dir);
    expect(result.description).toMatch(/^Failed: Error: expect\(received\)\.toBe\(expected\)/);
    expect(result.description).not.toContain(run.dir);
    // Item 7: the upload's comment names the failing test, not the key's first test.
    const files = (e as unknown as { attachments: Array<{ fileName: string; comment: string }> }).attachments;
    const shot = files.find((f) => f.fileName.startsWith('shot'));
    expect(shot?.comment, JSON.stringify(files)).toMatch(/^output\.spec\.ts › checkout with a very long generated title/);
    expect(files.filter((f) => f.comment.startsWith('passes first'))).toEqual([]);
    // The huge title had to be cut: the full error goes up beside it.
    expect(files.map((f) => f.fileName)).toContain('error.txt');
    // A comment that fits is not cut, nor is error.txt uploaded for it (one Zephyr call fewer).
    const shared = executionOf(name, 'PROJ-22');
    for (const n of ['one', 'two'])
      expect(shared.comment).toContain(`\nin output.spec.ts › ${n} fails on the shared key, its title whole in the comment @PROJ-22\n`);
    expect(shared.comment).not.toContain('[truncated]');
    // Each failing test's error context (two files of one name, told apart by a prefix), and nothing else.
    const uploaded = shared.attachments.map((f) => f.fileName);
    expect(uploaded, JSON.stringify(uploaded)).toHaveLength(2);
    for (const f of uploaded) expect(f).toMatch(/error-context\.md$/);
  });
});
