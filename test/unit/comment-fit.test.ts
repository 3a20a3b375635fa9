import { describe, expect, it } from 'vitest';
import { aggregate, defaultComment } from '../../src/shared/mapping';
import type { TestRecord } from '../../src/shared/model';

/**
 * A comment is cut only when the whole of it does not fit (issue: titles were cut to a share set by the number of
 * tests on the key, before anyone looked at whether the text fitted, and the cut uploaded an error.txt).
 */
const ERROR = 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 2\nReceived: 1';
const rec = (title: string, outcome: TestRecord['outcome'], over: Partial<TestRecord> = {}): TestRecord => ({
  testId: title,
  title,
  keys: { x: ['PROJ-70'] },
  outcome,
  attempts: 1,
  evidence: true,
  ...(outcome === 'failed' ? { error: ERROR, errorLocation: 'two.spec.ts:3:9' } : {}),
  ...over,
});
const policy = (limit: number) => ({
  statusFor: (o: string) => (o === 'passed' ? 1 : 2),
  rank: (s: number) => s,
  comment: (i: { outcome: TestRecord['outcome']; records: TestRecord[] }) => defaultComment(i, limit),
});

describe('failure comments that fit', () => {
  // Two projects, two tests on one key: four records, two of them failing. 690: Zephyr's 750 less its build mark.
  const records = ['chromium', 'firefox'].flatMap((p) => [
    rec(`${p} › two.spec.ts › one pass @PROJ-70`, 'passed'),
    rec(`${p} › two.spec.ts › two fail same key @PROJ-70`, 'failed'),
  ]);

  it('keep every title whole, and upload no error.txt', () => {
    const [item] = aggregate(records, (r) => r.keys.x, policy(690));
    expect(item.comment.length).toBeLessThan(690);
    for (const p of ['chromium', 'firefox']) expect(item.comment).toContain(`\nin ${p} › two.spec.ts › two fail same key @PROJ-70`);
    expect(item.comment).not.toContain('[truncated]');
    expect(item.attachments).toBeUndefined();
  });

  it('keep a first error line longer than its share whole too', () => {
    const first = `Error: ${'a long assertion message '.repeat(8)}`;
    const failing = records.map((r) => (r.outcome === 'failed' ? { ...r, error: `${first}\nmore` } : r));
    const comment = defaultComment({ outcome: 'failed', records: failing }, 690);
    expect(comment).toContain(`Failed: ${first}\nat two.spec.ts:3:9`);
    expect(comment).not.toContain('[truncated]');
  });
});

describe('failure comments that do not fit', () => {
  it('cut each title to its share and keep each error; the full error goes up as error.txt', () => {
    const long = (n: number) => `chromium › two.spec.ts › test ${n} ${'with a long generated title '.repeat(6)}@PROJ-70`;
    const records = [1, 2, 3, 4].map((n) => rec(long(n), 'failed', { error: `${ERROR}\n${'call log line\n'.repeat(20)}` }));
    const [item] = aggregate(records, (r) => r.keys.x, policy(690));
    expect(item.comment.length).toBeLessThanOrEqual(690);
    expect(item.comment.match(/^Failed: Error: expect\(received\)\.toBe\(expected\) \/\/ Object\.is equality$/gm)).toHaveLength(4);
    for (const n of [1, 2, 3, 4]) expect(item.comment).not.toContain(long(n));
    expect(item.comment).toContain('[truncated]');
    expect(item.attachments?.map((a) => a.name)).toEqual(['error.txt']);
  });

  it('share the comment among the tests it speaks of: passing tests on the key take no share of it', () => {
    const title = `chromium › two.spec.ts › ${'the only failing test '.repeat(4)}@PROJ-70`;
    const passing = Array.from({ length: 10 }, (_, i) => rec(`chromium › two.spec.ts › passes ${i}`, 'passed'));
    const failing = rec(title, 'failed', { error: `${ERROR}\n${'call log line\n'.repeat(100)}` });
    const comment = defaultComment({ outcome: 'failed', records: [...passing, failing] }, 690);
    expect(comment.length).toBeLessThanOrEqual(690);
    expect(comment).toContain(`\nin ${title}\n`);
    expect(comment).toMatch(/… \[truncated\]$/);
  });
});
