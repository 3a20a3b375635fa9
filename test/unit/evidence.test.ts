import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadNames, withExtension } from '../../src/engine/uploads';
import {
  aggregate,
  defaultComment,
  fitComment,
  isDefaultComment,
  recordOf,
  StepCountNotes,
  stepStatuses,
  type TestLike,
} from '../../src/shared/mapping';
import type { StepStatus, TestRecord } from '../../src/shared/model';
import { stepStatusesFor } from '../../src/targets/cucumberstudio/results';

const rec = (over: Partial<TestRecord>): TestRecord => ({
  testId: 't',
  title: 'a test',
  keys: { x: ['K-1'] },
  outcome: 'failed',
  attempts: 1,
  ...over,
});

describe('failure comments', () => {
  it('keep the first error line and the location when the text must be cut', () => {
    const error = `Expected "accepted", got "declined"\n${'call log line\n'.repeat(200)}`;
    const comment = defaultComment({ outcome: 'failed', records: [rec({ error, errorLocation: 'tests/pay.spec.ts:12:7' })] }, 200);
    expect(comment.length).toBeLessThanOrEqual(200);
    expect(comment).toMatch(/^Failed: Expected "accepted", got "declined"\nat tests\/pay\.spec\.ts:12:7\nin a test\ncall log line/);
    expect(comment).toMatch(/… \[truncated\]$/);
  });

  it('give every test its head before any test its rest', () => {
    const long = (n: number) => `first line ${n}\n${'x'.repeat(2000)}`;
    const comment = fitComment(
      [1, 2, 3].map((n) => ({ head: `Failed: t${n}\n${long(n).split('\n')[0]}`, rest: `\n${'x'.repeat(2000)}` })),
      300,
    );
    for (const n of [1, 2, 3]) expect(comment).toContain(`first line ${n}`);
  });

  it('keep the location after a first line longer than the whole comment', () => {
    const error = `Expected ${'"a very long value" '.repeat(100)}`;
    const comment = defaultComment({ outcome: 'failed', records: [rec({ error, errorLocation: 'tests/pay.spec.ts:12:7' })] }, 200);
    expect(comment.length).toBeLessThanOrEqual(200);
    expect(comment).toMatch(/^Failed: Expected "a very long value".*… \[truncated\]\nat tests\/pay\.spec\.ts:12:7\nin a test/);
  });

  it('never cut an emoji in half', () => {
    for (let at = 0; at < 8; at++) {
      const error = `${'x'.repeat(at)}${'🙂'.repeat(200)}`;
      const comment = defaultComment({ outcome: 'failed', records: [rec({ error: `first\n${error}` })] }, 100);
      expect(comment.length).toBeLessThanOrEqual(100);
      expect(comment.isWellFormed(), JSON.stringify(comment)).toBe(true);
    }
  });

  it("are told from people's comments by their heads", () => {
    for (const outcome of ['failed', 'timedOut', 'interrupted', 'flaky'] as const)
      expect(isDefaultComment(defaultComment({ outcome, records: [rec({ outcome, error: 'x', attempts: 2 })] }, 750))).toBe(true);
    for (const text of ['', 'Checked by hand: fine', 'failed on staging only']) expect(isDefaultComment(text)).toBe(false);
  });

  it('an interrupted test (no error of its own) says why a test is interrupted', () => {
    const comment = defaultComment({ outcome: 'interrupted', records: [rec({ outcome: 'interrupted' })] }, 750);
    expect(comment).toBe(
      'Interrupted: The run stopped before this test finished (Ctrl+C, a CI cancel, --max-failures or the globalTimeout).\nin a test',
    );
  });

  it('are left whole when they fit', () => {
    const comment = defaultComment({ outcome: 'failed', records: [rec({ error: 'boom\nline 2', errorLocation: 'a.ts:1:1' })] }, 750);
    expect(comment).toBe('Failed: boom\nat a.ts:1:1\nin a test\nline 2');
  });

  it('put the error first: a huge title is cut to its share, never the error (issue 31, item 10)', () => {
    const title = `checkout › ${'a very long generated title '.repeat(100)}`;
    const error = `Error: expect(received).toBe(expected)\nExpected: 200\nReceived: 500\n${'call log line\n'.repeat(50)}`;
    const comment = defaultComment({ outcome: 'failed', records: [rec({ title, error, errorLocation: 'tests/pay.spec.ts:12:7' })] }, 750);
    expect(comment.length).toBeLessThanOrEqual(750);
    expect(comment).toMatch(
      /^Failed: Error: expect\(received\)\.toBe\(expected\)\nat tests\/pay\.spec\.ts:12:7\nin checkout › a very long/,
    );
    expect(comment).toContain('Expected: 200\nReceived: 500');
    expect(comment).not.toContain(title);
  });

  it('put the failures before the flaky notes, so that a full comment cuts the notes, not the failure', () => {
    const flaky = (i: number) =>
      rec({
        testId: `f${i}`,
        title: `flaky test number ${i} with a long title`,
        outcome: 'flaky',
        attempts: 2,
        error: `Earlier ${'e'.repeat(150)}`,
      });
    const failed = rec({ testId: 'x', title: 'the failing test', error: 'Error: the real failure', errorLocation: 'z.spec.ts:3:9' });
    const comment = defaultComment({ outcome: 'failed', records: [flaky(1), flaky(2), flaky(3), flaky(4), flaky(5), failed] }, 400);
    expect(comment.startsWith('Failed: Error: the real failure\nat z.spec.ts:3:9\nin the failing test')).toBe(true);
    expect(comment.length).toBeLessThanOrEqual(400);
  });
});

