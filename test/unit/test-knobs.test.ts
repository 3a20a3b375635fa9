import { describe, expect, it } from 'vitest';
import { TEST_BACKOFF_ENV, testBackoff } from '../../src/playwright/test-knobs';

describe('the test backoff knob (integration runs only)', () => {
  it('unset, empty or not a positive number: no knob, the lane keeps its own backoff', () => {
    for (const value of [undefined, '', 'abc', '0', '-5']) expect(testBackoff({ [TEST_BACKOFF_ENV]: value })).toBeUndefined();
  });
  it('a number of ms: every backoff that long', () => {
    expect(testBackoff({ [TEST_BACKOFF_ENV]: '20' })).toEqual({ lane: { backoff: { baseMs: 20, maxMs: 20, factor: 1 } } });
  });
});
