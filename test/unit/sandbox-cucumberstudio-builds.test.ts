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
  h.module.configure({ buildNames: 'repeat', environmentBuildName: 'ignore', closedBuilds: 'refuse', runLevelBuildsStatus: 422 });
});

/** A run with scenarios 1 and 2, generated; returns the run id and its test ids. */
async function run(): Promise<{ id: string; tests: string[]; tr: string }> {
  const id = (await h.createRun({ name: 'Nightly', scenario_ids: [1, 2] })).json.data.id;
  h.clock.now += 1000;
  const tests = (await h.tests(id)).json.data.map((t: any) => t.id);
  return { id, tests, tr: `/api/projects/1/test_runs/${id}` };
}

const build = (id: string) => ({ build: { data: { type: 'builds', id } } });
const post = (r: { id: string }, test: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  h.api('POST', `/api/projects/1/test_runs/${r.id}/test_snapshots/${test}/test_results`, {
    data: {
      attributes: { status: 'passed', 'status-author': 'ci', description: '', ...attributes },
      ...(relationships ? { relationships } : {}),
    },
  });

describe('CucumberStudio sandbox: execution environments and builds', () => {
  it('a run has its Default environment; environments are created and listed; names are unique (trimmed, any case)', async () => {
    const r = await run();
    const list = await h.api('GET', `${r.tr}/execution_environments`);
    expect(list.status).toBe(200);
    expect(list.json.data.map((e: any) => [e.type, e.attributes.name, e.attributes['test-run-id']])).toEqual([
      ['execution-environments', 'Default', Number(r.id)],
    ]);
    const created = await h.api('POST', `${r.tr}/execution_environments`, { data: { attributes: { name: 'chromium' } } });
    expect(created.status).toBe(201);
    expect(created.json.data.attributes.name).toBe('chromium');
    expect((await h.api('POST', `${r.tr}/execution_environments`, { data: { attributes: { name: ' Chromium ' } } })).status).toBe(422);
    expect((await h.api('POST', `${r.tr}/execution_environments`, { data: { attributes: { name: 'x'.repeat(256) } } })).status).toBe(422);
    expect(h.state().testRuns[0].environments.map((e: any) => e.name)).toEqual(['Default', 'chromium']);
  });

  it('lists an environment’s builds with repeated names; the name sent to the environment route is ignored by default', async () => {
    const r = await run();
    const env = (await h.api('POST', `${r.tr}/execution_environments`, { data: { attributes: { name: 'firefox' } } })).json.data.id;
    const first = await h.api('POST', `${r.tr}/execution_environments/${env}/builds`, { data: { attributes: { name: 'CI 812' } } });
    expect(first.status).toBe(201);
    expect(first.json.data.attributes).toMatchObject({
      name: 'Build 1',
      'is-running': true,
      'closed-at': null,
      'execution-environment-id': Number(env),
    });
    const renamed = await h.api('PATCH', `${r.tr}/builds/${first.json.data.id}`, {
      data: { type: 'builds', attributes: { name: 'CI 812' } },
    });
    expect(renamed.status).toBe(200);
    h.module.configure({ environmentBuildName: 'honour' });
    const second = await h.api('POST', `${r.tr}/execution_environments/${env}/builds`, { data: { attributes: { name: 'CI 812' } } });
    expect(second.status).toBe(201);
    const listed = await h.api('GET', `${r.tr}/execution_environments/${env}/builds`);
    expect(listed.json.data.map((b: any) => [b.id, b.attributes.name])).toEqual([
      [first.json.data.id, 'CI 812'],
      [second.json.data.id, 'CI 812'],
    ]);
    const current = await h.api('GET', `${r.tr}/execution_environments/${env}/builds/current`);
    expect(current.json.data.id).toBe(second.json.data.id);
    // with unique names the duplicate is refused
    h.module.configure({ buildNames: 'unique' });
    expect((await h.api('POST', `${r.tr}/execution_environments/${env}/builds`, { data: { attributes: { name: 'CI 812' } } })).status).toBe(
      422,
    );
  });

  it('stores a result with relationships.build in that build, with its step statuses; a closed build refuses results', async () => {
    const r = await run();
    const b = (await h.api('POST', `${r.tr}/builds`, { data: { attributes: { name: 'CI 812' } } })).json.data;
    expect(b.attributes['execution-environment-id']).toBe(Number(h.state().testRuns[0].environments[0].id));
    const ok = await post(r, r.tests[0], { status: 'failed', 'step-statuses': ['passed', 'failed', 'skipped'] }, build(b.id));
    expect(ok.status).toBe(201);
    expect(ok.json.data.relationships.build.data).toEqual({ type: 'builds', id: b.id });
    const inBuild = await h.api('GET', `${r.tr}/builds/${b.id}?include=test-results`);
    expect(inBuild.json.included.map((x: any) => [x.id, x.attributes.status, x.attributes['step-statuses']])).toEqual([
      [ok.json.data.id, 'failed', ['passed', 'failed', 'skipped']],
    ]);
    const closed = await h.api('POST', `${r.tr}/builds/${b.id}/close`, {});
    expect(closed.status).toBe(200);
    expect(closed.json.data.attributes['is-running']).toBe(false);
    const refused = await post(r, r.tests[1], {}, build(b.id));
    expect(refused.status).toBe(422);
    expect(
      (
        await h.api('POST', `${r.tr}/builds/${b.id}/test_results`, {
          data: {
            attributes: { status: 'passed', 'status-author': 'ci', description: '' },
            relationships: { 'test-snapshot': { data: { type: 'test-snapshots', id: r.tests[1] } } },
          },
        })
      ).status,
    ).toBe(422);
    h.module.configure({ closedBuilds: 'accept' });
    expect((await post(r, r.tests[1], {}, build(b.id))).status).toBe(201);
    const s = h.state();
    expect(s.testRuns[0].environments[0].builds[0]).toMatchObject({
      name: 'CI 812',
      running: false,
      resultIds: [Number(ok.json.data.id), expect.any(Number)],
    });
    expect(s.testRuns[0].snapshots[1].results.map((x: any) => x.buildId)).toEqual([Number(b.id)]);
    expect(s.resultsWithoutBuild).toBe(0);
  });

  it('run-level build routes refuse once the run has a second environment; by-id routes keep working', async () => {
    const r = await run();
    const early = (await h.api('POST', `${r.tr}/builds`, { data: { attributes: { name: 'before' } } })).json.data;
    expect((await h.api('GET', `${r.tr}/builds`)).status).toBe(200);
    await h.api('POST', `${r.tr}/execution_environments`, { data: { attributes: { name: 'webkit' } } });
    expect((await h.api('GET', `${r.tr}/builds`)).status).toBe(422);
    expect((await h.api('POST', `${r.tr}/builds`, { data: { attributes: { name: 'CI 813' } } })).status).toBe(422);
    expect((await h.api('GET', `${r.tr}/builds/current`)).status).toBe(422);
    h.module.configure({ runLevelBuildsStatus: 500 });
    expect((await h.api('GET', `${r.tr}/builds`)).status).toBe(500);
    expect((await h.api('GET', `${r.tr}/builds/${early.id}`)).status).toBe(200);
    expect((await post(r, r.tests[0], {}, build(early.id))).status).toBe(201);
    expect((await h.api('POST', `${r.tr}/builds/${early.id}/close`, {})).status).toBe(200);
    expect(h.state().testRuns[0].environments.map((e: any) => [e.name, e.builds.length])).toEqual([
      ['Default', 1],
      ['webkit', 0],
    ]);
  });

  it('a result posted with no build is stored (build data null) and counted in state and stats', async () => {
    const r = await run();
    expect(h.sandbox.stats().cucumberstudio.counters).toEqual({ resultsWithoutBuild: 0 });
    const r1 = await postResult(h, r.id, r.tests[0], { status: 'failed' });
    expect(r1.status).toBe(201);
    expect(r1.json.data.relationships.build).toEqual({ data: null });
    expect((await post(r, r.tests[1], {}, { build: { data: null } })).status).toBe(201);
    expect(h.state().resultsWithoutBuild).toBe(2);
    expect(h.state().testRuns[0].snapshots[0].results[0]).toMatchObject({ status: 'failed', buildId: null });
    expect(h.sandbox.stats().cucumberstudio.counters).toEqual({ resultsWithoutBuild: 2 });
    h.sandbox.reset();
    expect(h.sandbox.stats().cucumberstudio.counters).toEqual({ resultsWithoutBuild: 0 });
  });

  it('an environment alone targets its current build; a build of another environment is refused; history is per build', async () => {
    const r = await run();
    const env = (await h.api('POST', `${r.tr}/execution_environments`, { data: { attributes: { name: 'chromium' } } })).json.data.id;
    const envRel = { 'execution-environment': { data: { type: 'execution-environments', id: env } } };
    expect((await post(r, r.tests[0], {}, envRel)).status).toBe(422); // no build yet
    const b = (await h.api('POST', `${r.tr}/execution_environments/${env}/builds`, {})).json.data;
    const viaEnv = await post(r, r.tests[0], { status: 'failed' }, envRel);
    expect(viaEnv.json.data.relationships.build.data.id).toBe(b.id);
    const defaultId = String(h.state().testRuns[0].environments[0].id);
    const other = (await h.api('POST', `${r.tr}/execution_environments/${defaultId}/builds`, {})).json.data;
    const mismatch = await post(r, r.tests[1], {}, { ...envRel, ...build(other.id) });
    expect(mismatch.status).toBe(422);
    const history = await h.api('GET', `${r.tr}/build_history`);
    expect(history.json.data.map((x: any) => [x.id, x.platform, x.values.failed, x.values.undefined])).toEqual([
      [Number(other.id), 'Default', 0, 2],
      [Number(b.id), 'chromium', 1, 1],
    ]);
  });
});