describe('evidence of a result', () => {
  const policy = {
    statusFor: (o: string) => (o === 'passed' ? 1 : 2),
    rank: (s: number) => s,
    comment: (i: { outcome: 'failed' | 'passed'; records: TestRecord[] }) => defaultComment(i, 100),
  };

  it('steps come from the test that decided the status; files from every test, each path once', () => {
    const a = rec({
      testId: 'a',
      outcome: 'passed',
      steps: ['passed', 'passed'],
      attachments: [{ name: 'shot', contentType: 'image/png', path: '/x/a.png' }],
    });
    const b = rec({
      testId: 'b',
      outcome: 'failed',
      error: 'e',
      steps: ['passed', 'failed'],
      attachments: [
        { name: 'shot', contentType: 'image/png', path: '/x/b.png' },
        { name: 'shot', contentType: 'image/png', path: '/x/a.png' },
      ],
    });
    const [item] = aggregate([a, b], (r) => r.keys.x, policy);
    expect(item.steps).toEqual(['passed', 'failed']);
    expect(item.attachments?.map((f) => f.path)).toEqual(['/x/a.png', '/x/b.png']);
  });

  it("each file names the test it came from, not the key's first test (issue 31, item 7)", () => {
    const a = rec({ testId: 'a', title: 'passes first', outcome: 'passed' });
    const b = rec({
      testId: 'b',
      title: 'fails second',
      error: 'E'.repeat(500),
      evidence: true,
      attachments: [{ name: 'shot', contentType: 'image/png', path: '/x/b.png' }],
    });
    const [item] = aggregate([a, b], (r) => r.keys.x, policy);
    expect(item.tests[0]).toBe('passes first');
    expect(item.attachments?.map((f) => [f.name, f.test])).toEqual([
      ['shot', 'fails second'],
      ['error.txt', 'fails second'],
    ]);
  });

  it("error texts and their location show paths relative to the project, not the runner's (issue 31, item 10)", () => {
    const root = path.join(path.sep, 'home', 'runner', 'work', 'app');
    const file = path.join(root, 'tests', 'pay.spec.ts');
    const t = {
      id: 't',
      title: 'pays',
      tags: ['@PROJ-1'],
      annotations: [],
      retries: 0,
      results: [
        {
          status: 'failed' as const,
          retry: 0,
          errors: [
            { message: `Error: ENOENT: no such file '${path.join(root, 'data', 'cards.json')}'`, location: { file, line: 12, column: 7 } },
          ],
        },
      ],
      outcome: () => 'unexpected' as const,
      titlePath: () => ['', 'pay.spec.ts', 'pays'],
    };
    const r = recordOf(t, [], { attachments: 'none', root })!;
    expect(r.errorLocation).toBe(`${path.join('tests', 'pay.spec.ts')}:12:7`);
    expect(r.error).toBe(`Error: ENOENT: no such file '${path.join('data', 'cards.json')}'`);
    // Without the project's folder (a caller that has none), paths stay as they are.
    expect(recordOf(t, [], { attachments: 'none' })!.errorLocation).toBe(`${file}:12:7`);
  });

  it('the full error goes up as error.txt only when the comment was cut and the policy covers the test', () => {
    const long = 'E'.repeat(500);
    const [cut] = aggregate([rec({ error: long, evidence: true })], (r) => r.keys.x, policy);
    expect(cut.attachments?.map((f) => f.name)).toEqual(['error.txt']);
    expect(cut.attachments?.[0].body?.toString()).toContain(long);
    const [notCovered] = aggregate([rec({ error: long })], (r) => r.keys.x, policy);
    expect(notCovered.attachments).toBeUndefined();
    const [short] = aggregate([rec({ error: 'short', evidence: true })], (r) => r.keys.x, policy);
    expect(short.attachments).toBeUndefined();
  });

  it('a skipped step is skipped; the step a timed-out test hung in failed', () => {
    const skip = [{ category: 'test.step' }, { category: 'test.step', annotations: [{ type: 'skip' }] }];
    expect(stepStatuses({ status: 'passed', retry: 0, steps: skip })).toEqual(['passed', 'skipped']);
    const hung = [{ category: 'test.step' }, { category: 'test.step' }];
    expect(stepStatuses({ status: 'timedOut', retry: 0, steps: hung })).toEqual(['passed', 'failed']);
    const failedFirst = [{ category: 'test.step', error: {} }, { category: 'test.step' }];
    expect(stepStatuses({ status: 'timedOut', retry: 0, steps: failedFirst })).toEqual(['failed', 'passed']);
    // Playwright's steps have durations: -1 is the one the timeout cut off; a timeout after the steps fails none.
    const cutOff = [
      { category: 'test.step', duration: 2 },
      { category: 'test.step', duration: -1 },
    ];
    expect(stepStatuses({ status: 'timedOut', retry: 0, steps: cutOff })).toEqual(['passed', 'failed']);
    const allEnded = [
      { category: 'test.step', duration: 2 },
      { category: 'test.step', duration: 3 },
    ];
    expect(stepStatuses({ status: 'timedOut', retry: 0, steps: allEnded })).toEqual(['passed', 'passed']);
  });

  it('a step an interruption cut off (duration -1) did not pass', () => {
    const cut = [
      { category: 'test.step', duration: 2 },
      { category: 'test.step', duration: -1 },
    ];
    expect(stepStatuses({ status: 'interrupted', retry: 0, steps: cut })).toEqual(['passed', 'skipped']);
  });

  it('a step in which the test skipped itself is skipped; a failure test.fail() expected leaves its step passed', () => {
    const skippedInside = [
      { category: 'test.step', duration: 1 },
      { category: 'test.step', duration: 1, error: { message: 'Test is skipped: not here' } },
    ];
    expect(stepStatuses({ status: 'skipped', retry: 0, steps: skippedInside })).toEqual(['passed', 'skipped']);
    const expected = [
      { category: 'test.step', duration: 1 },
      { category: 'test.step', duration: 1, error: { message: 'x' } },
    ];
    expect(stepStatuses({ status: 'failed', retry: 0, steps: expected }, 'failed')).toEqual(['passed', 'passed']);
    expect(stepStatuses({ status: 'failed', retry: 0, steps: expected }, 'passed')).toEqual(['passed', 'failed']);
  });

  it('the full error goes up when the first line had to be cut before its location', () => {
    const error = `Expected ${'"a very long value" '.repeat(100)}\nmore`;
    const r = rec({ error, errorLocation: 'a.ts:1:1', evidence: true });
    const [item] = aggregate([r], (x) => x.keys.x ?? [], {
      statusFor: () => 2,
      rank: (st) => st,
      comment: (i) => defaultComment(i, 200),
    });
    expect(item.comment).toMatch(/\[truncated\]\nat a\.ts:1:1/);
    expect(item.attachments?.map((a) => a.name)).toEqual(['error.txt']);
  });

  it('top-level test.step statuses only; a record of a failed test knows where its error was thrown', () => {
    const steps = [
      { category: 'hook' },
      { category: 'test.step' },
      { category: 'expect', error: {} },
      { category: 'test.step', error: { message: 'x' } },
    ];
    expect(stepStatuses({ status: 'failed', retry: 0, steps })).toEqual(['passed', 'failed']);
    const test: TestLike = {
      id: 'id',
      title: 't',
      tags: [],
      annotations: [],
      retries: 0,
      results: [{ status: 'failed', retry: 0, error: { message: 'boom', location: { file: 'a.spec.ts', line: 3, column: 5 } } }],
      outcome: () => 'unexpected',
      titlePath: () => ['', 'p', 't'],
    };
    expect(recordOf(test, [], { attachments: 'failed' })).toMatchObject({ error: 'boom', errorLocation: 'a.spec.ts:3:5', evidence: true });
    expect(recordOf(test, [], { attachments: 'none' })?.evidence).toBeUndefined();
  });
});

