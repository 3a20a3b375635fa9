import { describe, expect, it } from 'vitest';
import { EndEstimate, timeLeftText } from '../../src/engine/end-of-run';

describe('EndEstimate', () => {
  it('extrapolates the pace so far to the tests left; unknown until a few have finished', () => {
    let now = 10_000;
    const e = new EndEstimate(100, () => now);
    expect(e.msLeft()).toBe(Infinity);
    for (let i = 0; i < 4; i++) e.finishedOne(`t${i}`);
    now += 4_000;
    expect(e.msLeft()).toBe(Infinity); // 4 finished: the workers' start still dominates
    e.finishedOne('t4');
    now += 1_000;
    expect(e.msLeft()).toBe(95 * 1_000); // 5 in 5 s: 95 left at one a second
    for (let i = 5; i < 99; i++) e.finishedOne(`t${i}`);
    // A test that comes again (a serial group's retry ran it once more) is not one more test.
    e.finishedOne('t3');
    expect(e.over()).toBe(false);
    e.finishedOne('t99');
    expect(e.over()).toBe(true); // every test has its final result
    expect(e.msLeft()).toBe(0);
    expect(new EndEstimate(0, () => now).msLeft()).toBe(Infinity);
    expect(new EndEstimate(0, () => now).over()).toBe(false);
  });
});

describe('the time left in a progress line (issue 31, item 8)', () => {
  it('never says more than publishTimeout leaves: a rate measured over a stall is not extrapolated past it', () => {
    // 1 of 1800 results in the first 10 s (a 429's wait): "about 17990 s left" before; the end stops at publishTimeout.
    expect(timeLeftText({ sent: 1, total: 1800, sentInEnd: 1, elapsedMs: 10_000, budgetMs: 590_000 })).toBe(
      ', at most 590 s left (publishTimeout; what is not sent by then stays in the outbox)',
    );
    // Nothing confirmed yet: the budget is all that is known.
    expect(timeLeftText({ sent: 0, total: 10, sentInEnd: 0, elapsedMs: 10_000, budgetMs: 120_000 })).toBe(
      ', at most 120 s left (publishTimeout; what is not sent by then stays in the outbox)',
    );
  });
  it('a rate within the budget gives its estimate; nothing left says nothing', () => {
    expect(timeLeftText({ sent: 50, total: 100, sentInEnd: 50, elapsedMs: 10_000, budgetMs: 590_000 })).toBe(
      ', about 10 s left at the current rate',
    );
    expect(timeLeftText({ sent: 100, total: 100, sentInEnd: 100, elapsedMs: 10_000, budgetMs: 590_000 })).toBe('');
    expect(timeLeftText({ sent: 0, total: 10, sentInEnd: 0, elapsedMs: 10_000, budgetMs: Infinity })).toBe('');
  });
});
