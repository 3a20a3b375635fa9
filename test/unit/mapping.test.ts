import { describe, expect, it } from 'vitest';
import {
  aggregate,
  isFinalAttempt,
  notKeyLines,
  outcomeOf,
  recordOf,
  stripAnsi,
  type ResultLike,
  type TestLike,
} from '../../src/shared/mapping';
import { TARGETS } from '../../src/targets';
import { zephyr } from '../../src/targets/zephyr/definition';
import { cucumberstudio } from '../../src/targets/cucumberstudio/definition';

const zephyrKeysOf = (t: TestLike) => zephyr.keysOf(t);
const scenarioIdsOf = (t: TestLike) => cucumberstudio.keysOf(t).map(Number);
import type { TestRecord } from '../../src/shared/model';
import { resolveStatusMap, zephyrRank, DEFAULT_ZEPHYR_STATUS } from '../../src/targets/zephyr/statuses';
import { DEFAULT_CS_STATUS, resolveCsStatusMap } from '../../src/targets/cucumberstudio/statuses';

/** When attempt `retry` of a fakeTest starts (a minute apart) and how long it takes (1 s more each time), as Playwright sets them. */
const T0 = Date.parse('2026-11-27T10:15:30.000Z');
const startOf = (retry: number) => new Date(T0 + retry * 60_000);
const durationOf = (retry: number) => 1000 * (retry + 1);

/** A stand-in for Playwright's TestCase with Playwright's own outcome() rules. */
function fakeTest(
  statuses: ResultLike['status'][],
  o: Partial<TestLike> & { expected?: 'passed' | 'failed' } = {},
  last: Partial<ResultLike> = {},
): TestLike {
  const expected = o.expected ?? 'passed';
  const results: ResultLike[] = statuses.map((status, retry) => ({
    status,
    retry,
    startTime: startOf(retry),
    duration: durationOf(retry),
    error: status === 'failed' || status === 'timedOut' ? { message: '\u001b[31mExpected\u001b[39m 1 to be 2' } : undefined,
  }));
  Object.assign(results[results.length - 1] ?? {}, last);
  return {
    id: o.id ?? 't1',
    title: o.title ?? 'does a thing',
    tags: o.tags ?? [],
    annotations: o.annotations ?? [],
    retries: o.retries ?? 0,
    expectedStatus: o.expectedStatus ?? o.expected,
    results,
    titlePath: () => ['', 'chromium', 'a.spec.ts', o.title ?? 'does a thing'],
    // Playwright 1.65's computeTestCaseOutcome: a skipped attempt counts when the test means to skip.
    outcome() {
      const status = o.expectedStatus ?? expected;
      let [skipped, expectedOnes, unexpected] = [0, 0, 0];
      for (const r of results) {
        if (r.status === 'interrupted') continue;
        if (r.status === 'skipped') skipped += status === 'skipped' ? 1 : 0;
        else if (r.status === status) expectedOnes++;
        else unexpected++;
      }
      if (expectedOnes === 0 && unexpected === 0) return 'skipped';
      if (unexpected === 0) return 'expected';
      if (expectedOnes === 0 && skipped === 0) return 'unexpected';
      return 'flaky';
    },
  };
}