describe('upload names', () => {
  it('the attachment name with its file extension; duplicates told apart by a hash of the path, whatever the order', () => {
    const files = [
      { name: 'screenshot', contentType: 'image/png', path: '/r/t/test-failed-1.png' },
      { name: 'screenshot', contentType: 'image/png', path: '/r/t/test-failed-2.png' },
      { name: 'notes', contentType: 'text/plain', path: '/r/t/notes-3f2a.txt' },
      { name: 'report.html', contentType: 'text/html', path: '/r/t/abc.html' },
    ];
    const names = uploadNames(files).map((n) => n.fileName);
    expect(names[2]).toBe('notes.txt');
    expect(names[3]).toBe('report.html');
    expect(names[0]).toMatch(/^[0-9a-f]{6}-screenshot\.png$/);
    expect(names[0]).not.toBe(names[1]);
    expect(uploadNames([files[1], files[0]]).map((n) => n.fileName)).toEqual([names[1], names[0]]);
  });

  it('a body gets the extension of its type', () => {
    expect(withExtension('trace', 'application/zip')).toBe('trace.zip');
    expect(withExtension('a b/c', 'text/plain')).toBe('a_b_c.txt');
    expect(withExtension('blob', 'application/x-unknown')).toBe('blob');
    // Any registered type, not only the few Playwright itself attaches (an SVG chart, a PDF export, a CSV dump).
    expect(withExtension('chart', 'image/svg+xml')).toBe('chart.svg');
    expect(withExtension('export', 'application/pdf')).toBe('export.pdf');
    expect(withExtension('rows', 'Text/CSV; charset=utf-8')).toBe('rows.csv');
    expect(withExtension('photo', 'image/jpeg')).toBe('photo.jpg');
    expect(withExtension('notes', 'text/markdown')).toBe('notes.md');
    // Long names are cut to 120 characters, extension kept.
    expect(withExtension(`${'x'.repeat(400)}.png`, 'image/png')).toBe(`${'x'.repeat(116)}.png`);
    expect(withExtension('y'.repeat(400), 'application/zip')).toBe(`${'y'.repeat(116)}.zip`);
    expect(withExtension('.hidden', 'text/plain')).toBe('.hidden.txt');
    // What follows the last dot is the extension only if it looks like one.
    expect(withExtension('my report.final v2', 'text/plain')).toBe('my_report.final_v2.txt');
    expect(withExtension('data.jsonl', 'text/plain')).toBe('data.jsonl');
    // Accents go, the letters stay; a name with no letter of the Latin alphabet is named by its type.
    expect(withExtension('Ünïcødé résumé', 'application/json')).toBe('Unic_de_resume.json');
    expect(withExtension('截图', 'image/png')).toBe('attachment.png');
  });
});

