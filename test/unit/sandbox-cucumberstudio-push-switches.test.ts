import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCs, type CsHarness } from './sandbox-cucumberstudio-helpers';
import { cucumberJson, defaultBuild, generatedRun, push } from './sandbox-cucumberstudio-push-helpers';

let h: CsHarness;
beforeAll(async () => {
  h = await startCs();
});
afterAll(() => h.close());
beforeEach(() => {
  h.sandbox.reset();
  h.clock.now = 0;
  h.module.configure({ pushFailureText: 'drop', pushUnknownEnvironment: 'refuse', pushFault: null, closedBuilds: 'refuse' });
});

const failing = (uid: string) =>
  cucumberJson([{ name: `Pay (uid:${uid})`, steps: ['passed', 'failed', 'skipped'], error: 'expected 2 to be 3' }]);
const results = () => h.state().testRuns.flatMap((r: any) => r.snapshots.flatMap((s: any) => s.results));

describe('CucumberStudio sandbox push: switches for what is not known', () => {
  it('pushFailureText: the failure text is dropped by default, carried as the description with carry', async () => {
    const r = await generatedRun(h, [1]);
    const { build } = await defaultBuild(h, r.id);
    await push(h, 'cucumber-json', { 'r.json': failing(r.tests[0].uid) }, `?build_id=${build}`);
    h.module.configure({ pushFailureText: 'carry' });
    await push(h, 'cucumber-json', { 'r.json': failing(r.tests[0].uid) }, `?build_id=${build}`);
    const junit = `<testsuite><testcase name="Pay (uid:${r.tests[0].uid})"><failure message="boom">at line 3</failure></testcase></testsuite>`;
    await push(h, 'junit', { 'r.xml': junit }, `?build_id=${build}`);
    expect(results().map((x: any) => [x.status, x.description])).toEqual([
      ['failed', ''],
      ['failed', 'expected 2 to be 3'],
      ['failed', 'boom\nat line 3'],
    ]);
  });

  it('pushUnknownEnvironment: an environment the run lacks is refused (422, nothing stored) by default, created with create', async () => {
    const r = await generatedRun(h, [1]);
    const refused = await push(h, 'cucumber-json', { 'r.json': failing(r.tests[0].uid) }, '?execution_environment=firefox');
    expect(refused.status).toBe(422);
    expect(refused.text).toBe(`Test run ${r.id} has no execution environment named "firefox"`);
    expect(results()).toEqual([]);
    expect(h.state().testRuns[0].environments.map((e: any) => e.name)).toEqual(['Default']);

    h.module.configure({ pushUnknownEnvironment: 'create' });
    const created = await push(
      h,
      'cucumber-json',
      { 'r.json': failing(r.tests[0].uid) },
      '?execution_environment=firefox&build_name=CI%20812',
    );
    expect(created.status).toBe(200);
    const environments = h.state().testRuns[0].environments;
    expect(environments.map((e: any) => [e.name, e.builds.map((b: any) => [b.name, b.resultIds.length])])).toEqual([
      ['Default', []],
      ['firefox', [['CI 812', 1]]],
    ]);
    expect(results()[0].buildId).toBe(environments[1].builds[0].id);
  });

  it('without build_id every push opens a new build (in Default when no environment is named)', async () => {
    const r = await generatedRun(h, [1]);
    await push(h, 'cucumber-json', { 'r.json': failing(r.tests[0].uid) });
    await push(h, 'cucumber-json', { 'r.json': failing(r.tests[0].uid) });
    const builds = h.state().testRuns[0].environments[0].builds;
    expect(builds.map((b: any) => [b.name, b.resultIds.length])).toEqual([
      ['Build 1', 1],
      ['Build 2', 1],
    ]);
    expect(h.state().resultsWithoutBuild).toBe(0);
  });

  it('pushFault before-applying: 500 and nothing stored; after-applying: 500 and everything stored; `times` bounds it', async () => {
    const r = await generatedRun(h, [1, 2]);
    const { build } = await defaultBuild(h, r.id);
    const report = cucumberJson(r.tests.map((t) => ({ name: `T (uid:${t.uid})`, steps: ['passed', 'passed', 'passed'] })));
    h.module.configure({ pushFault: { when: 'before-applying' } });
    for (let i = 0; i < 2; i++) expect((await push(h, 'cucumber-json', { 'r.json': report }, `?build_id=${build}`)).status).toBe(500);
    expect(results()).toEqual([]);

    h.module.configure({ pushFault: { when: 'after-applying', times: 1 } });
    const applied = await push(h, 'cucumber-json', { 'r.json': report }, `?build_id=${build}`);
    expect(applied.status).toBe(500);
    expect(results().map((x: any) => [x.status, x.buildId])).toEqual([
      ['passed', Number(build)],
      ['passed', Number(build)],
    ]);
    // The next push is answered again; the build holds both pushes (a client that re-sends duplicates them).
    expect((await push(h, 'cucumber-json', { 'r.json': report }, `?build_id=${build}`)).status).toBe(200);
    expect(h.state().testRuns[0].environments[0].builds[0].resultIds).toHaveLength(4);
    expect(h.sandbox.stats().cucumberstudio.byRoute).toMatchObject({
      'POST /import_test_results/:token/:format (500 before applying)': 2,
      'POST /import_test_results/:token/:format (applied, then 500)': 1,
    });
  });

  it('rejects bad switch values without applying them', () => {
    expect(() => h.module.configure({ pushFault: { when: 'sometimes' } as never })).toThrow(/pushFault must be/);
    expect(() => h.module.configure({ pushFault: { when: 'after-applying', times: 0 } })).toThrow(/pushFault must be/);
    expect(() => h.module.configure({ publicationWhileGenerating: 'mixed' as never })).toThrow(/publicationWhileGenerating/);
    expect(h.module.settings().pushFault).toBeNull();
  });
});