describe('keys', () => {
  it('reads Jira keys from annotations (also several, runtime ones) and @KEY tags', () => {
    const t = fakeTest(['passed'], {
      annotations: [{ type: 'zephyr', description: 'PROJ-1, PROJ-2' }],
      tags: ['@PROJ-3', '@smoke', '@cs-7'],
    });
    t.results[0].annotations = [{ type: 'zephyr', description: 'PROJ-4' }];
    expect(zephyrKeysOf(t)).toEqual(['PROJ-1', 'PROJ-2', 'PROJ-4', 'PROJ-3']);
    expect(scenarioIdsOf(t)).toEqual([7]);
  });
  it('@CS-712 is a Jira key, @cs-712 a scenario; a Jira issue link in an annotation is read as its key', () => {
    const t = fakeTest(['passed'], { tags: ['@CS-712', '@cs-713'] });
    expect(zephyrKeysOf(t)).toEqual(['CS-712']);
    expect(scenarioIdsOf(t)).toEqual([713]);
    const linked = fakeTest(['passed'], { annotations: [{ type: 'zephyr', description: 'https://acme.atlassian.net/browse/PROJ-12' }] });
    expect(zephyrKeysOf(linked)).toEqual(['PROJ-12']);
  });
  it('a repetition of --repeat-each is named in its record title (repetitions share their title)', () => {
    const first = recordOf(fakeTest(['failed'], { tags: ['@PROJ-1'] }), TARGETS)!;
    const third = recordOf({ ...fakeTest(['failed'], { tags: ['@PROJ-1'] }), repeatEachIndex: 2 }, TARGETS)!;
    expect(third.title).toBe(`${first.title} (repetition 3)`);
  });
  it('a tag written in a title next to punctuation ("login (@PROJ-341)", "@PROJ-342,") is still its key', () => {
    // Playwright takes a title's tag up to the next space, punctuation included.
    const t = fakeTest(['passed'], { tags: ['@PROJ-341)', '@PROJ-342,', '@PROJ-343.', '@PROJ-344]', '@cs-345)', '@cs-346".'] });
    expect(zephyrKeysOf(t)).toEqual(['PROJ-341', 'PROJ-342', 'PROJ-343', 'PROJ-344']);
    expect(scenarioIdsOf(t)).toEqual([345, 346]);
    expect(zephyrKeysOf(fakeTest(['passed'], { tags: ['@PROJ-3x)', '@(PROJ-5)'] }))).toEqual([]);
  });
  it('annotation values that are not keys are named, at most five lines', () => {
    const bad = (i: number) =>
      fakeTest(['passed'], {
        title: `t${i}`,
        annotations: [
          { type: 'zephyr', description: i === 0 ? 'abc, PROJ-1' : 'PROJ-1' },
          { type: 'cucumberstudio', description: `scenario-${i}` },
        ],
      });
    expect(notKeyLines([bad(0)], [{ ...zephyr }, { ...cucumberstudio }])).toEqual([
      'Zephyr Squad: the zephyr annotation "abc" of "chromium › a.spec.ts › t0" is not a key; not mapped by it',
      'CucumberStudio: the cucumberstudio annotation "scenario-0" of "chromium › a.spec.ts › t0" is not a key; not mapped by it',
    ]);
    const many = notKeyLines([0, 1, 2, 3, 4, 5].map(bad), [zephyr, cucumberstudio]);
    expect(many).toHaveLength(6);
    expect(many[5]).toBe('… and 2 more values that are not keys');
  });
  it('counts each value once: a run-time annotation is on the test and on every attempt (issue 31, item 9)', () => {
    // Playwright shows a run-time annotation in test.annotations and in each attempt's result.annotations.
    const bad = (i: number) => {
      const t = fakeTest(['failed', 'failed', 'failed'], {
        title: `t${i}`,
        retries: 2,
        annotations: [{ type: 'zephyr', description: `nokey${i}` }],
      });
      for (const r of t.results) r.annotations = [{ type: 'zephyr', description: `nokey${i}` }];
      return t;
    };
    const lines = notKeyLines([0, 1, 2, 3, 4, 5].map(bad), [zephyr]);
    expect(lines).toHaveLength(6);
    expect(new Set(lines).size).toBe(6);
    expect(lines[5]).toBe('… and 1 more value that is not a key');
  });
  it("Jira keys are read in any case in tags and annotations, upper-cased; @cs-<id> stays CucumberStudio's (item 4)", () => {
    const t = fakeTest(['passed'], {
      tags: ['@proj-1', '@Proj-2', '@cs-3', '@CS-4', '@Cs-5'],
      annotations: [{ type: 'zephyr', description: 'proj-6' }],
    });
    expect(zephyrKeysOf(t)).toEqual(['PROJ-6', 'PROJ-1', 'PROJ-2', 'CS-4', 'CS-5']);
    expect(scenarioIdsOf(t)).toEqual([3]);
  });
  it("a tag in a key's wrong form is named: @cs-<id> to Zephyr alone, a scenario tag that is not @cs-<digits>", () => {
    const t = fakeTest(['passed'], { title: 't', tags: ['@cs-12', '@cs12', '@cs-12a', '@smoke'] });
    expect(notKeyLines([t], [zephyr])).toEqual([
      'Zephyr Squad: the tag "@cs-12" of "chromium › a.spec.ts › t" is not a key (lower-case @cs-<id> is a CucumberStudio scenario; a key of the Jira project CS is tagged @CS-12); not mapped by it',
    ]);
    // With CucumberStudio configured, @cs-12 is its scenario: only its wrong forms are named.
    expect(notKeyLines([t], [zephyr, cucumberstudio])).toEqual([
      'CucumberStudio: the tag "@cs12" of "chromium › a.spec.ts › t" is not a key (a scenario tag is @cs-<id>, the id in digits); not mapped by it',
      'CucumberStudio: the tag "@cs-12a" of "chromium › a.spec.ts › t" is not a key (a scenario tag is @cs-<id>, the id in digits); not mapped by it',
    ]);
  });
  it('reads scenario ids from cucumberstudio annotations', () => {
    expect(scenarioIdsOf(fakeTest(['passed'], { annotations: [{ type: 'cucumberstudio', description: '501' }] }))).toEqual([501]);
  });
  it('ignores malformed keys', () => {
    expect(
      zephyrKeysOf(
        fakeTest(['passed'], {
          tags: ['@PROJ-', '@-1', '@1PROJ-1', '@PROJ_1'],
          annotations: [{ type: 'zephyr', description: 'not a key' }],
        }),
      ),
    ).toEqual([]);
  });
});

