import { describe, expect, it } from 'vitest';
import { EndEstimate } from '../../src/engine/end-of-run';

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
