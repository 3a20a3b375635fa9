import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/errors';
import { pollUntil, TestIndex, waitForTests } from '../../src/targets/cucumberstudio/linkage';
import { notReady, ready } from '../../src/kit/wait';
import type { Snapshot } from '../../src/targets/cucumberstudio/snapshots';
import { VirtualClock } from './virtual-clock';

describe('CucumberStudio: waiting for a run’s generated tests', () => {
  it('looks again at least every 2 s by default, so results wait at most that long after the tests exist', async () => {
    const clock = new VirtualClock();
    const readyAt = 9_000; // a 2,000-scenario run: its tests appear after about 9 s
    let probes = 0;
    const done = await pollUntil(
      async () => {
        probes++;
        return clock.now() >= readyAt ? ready(true) : notReady('not yet');
      },
      { timeoutMs: 120_000, clock },
    );
    expect(done).toBe(true);
    expect(Math.max(...clock.sleeps)).toBe(2_000);
    expect(clock.sleeps.slice(0, 3)).toEqual([250, 375, 563]);
    // Seen at most one pause after the tests exist, with few looks spent on the way.
    expect(clock.now() - readyAt).toBeLessThanOrEqual(2_000);
    expect(probes).toBeLessThanOrEqual(10);
  });
});

describe('CucumberStudio: when a run’s test list is final', () => {
  const test = (id: string, scenarioId: number): Snapshot => ({ id, scenarioName: `Scenario ${scenarioId}`, scenarioId });
  const locked = () => new HttpError('CucumberStudio', 'GET', '/test_runs/5/test_snapshots', 423, {}, '', 'Locked');

  /** Runs waitForTests on scripted answers (a listing, or an error to throw); the last answer repeats. */
  async function waitOn(answers: Array<Snapshot[] | Error>, requested: number[]) {
    const clock = new VirtualClock();
    let calls = 0;
    const index = new TestIndex({
      loadNames: () => Promise.reject(new Error('not needed: the list carries the linkage')),
      lookup: () => Promise.reject(new Error('not needed')),
    });
    const state = await waitForTests(
      {
        runId: 5,
        list: async () => {
          const answer = answers[Math.min(calls++, answers.length - 1)];
          if (answer instanceof Error) throw answer;
          return answer;
        },
        index,
        todo: new Set(requested),
        run: { requested: new Set(requested), absent: new Set(), checkExistence: async () => undefined },
      },
      { timeoutMs: 60_000, clock },
    );
    return { state, calls, index };
  }

  it('a first listing that lands half-way (row a of a dataset scenario only) is not taken: waits until two listings agree', async () => {
    const [a, b, c] = [test('31', 7), test('32', 7), test('33', 7)];
    const { state, calls, index } = await waitOn([[a], [a, b], [a, b, c]], [7]);
    expect(state).toEqual({ listed: true, ready: true });
    expect(index.testsOf(7)).toEqual(['31', '32', '33']);
    expect(calls).toBe(4); // [a], [a,b], [a,b,c], [a,b,c] again: unchanged
  });

  it('a complete first listing costs one more read to confirm it', async () => {
    const { state, calls } = await waitOn([[test('1', 1), test('2', 2)]], [1, 2]);
    expect(state.ready).toBe(true);
    expect(calls).toBe(2);
  });

  it('a 423 between two alike listings breaks the row: the service said it was still generating', async () => {
    const [a, b] = [test('31', 7), test('32', 7)];
    const { index, calls } = await waitOn([[a], locked(), [a], [a, b]], [7]);
    expect(index.testsOf(7)).toEqual(['31', '32']);
    expect(calls).toBe(5); // [a], 423, [a] (first of a new row), [a,b], [a,b] again
  });
});
