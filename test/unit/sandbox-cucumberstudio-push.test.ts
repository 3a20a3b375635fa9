import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';
import { cucumberJson, defaultBuild, generatedRun, published, push, raw, testsOf, TOKEN } from './sandbox-cucumberstudio-push-helpers';

let h: CsHarness;
beforeAll(async () => {
  h = await startCs();
});
afterAll(() => h.close());
beforeEach(() => {
  h.sandbox.reset();
  h.clock.now = 0;
  h.module.configure({ publicationWhileGenerating: 'partial', pushFailureText: 'drop', pushUnknownEnvironment: 'refuse', pushFault: null });
});

describe('CucumberStudio sandbox: the secret token', () => {
  it('is numeric and printed with the env; the routes need no header but the token', async () => {
    expect(TOKEN).toMatch(/^\d+$/);
    expect(h.sandbox.env().CUCUMBERSTUDIO_SECRET_TOKEN).toBe(TOKEN);
    const runs = await raw(h, 'GET', `/publication/${TOKEN}/test_runs`);
    expect(runs.status).toBe(200);
    expect(runs.json).toEqual({ test_runs: [] });
  });

  it('a wrong token answers 404 with an empty body on every token route, and is never echoed', async () => {
    const r = await generatedRun(h, [1]);
    for (const token of [`${TOKEN}1`, '123', 'abc', '']) {
      for (const answer of [
        await raw(h, 'GET', `/publication/${token}/test_run/${r.id}`),
        await raw(h, 'GET', `/publication/${token}/test_runs`),
        await push(h, 'cucumber-json', { 'a.json': cucumberJson([{ name: `x (uid:${r.tests[0].uid})`, steps: ['passed'] }]) }, '', token),
      ]) {
        expect(answer.status).toBe(404);
        expect(answer.text).toBe('');
      }
    }
    expect(h.state().testRuns[0].snapshots[0].results).toEqual([]);
  });

  it('opens nothing under /api: the JSON:API still wants its credential headers', async () => {
    expect((await raw(h, 'GET', `/api/projects?token=${TOKEN}`)).status).toBe(401);
  });
});

describe('CucumberStudio sandbox: GET /publication/{token}/test_run/{id}', () => {
  it('lists one testSnapshot per test with its uid; dataset rows carry the row’s uid and name', async () => {
    const r = await generatedRun(h, [1, 7]);
    const xml = (await raw(h, 'GET', `/publication/${TOKEN}/test_run/${r.id}`)).text;
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<project format="0.1">/);
    expect(xml).toContain('<testRun>\n      <name>Nightly</name>');
    expect(r.tests.map((t) => [t.scenarioName, t.datasetName, t.steps])).toEqual([
      ['Scenario 1', null, 3],
      ['Scenario 7', 'visa', 3],
      ['Scenario 7', 'mastercard', 3],
    ]);
    const uids = r.tests.map((t) => t.uid);
    for (const uid of uids) expect(uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(uids).size).toBe(3);
    // The data table pairs each row with its test by datasetUid (the CLI's rule since 2017).
    const rows = [...xml.matchAll(/<dataset><name>(\w+)<\/name><datasetUid>([^<]+)<\/datasetUid>/g)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(r.tests.slice(1).map((t) => [t.datasetName, t.datasetUid]));
    // No numeric ids in the document: the test ids of the JSON:API are not there.
    const ids = (await h.tests(r.id)).json.data.map((t: any) => t.id as string);
    for (const id of ids) expect(xml).not.toContain(`>${id}<`);
  });

  it('uids are stable for a test and new after a reset; an unknown run answers 404 with an empty body', async () => {
    const r = await generatedRun(h, [1]);
    expect(await published(h, r.id)).toEqual(r.tests);
    h.sandbox.reset();
    const again = await generatedRun(h, [1]);
    expect(again.id).toBe(r.id);
    expect(again.tests[0].uid).not.toBe(r.tests[0].uid);
    const unknown = await raw(h, 'GET', `/publication/${TOKEN}/test_run/999`);
    expect([unknown.status, unknown.text]).toEqual([404, '']);
  });

  it('while the tests are generated: the tests so far by default (none at first), or 423 with the switch', async () => {
    const id = (await h.createRun({ name: 'Nightly', scenario_ids: [1, 2, 3, 4] })).json.data.id;
    expect(await published(h, id)).toEqual([]);
    h.clock.now += 50; // half of the 100 ms generation delay: two of four tests exist
    expect((await published(h, id)).map((t) => t.scenarioName)).toEqual(['Scenario 1', 'Scenario 2']);
    h.module.configure({ publicationWhileGenerating: '423' });
    expect((await raw(h, 'GET', `/publication/${TOKEN}/test_run/${id}`)).status).toBe(423);
    h.clock.now += 50;
    expect(await published(h, id)).toHaveLength(4);
  });

  it('filter_status keeps the tests whose latest result has that status', async () => {
    const r = await generatedRun(h, [1, 2]);
    const { build } = await defaultBuild(h, r.id);
    await push(
      h,
      'junit',
      { 'r.xml': `<testsuite><testcase name="a (uid:${r.tests[1].uid})"><failure/></testcase></testsuite>` },
      `?build_id=${build}`,
    );
    const failed = testsOf((await raw(h, 'GET', `/publication/${TOKEN}/test_run/${r.id}?filter_status=failed`)).text);
    expect(failed.map((t) => t.uid)).toEqual([r.tests[1].uid]);
  });
});