describe('CucumberStudio step statuses', () => {
  it('one per step of the test: steps never reached are skipped, extra ones dropped', () => {
    expect(stepStatusesFor(['passed', 'failed'], 3)).toEqual(['passed', 'failed', 'skipped']);
    expect(stepStatusesFor(['passed', 'passed', 'passed', 'passed'], 2)).toEqual(['passed', 'passed']);
    expect(stepStatusesFor(undefined, 3)).toBeUndefined();
    expect(stepStatusesFor(['passed'], undefined)).toEqual(['passed']);
  });
  it('a failure past the last step of the test fails that step: never every step passed on a failure (issue 31, item 2)', () => {
    expect(stepStatusesFor(['passed', 'passed', 'passed', 'failed'], 3)).toEqual(['passed', 'passed', 'failed']);
    expect(stepStatusesFor(['passed', 'skipped', 'passed', 'passed', 'failed'], 2)).toEqual(['passed', 'failed']);
    // A failure within the steps stays where it is; a passed test's extra steps change nothing.
    expect(stepStatusesFor(['failed', 'skipped', 'skipped', 'skipped'], 3)).toEqual(['failed', 'skipped', 'skipped']);
    expect(stepStatusesFor(['passed', 'passed', 'passed', 'passed'], 3)).toEqual(['passed', 'passed', 'passed']);
  });
});