describe('outcome table', () => {
  it.each([
    [['passed'], {}, 'passed'],
    [['failed'], {}, 'failed'],
    [['timedOut'], {}, 'timedOut'],
    [['failed', 'passed'], { retries: 1 }, 'flaky'],
    [['failed', 'failed'], { retries: 1 }, 'failed'],
    [['skipped'], {}, 'skipped'],
    [['interrupted'], {}, 'interrupted'],
    [['failed'], { expected: 'failed' as const }, 'passed'], // test.fail() that failed as expected
    [['passed'], { expected: 'failed' as const }, 'failed'], // test.fail() that passed
    [['failed', 'skipped'], { retries: 1 }, 'failed'], // Playwright's "flaky": a retry that skipped itself, nothing passed
    [['timedOut', 'skipped'], { retries: 1 }, 'timedOut'],
    // As Playwright reports it: the retry's test.skip() leaves the whole test's expectedStatus 'skipped'.
    [['failed', 'skipped'], { retries: 1, expectedStatus: 'skipped' as const }, 'failed'],
    [['passed', 'skipped'], { retries: 1, expectedStatus: 'skipped' as const }, 'flaky'], // its serial group's retry
    [['passed', 'failed'], { retries: 1, expected: 'failed' as const }, 'flaky'], // test.fail(): failed as expected on the retry
  ] as const)('%j %j -> %s', (statuses, o, outcome) => {
    expect(outcomeOf(fakeTest([...statuses], o))).toBe(outcome);
  });
  it('a test.fail() that passed says why it failed', () => {
    const r = recordOf(fakeTest(['passed'], { expected: 'failed', tags: ['@PROJ-9'] }), TARGETS)!;
    expect(r).toMatchObject({ outcome: 'failed', error: 'Expected to fail, but passed.' });
  });
  it('a test that never ran has no outcome', () => {
    expect(outcomeOf(fakeTest([]))).toBeNull();
  });
  it('only the last attempt of a retried test is final', () => {
    const t = fakeTest(['failed'], { retries: 2 });
    expect(isFinalAttempt(t, t.results[0])).toBe(false);
    const t2 = fakeTest(['failed', 'failed', 'failed'], { retries: 2 });
    expect(isFinalAttempt(t2, t2.results[2])).toBe(true);
    const t3 = fakeTest(['failed', 'passed'], { retries: 2 });
    expect(isFinalAttempt(t3, t3.results[1])).toBe(true);
  });
  it('a skipped attempt is final when the test means to skip, or when no retry is left', () => {
    // Skipped because an earlier test of its serial group failed: the group's retry runs it again.
    const inGroup = fakeTest(['skipped'], { retries: 1, expectedStatus: 'passed' });
    expect(isFinalAttempt(inGroup, inGroup.results[0])).toBe(false);
    const lastTry = fakeTest(['skipped', 'skipped'], { retries: 1, expectedStatus: 'passed' });
    expect(isFinalAttempt(lastTry, lastTry.results[1])).toBe(true);
    const meant = fakeTest(['skipped'], { retries: 1, expectedStatus: 'skipped' });
    expect(isFinalAttempt(meant, meant.results[0])).toBe(true);
  });
  it('strips ANSI from the error and keeps the title path', () => {
    const r = recordOf(fakeTest(['failed'], { tags: ['@PROJ-9'] }), TARGETS)!;
    expect(r.error).toBe('Expected 1 to be 2');
    expect(r.title).toBe('chromium › a.spec.ts › does a thing');
    expect(stripAnsi('\u001b[2m\u001b[31mx\u001b[39m\u001b[22m')).toBe('x');
    // A terminal hyperlink goes whole: its URL and the bell that ends it are not text.
    expect(stripAnsi('see \u001b]8;;http://x.test/a?b=1\u0007the docs\u001b]8;;\u0007.')).toBe('see the docs.');
  });
  it("keeps every error of the attempt (soft expects, then what was thrown) and their causes; the location is the first one's", () => {
    const at = (line: number) => ({ file: '/p/a.spec.ts', line, column: 3 });
    const errors = [
      { message: '\u001b[31msoft 1\u001b[39m', location: at(2) },
      { message: 'soft 2', location: at(3) },
      { message: 'Error: request failed', location: at(4), cause: { message: 'Error: ECONNRESET', cause: { message: 'socket hang up' } } },
    ];
    const r = recordOf(fakeTest(['failed'], { tags: ['@PROJ-9'] }, { error: errors[0], errors }), TARGETS)!;
    expect(r.error).toBe(
      [
        'soft 1',
        '--- error 2 of 3 ---\nsoft 2',
        '--- error 3 of 3 ---\nError: request failed\n[cause]: Error: ECONNRESET\n[cause]: socket hang up',
      ].join('\n\n'),
    );
    expect(r.errorLocation).toBe('/p/a.spec.ts:2:3');
  });
});

