import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mapStepStatuses } from '../../src/sandbox/cucumberstudio/step-statuses';
import { postResult, startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';

describe('step-statuses mapping (spec §3.13 vectors)', () => {
  const [p, f, s, u, w] = ['passed', 'failed', 'skipped', 'undefined', 'wip'];
  it('C = 2 top-level steps, each a 2-step action word (T = 4)', () => {
    const plan = [2, 2];
    expect(mapStepStatuses(plan, [p, f])).toEqual({ shown: [p, p, f, f], reading: 'scenario-level', unknown: [] });
    expect(mapStepStatuses(plan, [p]).shown).toEqual([p, p]);
    expect(mapStepStatuses(plan, [p, f, s]).shown).toEqual([p, p, f, f]);
    expect(mapStepStatuses(plan, [p, f, s, s, w])).toEqual({ shown: [p, f, s, s], reading: 'test-level', unknown: [] });
  });
  it('plain steps: a short array is shown as sent, unknown values become undefined, non-arrays nothing', () => {
    expect(mapStepStatuses([1, 1, 1], [p, f]).shown).toEqual([p, f]);
    expect(mapStepStatuses([1, 1, 1], [p, 'ok', 3])).toEqual({ shown: [p, u, u], reading: 'test-level', unknown: ['ok', 3] });
    expect(mapStepStatuses([1, 1], 'passed')).toEqual({ shown: [], reading: 'none', unknown: [] });
    expect(mapStepStatuses([], [p])).toEqual({ shown: [], reading: 'test-level', unknown: [] });
  });
});

describe('CucumberStudio sandbox: results with step-statuses', () => {
  let h: CsHarness;
  let runId: string;
  let tests: Record<string, string>;
  beforeAll(async () => {
    h = await startCs({ scenarioSteps: { 2: [1, 2, 1], 3: 4 } });
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    h.sandbox.reset();
    h.clock.now = 0;
    h.module.configure({ strictStepStatuses: false });
    runId = (await h.createRun({ name: 'R', scenario_ids: [1, 2, 3] })).json.data.id;
    h.clock.now = 100;
    tests = Object.fromEntries((await h.tests(runId)).json.data.map((t: any) => [t.attributes.name, t.id]));
  });

  const resultsOf = (name: string) => h.state().testRuns[0].snapshots.find((s: any) => s.name === name);

  it('one status per step is stored and shown as sent; extra ones are dropped', async () => {
    const exact = await postResult(h, runId, tests['Scenario 3'], {
      status: 'failed',
      'step-statuses': ['passed', 'passed', 'failed', 'skipped'],
    });
    expect(exact.json.data.attributes['step-statuses']).toEqual(['passed', 'passed', 'failed', 'skipped']);
    const long = await postResult(h, runId, tests['Scenario 1'], { 'step-statuses': ['passed', 'passed', 'passed', 'passed', 'passed'] });
    expect(long.json.data.attributes['step-statuses']).toEqual(['passed', 'passed', 'passed']);
    expect(resultsOf('Scenario 3')).toMatchObject({ stepCount: 4, results: [{ stepReading: 'test-level', unknownStepStatuses: [] }] });
    expect(resultsOf('Scenario 1').results[0]).toMatchObject({
      stepStatuses: ['passed', 'passed', 'passed'],
      stepStatusesSent: ['passed', 'passed', 'passed', 'passed', 'passed'],
      stepReading: 'test-level',
    });
  });

  it('a shorter array is read per scenario step: over an action word it is expanded, not aligned', async () => {
    // Scenario 2: Given, a 2-step action word, Then (T = 4, C = 3). Three statuses "per Playwright step" are
    // read per scenario step: the action word's two steps both take the second value.
    const r = await postResult(h, runId, tests['Scenario 2'], { status: 'failed', 'step-statuses': ['passed', 'failed', 'skipped'] });
    expect(r.json.data.attributes['step-statuses']).toEqual(['passed', 'failed', 'failed', 'skipped']);
    expect(resultsOf('Scenario 2').results[0]).toMatchObject({
      stepReading: 'scenario-level',
      stepStatusesSent: ['passed', 'failed', 'skipped'],
    });
    // Plain steps: a short array is shown as is, the rest stays implicitly undefined (not padded).
    const short = await postResult(h, runId, tests['Scenario 3'], { 'step-statuses': ['passed'] });
    expect(short.json.data.attributes['step-statuses']).toEqual(['passed']);
    expect(resultsOf('Scenario 3').results[0].stepReading).toBe('scenario-level');
  });

  it('unknown values are stored as undefined and listed in state(); strictStepStatuses answers 422 instead', async () => {
    const r = await postResult(h, runId, tests['Scenario 1'], { 'step-statuses': ['passed', 'PASS', null] });
    expect(r.status).toBe(201);
    expect(r.json.data.attributes['step-statuses']).toEqual(['passed', 'undefined', 'undefined']);
    expect(resultsOf('Scenario 1').results[0].unknownStepStatuses).toEqual(['PASS', null]);
    const notArray = await postResult(h, runId, tests['Scenario 1'], { 'step-statuses': 'passed' });
    expect(notArray.json.data.attributes['step-statuses']).toEqual([]);
    expect(resultsOf('Scenario 1').results[1]).toMatchObject({ stepReading: 'none', stepStatusesSent: 'passed' });
    const none = await postResult(h, runId, tests['Scenario 1'], {});
    expect(resultsOf('Scenario 1').results[2]).not.toHaveProperty('stepStatusesSent');
    expect(none.json.data.attributes['step-statuses']).toEqual([]);

    h.module.configure({ strictStepStatuses: true });
    const strict = await postResult(h, runId, tests['Scenario 1'], { 'step-statuses': ['passed', 'PASS'] });
    expect(strict.status).toBe(422);
    expect(strict.json.errors[0].detail).toContain('"PASS" at 1');
    expect((await postResult(h, runId, tests['Scenario 1'], { 'step-statuses': 'passed' })).status).toBe(422);
    expect((await postResult(h, runId, tests['Scenario 1'], { 'step-statuses': ['passed', 'wip'] })).status).toBe(201);
    expect(resultsOf('Scenario 1').results).toHaveLength(4);
  });

  it('the test list with show_step_statuses shows them on the last result', async () => {
    await postResult(h, runId, tests['Scenario 2'], { 'step-statuses': ['passed', 'failed', 'failed', 'skipped'] });
    const list = await h.tests(runId, '?show_step_statuses=true');
    expect(list.json.included).toEqual([
      expect.objectContaining({ attributes: expect.objectContaining({ 'step-statuses': ['passed', 'failed', 'failed', 'skipped'] }) }),
    ]);
  });
});