describe('step counts that differ', () => {
  const passed = (n: number) => Array<StepStatus>(n).fill('passed');
  it('are said once, naming the first few keys; a later send with matching counts takes a key back', () => {
    const notes = new StepCountNotes();
    expect(notes.lines()).toEqual([]);
    notes.saw('PROJ-1', 3, passed(4));
    notes.saw('PROJ-1', 3, passed(4));
    notes.saw('PROJ-2', 3, passed(3));
    expect(notes.lines()).toEqual([
      "the step counts of 1 test differ from their Playwright tests' top-level steps (PROJ-1: 3 here, 4 in Playwright): steps are matched by order, and a failure past the last step here is shown on that step",
    ]);
    for (const k of ['PROJ-3', 'PROJ-4', 'PROJ-5']) notes.saw(k, 1, passed(2));
    expect(notes.lines()[0]).toContain('of 4 tests differ');
    expect(notes.lines()[0]).toContain('PROJ-4: 1 here, 2 in Playwright; …)');
    notes.saw('PROJ-1', 4, passed(4));
    expect(notes.lines()[0]).toContain('of 3 tests differ');
  });
  it('a test that stopped in a step (failed, or skipped itself) never reached the rest: fewer steps are no difference', () => {
    const notes = new StepCountNotes();
    notes.saw('PROJ-1', 3, ['passed', 'failed']);
    notes.saw('PROJ-2', 3, ['skipped']);
    expect(notes.lines()).toEqual([]);
    // Every step it ran passed, and there are fewer: the tests differ. More steps than the service has always do.
    notes.saw('PROJ-3', 3, passed(2));
    notes.saw('PROJ-4', 1, ['passed', 'failed']);
    expect(notes.lines()[0]).toContain('(PROJ-3: 3 here, 2 in Playwright; PROJ-4: 1 here, 2 in Playwright)');
  });
});
