import { describe, expect, it } from 'vitest';
import { RerunHold, type HeldTest, type SuiteLike } from '../../src/rerun-hold';

function file(ids: string[], retries: number): { tests: HeldTest[] } {
  const project: SuiteLike = { type: 'project', allTests: () => [] };
  const suite: SuiteLike = { type: 'file', parent: project, allTests: () => ids.map((id) => ({ id })) };
  const describeBlock: SuiteLike = { type: 'describe', parent: suite, allTests: () => ids.map((id) => ({ id })) };
  return { tests: ids.map((id) => ({ id, retries, parent: describeBlock })) };
}

describe('RerunHold', () => {
  it('sends at once when no retry is left', () => {
    const hold = new RerunHold();
    const [a] = file(['a', 'b'], 0).tests;
    const sent: string[] = [];
    hold.ended(a, 0, false, () => sent.push('a'));
    expect(sent).toEqual(['a']);
  });

  it('holds a final attempt with retries left until every test of its file has ended for good', () => {
    const hold = new RerunHold();
    const [a, b] = file(['a', 'b'], 1).tests;
    const sent: string[] = [];
    hold.ended(a, 0, false, () => sent.push('a'));
    expect(sent).toEqual([]);
    hold.ended(b, 1, false, () => sent.push('b'));
    expect(sent).toEqual(['b', 'a']);
  });

  it('a new attempt of a held test drops its held result: only the last one is sent', () => {
    const hold = new RerunHold();
    const [a, b] = file(['a', 'b'], 1).tests;
    const sent: string[] = [];
    hold.ended(a, 0, false, () => sent.push('a, attempt 1'));
    hold.began(a); // the serial group's retry
    hold.ended(a, 1, false, () => sent.push('a, attempt 2'));
    hold.ended(b, 1, false, () => sent.push('b'));
    expect(sent).toEqual(['a, attempt 2', 'b']);
  });

  it('an interrupted attempt is not held (nothing runs after it)', () => {
    const hold = new RerunHold();
    const [a] = file(['a', 'b'], 2).tests;
    const sent: string[] = [];
    hold.ended(a, 0, true, () => sent.push('a'));
    expect(sent).toEqual(['a']);
  });
});
