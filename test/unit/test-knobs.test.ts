import { describe, expect, it } from 'vitest';
import {
  TEST_BACKOFF_ENV,
  TEST_BATCH_WAIT_ENV,
  TEST_PROGRESS_ENV,
  testBackoff,
  testBatchWait,
  testProgress,
} from '../../src/playwright/test-knobs';

describe('the test backoff knob (integration runs only)', () => {
  it('unset, empty or not a positive number: no knob, the lane keeps its own backoff', () => {
    for (const value of [undefined, '', 'abc', '0', '-5']) expect(testBackoff({ [TEST_BACKOFF_ENV]: value })).toBeUndefined();
  });
  it('a number of ms: every backoff that long', () => {
    expect(testBackoff({ [TEST_BACKOFF_ENV]: '20' })).toEqual({ lane: { backoff: { baseMs: 20, maxMs: 20, factor: 1 } } });
  });
});

describe('the test progress knob (integration runs only)', () => {
  it('unset, empty or not a positive number: no knob, the end keeps its own cadence', () => {
    for (const value of [undefined, '', 'abc', '0', '-5']) expect(testProgress({ [TEST_PROGRESS_ENV]: value })).toBeUndefined();
  });
  it('a number of ms: a line that often, from the end’s start', () => {
    expect(testProgress({ [TEST_PROGRESS_ENV]: '300' })).toEqual({ progressEveryMs: 300, quietEndMs: 0 });
  });
});

describe('the test batching knob (integration runs only)', () => {
  it('unset, empty or not a positive number: no knob, each target keeps its window', () => {
    for (const value of [undefined, '', 'abc', '0', '-5']) expect(testBatchWait({ [TEST_BATCH_WAIT_ENV]: value })).toBeUndefined();
  });
  it('a number of ms: that window', () => {
    expect(testBatchWait({ [TEST_BATCH_WAIT_ENV]: '100' })).toEqual({ batchWaitMs: 100 });
  });
});
