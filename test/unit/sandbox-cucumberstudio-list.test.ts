import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postResult, startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';

let h: CsHarness;
beforeAll(async () => {
  h = await startCs();
});
afterAll(() => h.close());
beforeEach(() => {
  h.sandbox.reset();
  h.clock.now = 0;
});

describe('CucumberStudio sandbox: test list with include=scenario', () => {
  it('links every test to its scenario and includes each scenario once', async () => {
    // 11 and 12 share the name "Checkout works": only the linkage tells them apart.
    const run = (await h.createRun({ name: 'R', scenario_ids: [12, 7, 11] })).json.data;
    h.clock.now = 100;
    const r = await h.tests(run.id, '?include=scenario');
    expect(r.status).toBe(200);
    expect(r.json.data.map((t: any) => [t.attributes.name, t.relationships.scenario.data])).toEqual([
      ['Checkout works', { type: 'scenarios', id: '12' }],
      ['Scenario 7 (visa)', { type: 'scenarios', id: '7' }],
      ['Scenario 7 (mastercard)', { type: 'scenarios', id: '7' }],
      ['Checkout works', { type: 'scenarios', id: '11' }],
    ]);
    expect(r.json.included.map((s: any) => [s.type, s.id, s.attributes.name])).toEqual([
      ['scenarios', '12', 'Checkout works'],
      ['scenarios', '7', 'Scenario 7'],
      ['scenarios', '11', 'Checkout works'],
    ]);
    // Only what is named: no dataset linkage, no last result.
    expect(r.json.data[1].relationships.dataset).toEqual({});
    expect(r.json.data[1].relationships['last-result'].data).toBeUndefined();
  });

  it('keeps the documented list without it, and accepts include lists with other names', async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1, 2] })).json.data;
    h.clock.now = 100;
    const plain = await h.tests(run.id);
    expect(plain.json.included).toBeUndefined();
    for (const t of plain.json.data) expect(t.relationships.scenario).toEqual({});
    const mixed = await h.tests(run.id, '?include=tags,scenario');
    expect(mixed.json.data.map((t: any) => t.relationships.scenario.data.id)).toEqual(['1', '2']);
  });

  it('combines with show_step_statuses and is not paginated', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    const run = (await h.createRun({ name: 'All', scenario_ids: ids })).json.data;
    h.clock.now = 100;
    const first = (await h.tests(run.id)).json.data[0];
    await postResult(h, run.id, first.id, { status: 'failed' });
    const r = await h.tests(run.id, '?include=scenario&show_step_statuses=true');
    expect(r.json.data).toHaveLength(22);
    expect(r.json.links?.next).toBeUndefined();
    expect(r.json.data[0].relationships['last-result'].data).toMatchObject({ type: 'test-results' });
    expect(r.json.included.filter((x: any) => x.type === 'scenarios')).toHaveLength(20);
    expect(r.json.included.filter((x: any) => x.type === 'test-results')).toHaveLength(1);
  });

  it('is locked like the plain list while generating (default 423)', async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
    expect((await h.tests(run.id, '?include=scenario')).status).toBe(423);
  });
});
