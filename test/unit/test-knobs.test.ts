import { describe, expect, it } from 'vitest';
import {
  TEST_BACKOFF_ENV,
  TEST_BATCH_WAIT_ENV,
  TEST_PROGRESS_ENV,
  TEST_UNREACHABLE_ENV,
  testBackoff,
  testBatchWait,
  testKnobs,
  testProgress,
  testUnreachable,
} from '../../src/playwright/test-knobs';
import { NetworkError } from '../../src/http/errors';
import { RequestLane } from '../../src/kit/lane';
import { Reachability, UnreachableError } from '../../src/kit/reachability';
import { VirtualClock } from './virtual-clock';

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

describe('the test unreachable knob (integration runs only)', () => {
  it('unset, empty or not a positive number: no knob, UNREACHABLE keeps its 1 s and 3 s', () => {
    for (const value of [undefined, '', 'abc', '0', '-5']) expect(testUnreachable({ [TEST_UNREACHABLE_ENV]: value })).toBeUndefined();
    expect(testKnobs({})).toEqual({ deps: undefined });
  });
  it('a number of ms: every wait between tries that long, and still 3 tries before the service is given up', async () => {
    const knob = testKnobs({ [TEST_UNREACHABLE_ENV]: '20' });
    expect(knob).toEqual({ deps: undefined, unreachableDelaysMs: [20] });
    const clock = new VirtualClock(1_000);
    const reachability = new Reachability(() => false, clock, knob.unreachableDelaysMs);
    const lane = new RequestLane({ name: 'Zephyr', concurrency: 1, rateLimit: null, clock, reachability, random: () => 1 });
    let calls = 0;
    const refused = () => new NetworkError('Zephyr', 'GET', '/x', 'ECONNREFUSED', { host: '127.0.0.1:4010' });
    const error = await lane
      .retry('op', () =>
        lane.send('op', async () => {
          calls++;
          throw refused();
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect(calls).toBe(3);
    expect(clock.sleeps).toEqual([20, 20]);
    expect(reachability.down).toBe(error);
  });
});
