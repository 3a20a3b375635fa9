import { afterEach, describe, expect, it } from 'vitest';
import { postResult, startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';

let h: CsHarness;
afterEach(() => h?.close());

const COUNTERS = { passed: 0, failed: 0, retest: 0, undefined: 0, blocked: 0, skipped: 0, wip: 0 };

describe('CucumberStudio sandbox: generationAnswer', () => {
  it('defaults to the documented 423 and to statuses that appear as soon as the tests exist', async () => {
    h = await startCs();
    expect(h.module.settings()).toMatchObject({ generationAnswer: '423', statusesLagMs: null, generationDelayMs: 100 });
    const run = (await h.createRun({ name: 'R', scenario_ids: [1, 2, 3, 4] })).json.data;
    h.clock.now = 99;
    expect((await h.tests(run.id)).status).toBe(423);
    h.clock.now = 100;
    expect((await h.tests(run.id)).json.data).toHaveLength(4);
    expect((await h.api('GET', `/api/projects/1/test_runs/${run.id}`)).json.data.attributes.statuses).toEqual({
      ...COUNTERS,
      undefined: 4,
    });
  });

  it("'partial' answers 200 with the tests generated so far: none at first, then a growing prefix", async () => {
    h = await startCs({ generationAnswer: 'partial' });
    const run = (await h.createRun({ name: 'R', scenario_ids: [1, 2, 3, 4] })).json.data;
    expect(run.attributes.statuses).toEqual({});
    const names = async () => {
      const r = await h.tests(run.id);
      expect(r.status).toBe(200);
      return r.json.data.map((t: any) => t.attributes.name);
    };
    expect(await names()).toEqual([]);
    h.clock.now = 50;
    expect(await names()).toEqual(['Scenario 1', 'Scenario 2']);
    expect(h.state().testRuns[0]).toMatchObject({ generating: true, statuses: {} });
    expect(h.state().testRuns[0].snapshots).toHaveLength(2);

    // A test that exists can be read and can take a result; one not generated yet is unknown.
    const ids = h.state().testRuns[0].snapshots.map((s: any) => String(s.id));
    expect((await h.api('GET', `/api/projects/1/test_runs/${run.id}/test_snapshots/${ids[0]}`)).status).toBe(200);
    expect((await postResult(h, run.id, ids[1], { status: 'failed' })).status).toBe(201);
    const notYet = Number(ids[1]) + 1;
    expect((await h.api('GET', `/api/projects/1/test_runs/${run.id}/test_snapshots/${notYet}`)).status).toBe(404);

    h.clock.now = 100;
    expect(await names()).toEqual(['Scenario 1', 'Scenario 2', 'Scenario 3', 'Scenario 4']);
    // Generation is over, yet the counters stay {} for the lag (default: the generation delay).
    expect(h.state().testRuns[0]).toMatchObject({ generating: false, statuses: {} });
    h.clock.now = 199;
    expect((await h.api('GET', `/api/projects/1/test_runs/${run.id}`)).json.data.attributes.statuses).toEqual({});
    h.clock.now = 200;
    expect((await h.api('GET', `/api/projects/1/test_runs/${run.id}`)).json.data.attributes.statuses).toEqual({
      ...COUNTERS,
      failed: 1,
      undefined: 3,
    });
  });

  it("'partial' after PATCH: the old tests stay listed, the new ones appear over the delay", async () => {
    h = await startCs({ generationAnswer: 'partial', statusesLagMs: 0 });
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    h.clock.now = 100;
    await h.api('PATCH', `/api/projects/1/test_runs/${run.id}`, { data: { attributes: { scenario_ids: [2, 3] } } });
    expect((await h.tests(run.id)).json.data).toHaveLength(1);
    h.clock.now = 150;
    expect((await h.tests(run.id)).json.data).toHaveLength(2);
    h.clock.now = 200;
    expect((await h.tests(run.id)).json.data).toHaveLength(3);
  });

  it("'mixed' draws 423 or a partial list per request, the same sequence for the same seed", async () => {
    const sequence = async (seed: number, fresh = true) => {
      if (fresh) {
        await h?.close();
        h = await startCs({ generationAnswer: 'mixed', seed });
      }
      h.clock.now = 0;
      const run = (await h.createRun({ name: 'R', scenario_ids: [1, 2] })).json.data;
      h.clock.now = 50;
      const out: string[] = [];
      for (let i = 0; i < 16; i++) {
        const r = await h.tests(run.id);
        out.push(r.status === 200 ? `200:${r.json.data.length}` : String(r.status));
      }
      h.clock.now = 100;
      expect((await h.tests(run.id)).status).toBe(200); // generated: never 423 again
      return out;
    };
    const first = await sequence(7);
    expect(new Set(first)).toEqual(new Set(['423', '200:1']));
    expect(await sequence(7)).toEqual(first);
    h.sandbox.reset(); // re-seeds: the same scenario replays the same answers
    expect(await sequence(7, false)).toEqual(first);
    expect(await sequence(8)).not.toEqual(first);
  });

  it('statuses stay {} after a description update for the lag', async () => {
    h = await startCs({ generationAnswer: 'partial', statusesLagMs: 30 });
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    h.clock.now = 130;
    const path = `/api/projects/1/test_runs/${run.id}`;
    expect((await h.api('GET', path)).json.data.attributes.statuses).toEqual({ ...COUNTERS, undefined: 1 });
    const patched = await h.api('PATCH', path, { data: { attributes: { description: 'duplicate of shard 2' } } });
    expect(patched.json.data.attributes.statuses).toEqual({});
    h.clock.now = 160;
    expect((await h.api('GET', path)).json.data.attributes.statuses).toEqual({ ...COUNTERS, undefined: 1 });
  });
});

describe('CucumberStudio sandbox: run-time settings', () => {
  it('configure() switches the answer of a running sandbox and rejects bad patches whole', async () => {
    h = await startCs();
    const run = (await h.createRun({ name: 'R', scenario_ids: [1, 2] })).json.data;
    expect((await h.tests(run.id)).status).toBe(423);
    expect(h.module.configure({ generationAnswer: 'partial' }).generationAnswer).toBe('partial');
    expect((await h.tests(run.id)).status).toBe(200);
    expect(() => h.module.configure({ generationAnswer: 'sometimes' as any })).toThrow(
      /generationAnswer must be '423', 'partial', 'mixed'/,
    );
    expect(() => h.module.configure({ generationAnswr: '423' } as any)).toThrow(/unknown setting "generationAnswr"/);
    expect(() => h.module.configure({ statusesLagMs: 5, seed: 1.5 })).toThrow(/seed/);
    expect(h.module.settings()).toMatchObject({ generationAnswer: 'partial', statusesLagMs: null, seed: 1 });
    // Settings survive a reset, like the core's fault switches.
    h.sandbox.reset();
    expect(h.module.settings().generationAnswer).toBe('partial');
  });

  it('rejects bad settings at creation', async () => {
    const { createCucumberStudioModule } = await import('../../src/sandbox/cucumberstudio');
    expect(() => createCucumberStudioModule({ errorBodyStyle: 'xml' as any })).toThrow(/errorBodyStyle/);
    expect(() => createCucumberStudioModule({ generationDelayMs: -1 })).toThrow(/generationDelayMs/);
  });
});