describe('CucumberStudio sandbox push: refusals (nothing is stored)', () => {
  it('an unknown format answers 422 with the service’s list; a format the sandbox does not read answers 501', async () => {
    const unknown = await push(h, 'jsonb', { 'r.json': '[]' });
    expect(unknown.status).toBe(422);
    expect(unknown.text).toBe(
      'Unknown format jsonb. Available formats are:\n - android-studio\n - cucumber-json\n - junit\n - mstest\n - nunit\n - robot\n - tap',
    );
    expect((await push(h, 'tap', { 'r.tap': 'ok 1 - a' })).status).toBe(501);
  });

  it('refuses build_id with build_name, an unknown or closed build, another environment than the build’s, unreadable files', async () => {
    const r = await generatedRun(h, [1]);
    const { build } = await defaultBuild(h, r.id);
    const body = { 'r.json': failing(r.tests[0].uid) };
    const answers = [
      await push(h, 'cucumber-json', body, `?build_id=${build}&build_name=x`),
      await push(h, 'cucumber-json', body, '?build_id=999'),
      await push(h, 'cucumber-json', body, `?build_id=${build}&execution_environment=firefox`),
      await push(h, 'cucumber-json', { 'good.json': failing(r.tests[0].uid), 'bad.json': '{not json' }, `?build_id=${build}`),
      await push(h, 'junit', { 'r.xml': '<nothing/>' }, `?build_id=${build}`),
      await push(h, 'cucumber-json', {}, `?build_id=${build}`),
    ];
    expect(answers.map((a) => a.status)).toEqual([422, 422, 422, 422, 422, 422]);
    expect(answers[3].text).toMatch(/^bad\.json is not a cucumber-json report: not JSON/);
    await h.api('POST', `/api/projects/1/test_runs/${r.id}/builds/${build}/close`);
    const closed = await push(h, 'cucumber-json', body, `?build_id=${build}`);
    expect([closed.status, closed.text]).toEqual([422, `Build ${build} is closed: it takes no more results`]);
    expect(results()).toEqual([]);
    h.module.configure({ closedBuilds: 'accept' });
    expect((await push(h, 'cucumber-json', body, `?build_id=${build}`)).status).toBe(200);
  });

  it('with build_id, tests of another run are not imported; without, each run touched gets its own build', async () => {
    const a = await generatedRun(h, [1]);
    const b = await generatedRun(h, [2]);
    const { build } = await defaultBuild(h, a.id);
    const report = cucumberJson([a, b].map((r) => ({ name: `T (uid:${r.tests[0].uid})`, steps: ['passed', 'passed', 'passed'] })));
    const one = await push(h, 'cucumber-json', { 'r.json': report }, `?build_id=${build}`);
    expect(one.json.test_import.map((t: any) => t.name)).toEqual([`T (uid:${a.tests[0].uid})`]);
    const both = await push(h, 'cucumber-json', { 'r.json': report });
    expect(both.json.test_import).toHaveLength(2);
    const builds = h.state().testRuns.map((r: any) => r.environments[0].builds.map((x: any) => x.resultIds.length));
    expect(builds).toEqual([[1, 1], [1]]);
  });
});