describe('worst wins (Zephyr)', () => {
  const rec = (testId: string, outcome: TestRecord['outcome'], keys = ['PROJ-1']): TestRecord => ({
    testId,
    title: testId,
    keys: { zephyr: keys },
    outcome,
    attempts: 1,
    error: outcome === 'failed' ? 'boom' : undefined,
  });
  const policy = (map = DEFAULT_ZEPHYR_STATUS) => ({
    statusFor: (o: TestRecord['outcome']) => map[o],
    rank: zephyrRank,
    comment: () => '',
  });
  it('a key several tests feed spans them all: the earliest start and the latest finish; records without times add none', () => {
    const timed = (r: TestRecord, startedAt: string, finishedAt: string): TestRecord => ({ ...r, startedAt, finishedAt });
    const [item] = aggregate(
      [
        timed(rec('a', 'passed'), '2026-11-27T10:00:05.000Z', '2026-11-27T10:00:40.000Z'),
        timed(rec('b', 'failed'), '2026-11-27T10:00:01.000Z', '2026-11-27T10:00:09.000Z'),
        rec('c', 'passed'),
      ],
      (r) => r.keys.zephyr,
      policy(),
    );
    expect(item).toMatchObject({ status: 2, startedAt: '2026-11-27T10:00:01.000Z', finishedAt: '2026-11-27T10:00:40.000Z' });
    const [none] = aggregate([rec('c', 'passed')], (r) => r.keys.zephyr, policy());
    expect(none).not.toHaveProperty('startedAt');
    expect(none).not.toHaveProperty('finishedAt');
  });
  it('FAIL > BLOCKED > WIP > PASS > UNEXECUTED, whatever the order', () => {
    const order = [rec('a', 'passed'), rec('b', 'interrupted'), rec('c', 'failed'), rec('d', 'skipped')];
    for (const records of [order, [...order].reverse()]) {
      const [item] = aggregate(records, (r) => r.keys.zephyr ?? [], policy());
      expect(item.status).toBe(2);
      expect(item.tests).toHaveLength(4);
    }
    expect(aggregate([rec('a', 'passed'), rec('b', 'interrupted')], (r) => r.keys.zephyr ?? [], policy())[0].status).toBe(4);
    expect(aggregate([rec('a', 'skipped'), rec('b', 'flaky')], (r) => r.keys.zephyr ?? [], policy())[0].status).toBe(1);
  });
  it('a custom status ranks like its outcome default: the worse outcome decides a tie, whatever the order', () => {
    const map = { ...DEFAULT_ZEPHYR_STATUS, flaky: 5 }; // flaky -> a tenant's PARTIALLY PASSED (id 5), ranked like PASS
    for (const records of [
      [rec('a', 'passed'), rec('b', 'flaky')],
      [rec('b', 'flaky'), rec('a', 'passed')],
    ]) {
      const [item] = aggregate(records, (r) => r.keys.zephyr ?? [], policy(map));
      expect([item.status, item.outcome]).toEqual([5, 'flaky']);
    }
  });
  it('failed is worse than timed out when their statuses rank alike, whatever the order', () => {
    const map = { ...DEFAULT_ZEPHYR_STATUS, timedOut: 6 }; // a tenant's TIMEOUT status, ranked like FAIL
    for (const records of [
      [rec('a', 'failed'), rec('b', 'timedOut')],
      [rec('b', 'timedOut'), rec('a', 'failed')],
    ])
      expect(aggregate(records, (r) => r.keys.zephyr ?? [], policy(map))[0].status).toBe(2);
  });
  it('one item per key; a test with several keys feeds each', () => {
    const items = aggregate(
      [rec('a', 'passed', ['PROJ-2', 'PROJ-1']), rec('b', 'failed', ['PROJ-2'])],
      (r) => r.keys.zephyr ?? [],
      policy(),
    );
    expect(items.map((i) => [i.key, i.status])).toEqual([
      ['PROJ-1', 1],
      ['PROJ-2', 2],
    ]);
  });
  it('statusMap resolves names (custom tenant statuses too) and ids; unknown names warn and fall back', () => {
    const statuses = [
      { id: -1, name: 'UNEXECUTED' },
      { id: 1, name: 'PASS' },
      { id: 2, name: 'FAIL' },
      { id: 3, name: 'WIP' },
      { id: 4, name: 'BLOCKED' },
      { id: 5, name: 'PARTIALLY PASSED' },
    ];
    const r = resolveStatusMap({ flaky: 'partially passed', skipped: 3, interrupted: 'NOPE' }, statuses);
    expect(r.byOutcome).toMatchObject({ flaky: 5, skipped: 3, interrupted: 4, failed: 2 });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('zephyr.statusMap.interrupted');
    expect(resolveStatusMap({ failed: 'BLOCKED' }, statuses).byOutcome.timedOut).toBe(4);
    // A custom status ranks like its outcome's default: a flaky test (custom 5) loses against a FAIL.
    expect(zephyrRank(5, 'flaky')).toBeLessThan(zephyrRank(2, 'failed'));
  });
  it('CucumberStudio statusMap: names as the user wrote them (case, spaces) become the service’s; timedOut follows failed unless mapped', () => {
    expect(resolveCsStatusMap({ failed: ' Retest ', interrupted: 'WIP' })).toEqual({
      ...DEFAULT_CS_STATUS,
      failed: 'retest',
      timedOut: 'retest',
      interrupted: 'wip',
    });
    expect(resolveCsStatusMap({ failed: 'retest', timedOut: 'blocked' })).toMatchObject({ failed: 'retest', timedOut: 'blocked' });
    expect(resolveCsStatusMap({})).toEqual(DEFAULT_CS_STATUS);
  });
});