describe('CucumberStudio sandbox: POST /import_test_results/{token}/{format}', () => {
  it('cucumber-json lands in the build and environment given, with statuses and step statuses, as the JSON:API stores results', async () => {
    const r = await generatedRun(h, [1, 2, 3, 7]);
    const tr = `/api/projects/1/test_runs/${r.id}`;
    const env = (await h.api('POST', `${tr}/execution_environments`, { data: { attributes: { name: 'chromium' } } })).json.data.id;
    const build = (await h.api('POST', `${tr}/execution_environments/${env}/builds`, { data: { attributes: {} } })).json.data.id;
    const [t1, t2, t3, visa] = r.tests;
    const report = cucumberJson([
      { name: `Scenario 1 (uid:${t1.uid})`, steps: ['passed', 'passed', 'passed'] },
      { name: `Scenario 2 (uid:${t2.uid})`, steps: ['passed', 'failed', 'skipped'], error: 'expected 2 to be 3' },
      { name: `Scenario 3 (uid:${t3.uid})`, steps: ['pending', 'skipped', 'skipped'] },
      { name: `Scenario 7 (uid:${visa.uid.replace(/-/g, '')})`, steps: ['passed', 'undefined', 'skipped'] },
      { name: 'Scenario 9 (no uid)', steps: ['passed'] },
    ]);
    const answer = await push(h, 'cucumber-json', { 'results.json': report }, `?build_id=${build}&execution_environment=chromium`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      test_import: [
        { name: `Scenario 1 (uid:${t1.uid})`, status: 'passed' },
        { name: `Scenario 2 (uid:${t2.uid})`, status: 'failed' },
        { name: `Scenario 3 (uid:${t3.uid})`, status: 'wip' },
        { name: `Scenario 7 (uid:${visa.uid.replace(/-/g, '')})`, status: 'undefined' },
      ],
    });
    const state = h.state();
    expect(state.resultsWithoutBuild).toBe(0);
    const run = state.testRuns[0];
    const chromium = run.environments.find((e: any) => e.name === 'chromium');
    expect(chromium.builds.map((b: any) => [b.id, b.resultIds.length])).toEqual([[Number(build), 4]]);
    const results = run.snapshots.map((s: any) => s.results.map((x: any) => [x.buildId, x.status, x.stepStatuses, x.description]));
    expect(results).toEqual([
      [[Number(build), 'passed', ['passed', 'passed', 'passed'], '']],
      [[Number(build), 'failed', ['passed', 'failed', 'skipped'], '']],
      [[Number(build), 'wip', ['wip', 'skipped', 'skipped'], '']],
      [[Number(build), 'undefined', ['passed', 'undefined', 'skipped'], '']],
      [],
    ]);
    // The JSON:API reads the same results back through the build.
    const readBack = await h.api('GET', `${tr}/builds/${build}?include=test-results`);
    expect(readBack.json.included.map((x: any) => x.attributes.status)).toEqual(['passed', 'failed', 'wip', 'undefined']);
  });

  it('junit sets the test’s status only; the files of one push are read together; an outline row is found by its test uid', async () => {
    const r = await generatedRun(h, [1, 8]);
    const { build } = await defaultBuild(h, r.id);
    const scenarioSnapshotUid = 'fd95588c-5e4e-410b-b14c-f51964cd1715'; // unknown uids in the name are passed over
    const a = `<testsuites><testsuite name="s"><testcase name="testScenario1Uid${r.tests[0].uid.replace(/-/g, '').toUpperCase()}"/></testsuite></testsuites>`;
    const b =
      `<testsuite name="s"><testcase name="Scenario 8 (uid:${scenarioSnapshotUid}) | small | uid:${r.tests[1].uid}"><skipped/></testcase>` +
      `<testcase name="Scenario 8 large _uid${r.tests[2].uid.replace(/-/g, '')}"><error message="boom"/></testcase></testsuite>`;
    const answer = await push(h, 'junit', { 'a.xml': a, 'b.xml': b }, `?build_id=${build}&execution_environment=Default`);
    expect(answer.json.test_import.map((t: any) => t.status)).toEqual(['passed', 'skipped', 'failed']);
    const results = h.state().testRuns[0].snapshots.map((s: any) => s.results.map((x: any) => [x.status, x.stepStatuses, x.stepReading]));
    expect(results).toEqual([[['passed', [], 'none']], [['skipped', [], 'none']], [['failed', [], 'none']]]);
  });

  it('background steps come first in the step statuses; a push while the run generates more tests lands', async () => {
    const r = await generatedRun(h, [1]);
    const { build } = await defaultBuild(h, r.id);
    await h.api('PATCH', `/api/projects/1/test_runs/${r.id}`, { data: { attributes: { scenario_ids: [2] } } });
    h.clock.now += 1000;
    const [, added] = await published(h, r.id);
    await h.api('PATCH', `/api/projects/1/test_runs/${r.id}`, { data: { attributes: { scenario_ids: [3] } } });
    const report = cucumberJson(
      [
        { name: `one (uid:${r.tests[0].uid})`, steps: ['passed', 'failed'] },
        { name: `two (uid:${added.uid})`, steps: ['passed', 'passed'] },
      ],
      ['passed'],
    );
    const answer = await push(h, 'cucumber-json', { 'r.json': report }, `?build_id=${build}`);
    expect(answer.json.test_import.map((t: any) => t.name)).toEqual([`one (uid:${r.tests[0].uid})`, `two (uid:${added.uid})`]);
    const snapshots = h.state().testRuns[0].snapshots;
    expect(snapshots[0].results[0].stepStatuses).toEqual(['passed', 'passed', 'failed']);
    expect(snapshots[1].results[0].status).toBe('passed');
  });

  it('hooks count for the test’s status, not as steps (cucumber-js `hidden` steps, cucumber-jvm `before` / `after`)', async () => {
    const r = await generatedRun(h, [1, 2]);
    const { build } = await defaultBuild(h, r.id);
    const step = (status: string, hidden = false) => ({
      keyword: hidden ? 'After' : 'Given ',
      ...(hidden ? { hidden: true } : {}),
      result: { status },
    });
    const report = JSON.stringify([
      {
        elements: [
          {
            type: 'scenario',
            name: `a (uid:${r.tests[0].uid})`,
            steps: [step('failed', true), step('skipped'), step('skipped'), step('skipped'), step('passed', true)],
          },
          {
            type: 'scenario',
            name: `b (uid:${r.tests[1].uid})`,
            before: [step('passed')],
            steps: [step('passed'), step('passed'), step('passed')],
            after: [step('failed')],
          },
        ],
      },
    ]);
    const answer = await push(h, 'cucumber-json', { 'r.json': report }, `?build_id=${build}`);
    expect(answer.json.test_import.map((t: any) => t.status)).toEqual(['failed', 'failed']);
    const shown = h.state().testRuns[0].snapshots.map((s: any) => s.results[0].stepStatuses);
    expect(shown).toEqual([
      ['skipped', 'skipped', 'skipped'],
      ['passed', 'passed', 'passed'],
    ]);
  });

  it('is counted in the rate limit (200 per minute per IP) like every call', async () => {
    h.sandbox.setFaults('cucumberstudio', { rateLimit: { count: 2, windowMs: 60_000 } });
    try {
      expect((await raw(h, 'GET', `/publication/${TOKEN}/test_runs`)).status).toBe(200);
      expect((await push(h, 'junit', { 'r.xml': '<testsuite/>' })).status).toBe(200);
      const limited = await push(h, 'junit', { 'r.xml': '<testsuite/>' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeTruthy();
      expect(h.sandbox.stats().cucumberstudio.byRoute).toMatchObject({
        'GET /publication/:token/test_runs': 1,
        'POST /import_test_results/:token/:format': 1,
        'rate-limited': 1,
      });
    } finally {
      h.sandbox.setFaults('cucumberstudio', { rateLimit: null });
    }
  });
});
