import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCucumberStudioModule } from '../../src/sandbox/cucumberstudio';
import { startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';

describe('CucumberStudio sandbox: large projects', () => {
  let small: CsHarness;
  let large: CsHarness;
  beforeAll(async () => {
    small = await startCs({ scenarioCount: 20 });
    large = await startCs({ scenarioCount: 20_000 });
  });
  afterAll(async () => {
    await small.close();
    await large.close();
  });

  it('a client that lists the scenarios of a 20,000-scenario project downloads megabytes', async () => {
    const list = await large.api('GET', '/api/projects/1/scenarios');
    expect(list.json.data).toHaveLength(20_000);
    expect(Buffer.byteLength(list.text)).toBeGreaterThan(10_000_000);
    const last = list.json.data[19_999];
    expect(last).toMatchObject({ type: 'scenarios', id: '20000', attributes: { name: 'Scenario 20000', 'folder-id': 1 } });
    // Realistic attributes: a description that varies and a definition that spells the steps out.
    const descriptions = new Set(list.json.data.slice(0, 50).map((s: any) => s.attributes.description));
    expect(descriptions.size).toBeGreaterThan(10);
    expect(last.attributes.description).toMatch(/WEB-21000/);
    expect(last.attributes.definition.split('\n').filter((l: string) => l.trim().startsWith('step {'))).toHaveLength(3);
  });

  it('checking a few scenario ids (#16 GET one scenario) costs the same whatever the project size', async () => {
    for (const id of [1, 7, 12, 20]) {
      const a = await small.api('GET', `/api/projects/1/scenarios/${id}`);
      const b = await large.api('GET', `/api/projects/1/scenarios/${id}`);
      expect(a.status).toBe(200);
      expect(b.text).toBe(a.text);
      expect(Buffer.byteLength(b.text)).toBeLessThan(1500);
    }
    expect((await large.api('GET', '/api/projects/1/scenarios/20001')).status).toBe(404);
    expect((await large.api('GET', '/api/projects/1/scenarios/0')).status).toBe(404);
    expect((await small.api('GET', '/api/projects/1/scenarios/21')).status).toBe(404);
  });
});

describe('CucumberStudio sandbox: scenario steps', () => {
  let h: CsHarness;
  beforeAll(async () => {
    h = await startCs({ scenarioSteps: { 3: 5, 4: [1, 2, 1], 5: 0, 7: 2 } });
  });
  afterAll(() => h.close());

  it('tests list their steps in definition-json.steps, action words expanded', async () => {
    const run = (await h.createRun({ name: 'R', scenario_ids: [1, 3, 4, 5, 7] })).json.data;
    h.clock.now = 100;
    const steps = Object.fromEntries(
      (await h.tests(run.id)).json.data.map((t: any) => [t.attributes.name, t.attributes['definition-json'].steps]),
    );
    expect(steps['Scenario 1']).toEqual([
      { action: 'Given the web shop is open' },
      { action: 'When scenario 1 is exercised' },
      { result: 'Then scenario 1 succeeds' },
    ]);
    expect(steps['Scenario 3']).toHaveLength(5);
    expect(steps['Scenario 3'].map((s: object) => Object.keys(s)[0])).toEqual(['action', 'action', 'action', 'action', 'result']);
    expect(steps['Scenario 4']).toEqual([
      { action: 'Given the web shop is open' },
      { action: 'When the shopper completes stage 2: part 1 of 2' },
      { action: 'When the shopper completes stage 2: part 2 of 2' },
      { result: 'Then scenario 4 succeeds' },
    ]);
    expect(steps['Scenario 5']).toEqual([]);
    expect(steps['Scenario 7 (visa)']).toEqual([{ action: 'Given the web shop is open' }, { result: 'Then scenario 7 succeeds' }]);
  });

  it('the scenario definition shows the call to the action word', async () => {
    const s = (await h.api('GET', '/api/projects/1/scenarios/4')).json.data.attributes.definition;
    expect(s).toBe(
      "scenario 'Scenario 4' do\n" +
        '  step {action: "Given the web shop is open"}\n' +
        "  call when 'the shopper completes stage 2'\n" +
        '  step {result: "Then scenario 4 succeeds"}\n' +
        'end\n',
    );
  });

  it('rejects bad step plans at creation', () => {
    expect(() => createCucumberStudioModule({ scenarioSteps: { 3: -1 } })).toThrow(/scenarioSteps\[3\]/);
    expect(() => createCucumberStudioModule({ scenarioSteps: { 3: [1, 0] } })).toThrow(/scenarioSteps\[3\]/);
    expect(() => createCucumberStudioModule({ defaultSteps: 2.5 })).toThrow(/defaultSteps/);
  });
});
