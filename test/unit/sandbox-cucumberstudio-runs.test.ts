import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';

let h: CsHarness;
beforeAll(async () => {
  h = await startCs();
});
afterAll(() => h.close());
beforeEach(() => {
  h.sandbox.reset();
  h.clock.now = 0;
  h.module.configure({ patchRunStatus: 200, patchRunData: 'object', readdScenario: 'skip' });
});

const patch = (runId: string, attributes: Record<string, unknown>) =>
  h.api('PATCH', `/api/projects/1/test_runs/${runId}`, { data: { type: 'test_runs', id: Number(runId), attributes } });

describe('CucumberStudio sandbox: PATCH on a run', () => {
  it('answers 200 with an object by default; the description and its history are in state()', async () => {
    const run = (await h.createRun({ name: 'Nightly', description: 'CI run 812', scenario_ids: [1] })).json.data;
    const r = await patch(run.id, { description: 'CI run 812 (duplicate of a parallel shard)' });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      type: 'test-runs',
      id: run.id,
      attributes: { description: 'CI run 812 (duplicate of a parallel shard)' },
    });
    await patch(run.id, { scenario_id: 2 }); // no description: not a description update
    expect(h.state().testRuns[0]).toMatchObject({
      description: 'CI run 812 (duplicate of a parallel shard)',
      descriptionHistory: ['CI run 812', 'CI run 812 (duplicate of a parallel shard)'],
      scenarioIds: [1, 2],
    });
  });

  it('patchRunStatus / patchRunData vary the answer; the change is applied the same way', async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    h.module.configure({ patchRunStatus: 201, patchRunData: 'array' });
    const r = await patch(run.id, { scenario_ids: [2, 3] });
    expect(r.status).toBe(201);
    expect(Array.isArray(r.json.data)).toBe(true);
    expect(r.json.data).toHaveLength(1);
    expect(r.json.data[0]).toMatchObject({ type: 'test-runs', id: run.id });
    expect(h.state().testRuns[0].scenarioIds).toEqual([1, 2, 3]);
  });

  it("'documented' follows the reference examples: description → 201 object, scenarios → 200 array", async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    h.module.configure({ patchRunStatus: 'documented', patchRunData: 'documented' });
    const desc = await patch(run.id, { description: 'New text' });
    expect(desc.status).toBe(201);
    expect(Array.isArray(desc.json.data)).toBe(false);
    const one = await patch(run.id, { scenario_id: 4 });
    expect(one.status).toBe(200);
    expect(one.json.data[0].type).toBe('test-runs');
    const both = await patch(run.id, { description: 'x', scenario_ids: [5] });
    expect(both.status).toBe(200);
    expect(Array.isArray(both.json.data)).toBe(true);
  });

  it('validation errors do not depend on the answer switches', async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    h.module.configure({ patchRunStatus: 201, patchRunData: 'array' });
    expect((await patch(run.id, { scenario_ids: [999] })).status).toBe(422);
    expect((await patch(run.id, {})).status).toBe(422);
    expect(h.state().testRuns[0].descriptionHistory).toEqual(['']);
  });

  it("re-adding a scenario the run holds: skipped by default, a second set of tests with readdScenario 'duplicate'", async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    // Counted once generated (the clock moved past the generation).
    const testsOf = (sid: number) => {
      h.clock.now += 60_000;
      return h.state().testRuns[0].snapshots.filter((t: { scenarioId: number }) => t.scenarioId === sid).length;
    };
    expect((await patch(run.id, { scenario_ids: [1, 2] })).status).toBe(200);
    expect([testsOf(1), testsOf(2)]).toEqual([1, 1]);
    h.module.configure({ readdScenario: 'duplicate' });
    expect((await patch(run.id, { scenario_ids: [2] })).status).toBe(200);
    expect([testsOf(1), testsOf(2)]).toEqual([1, 2]);
    expect(h.state().testRuns[0].scenarioIds).toEqual([1, 2]);
    expect(() => h.module.configure({ readdScenario: 'twice' as never })).toThrow(/readdScenario must be 'skip' or 'duplicate'/);
  });
});