describe('evidence of a test', () => {
  const withSteps = (status: ResultLike['status'], steps: ResultLike['steps'], attachments: ResultLike['attachments'] = []) =>
    fakeTest([status], { tags: ['@PROJ-1'] }, { steps, attachments });
  it('top-level test.step statuses in order; hooks and expects are not steps', () => {
    const t = withSteps('failed', [
      { category: 'hook' },
      { category: 'test.step' },
      { category: 'expect' },
      { category: 'test.step', error: { message: 'x' } },
    ]);
    expect(recordOf(t, TARGETS)!.steps).toEqual(['passed', 'failed']);
  });
  it('attachments follow the policy: failed (incl. flaky and timed out), all, none', () => {
    const files = [
      { name: 'screenshot', contentType: 'image/png', path: '/tmp/s.png' },
      { name: 'note', contentType: 'text/plain', body: Buffer.from('hi') },
    ];
    expect(recordOf(withSteps('failed', [], files), TARGETS, { attachments: 'failed' })!.attachments).toHaveLength(2);
    expect(recordOf(withSteps('passed', [], files), TARGETS, { attachments: 'failed' })!.attachments).toBeUndefined();
    expect(recordOf(withSteps('passed', [], files), TARGETS, { attachments: 'all' })!.attachments).toHaveLength(2);
    expect(recordOf(withSteps('failed', [], files), TARGETS, { attachments: 'none' })!.attachments).toBeUndefined();
  });

  const file = (name: string, dir: string) => ({
    name,
    contentType: name === 'trace' ? 'application/zip' : 'text/markdown',
    path: `/r/${dir}/${name}`,
  });
  const attempts = (statuses: ResultLike['status'][], files: ReturnType<typeof file>[][]) => {
    const t = fakeTest(statuses, { tags: ['@PROJ-1'], retries: statuses.length - 1 });
    t.results.forEach((r, i) => ((r as { attachments?: unknown }).attachments = files[i]));
    return recordOf(t, TARGETS, { attachments: 'failed' })!.attachments!.map((a) => a.path);
  };

  it("`trace: 'on-first-retry'`: a trace recorded on a retry goes up with the reported attempt's files, once per name", () => {
    // Failed on every attempt (retries 2): the last attempt's files, and the trace of retry #1.
    expect(
      attempts(
        ['failed', 'failed', 'failed'],
        [[file('error-context', 'a0')], [file('error-context', 'a1'), file('trace', 'a1')], [file('error-context', 'a2')]],
      ),
    ).toEqual(['/r/a2/error-context', '/r/a1/trace']);
    // Flaky: the failing attempt's files, and the trace of the retry that passed.
    expect(attempts(['failed', 'passed'], [[file('error-context', 'a0')], [file('trace', 'a1')]])).toEqual([
      '/r/a0/error-context',
      '/r/a1/trace',
    ]);
  });

  it("the steps are the attempt's the outcome stands for: a flaky test's passing one, a failure's failing one", () => {
    const step = (error?: string) => ({ title: 's', category: 'test.step', duration: 1, ...(error ? { error: { message: error } } : {}) });
    const withAttempts = (statuses: ResultLike['status'][], steps: ReturnType<typeof step>[][]) => {
      const t = fakeTest(statuses, { tags: ['@PROJ-1'], retries: statuses.length - 1 });
      t.results.forEach((r, i) => ((r as { steps?: unknown }).steps = steps[i]));
      return recordOf(t, TARGETS)!.steps;
    };
    // Passed, then failed on its serial group's retry: flaky, and its status a pass: the passing attempt's steps.
    expect(
      withAttempts(
        ['passed', 'failed'],
        [
          [step(), step()],
          [step(), step('boom')],
        ],
      ),
    ).toEqual(['passed', 'passed']);
    // Failed, then skipped by its group's retry: the failing attempt's steps.
    expect(withAttempts(['failed', 'skipped'], [[step(), step('boom')], []])).toEqual(['passed', 'failed']);
  });

  it("the start and finish are the attempt's the outcome stands for: a flaky test's passing one, a failure's failing one", () => {
    const timing = (statuses: ResultLike['status'][], o: Partial<TestLike> = {}) => {
      const r = recordOf(fakeTest(statuses, { tags: ['@PROJ-1'], retries: statuses.length - 1, ...o }), TARGETS)!;
      return [r.startedAt, r.finishedAt];
    };
    const of = (retry: number) => [startOf(retry).toISOString(), new Date(startOf(retry).getTime() + durationOf(retry)).toISOString()];
    expect(of(1)).toEqual(['2026-11-27T10:16:30.000Z', '2026-11-27T10:16:32.000Z']);
    expect(timing(['passed'])).toEqual(of(0));
    // Flaky: the passing attempt (its status is a pass), whether it came last or before a serial group's failing retry.
    expect(timing(['failed', 'passed'])).toEqual(of(1));
    expect(timing(['failed', 'failed', 'passed'])).toEqual(of(2));
    expect(timing(['passed', 'failed'])).toEqual(of(0));
    // Failed: the failing attempt, also when its group's retry skipped it afterwards.
    expect(timing(['failed', 'failed'])).toEqual(of(1));
    expect(timing(['timedOut', 'skipped'])).toEqual(of(0));
    expect(timing(['failed', 'skipped'])).toEqual(of(0));
    // A test.fail() that failed as expected passed: its last attempt.
    expect(timing(['failed'], { expectedStatus: 'failed' })).toEqual(of(0));
    // Skipped by itself: it ran for no time, and says when.
    const skipped = fakeTest(['skipped'], { tags: ['@PROJ-1'], expectedStatus: 'skipped' }, { duration: 0 });
    expect([recordOf(skipped, TARGETS)!.startedAt, recordOf(skipped, TARGETS)!.finishedAt]).toEqual([of(0)[0], of(0)[0]]);
  });

  it('an attempt that never ended (cut off by the globalTimeout), or a result without times, has no start or finish', () => {
    const cut = fakeTest(['failed', 'passed'], { tags: ['@PROJ-1'], retries: 1 }, { duration: -1 });
    const r = recordOf(cut, TARGETS, { attachments: 'none' }, true)!;
    expect(r.outcome).toBe('interrupted');
    expect(r).not.toHaveProperty('startedAt');
    expect(r).not.toHaveProperty('finishedAt');
    const plain = fakeTest(['passed'], { tags: ['@PROJ-1'] }, { startTime: undefined, duration: undefined });
    expect(Object.keys(recordOf(plain, TARGETS)!)).not.toContain('startedAt');
  });

  it('a serial test that failed, then was skipped by its group: the files of the attempt that failed', () => {
    expect(attempts(['failed', 'skipped'], [[file('error-context', 'a0')], []])).toEqual(['/r/a0/error-context']);
  });
});
