import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createCucumberStudioModule, CUCUMBERSTUDIO_DEFAULTS } from '../../src/sandbox/cucumberstudio';

const ACCEPT = 'application/vnd.api+json; version=1';
const AUTH = {
  uid: CUCUMBERSTUDIO_DEFAULTS.uid,
  'access-token': CUCUMBERSTUDIO_DEFAULTS.accessToken,
  client: CUCUMBERSTUDIO_DEFAULTS.client,
};
const HEADERS: Record<string, string> = { ...AUTH, accept: ACCEPT, 'content-type': 'application/json' };

let sandbox: RunningSandbox;
/** Controlled clock for generation state: tests advance it instead of sleeping. */
let clock = 0;

interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = HEADERS): Promise<Answer> {
  const res = await fetch(sandbox.origin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

async function createRun(attributes: Record<string, unknown>): Promise<Answer> {
  return api('POST', '/api/projects/1/test_runs', { data: { attributes } });
}

function state(): any {
  return sandbox.state().cucumberstudio;
}

beforeAll(async () => {
  sandbox = await startSandboxCore([createCucumberStudioModule({ scenarioCount: 20, generationDelayMs: 100, now: () => clock })], {});
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

describe('CucumberStudio sandbox: headers', () => {
  it('exposes the reporter env', () => {
    const env = sandbox.env();
    expect(env).toMatchObject({
      CUCUMBERSTUDIO_BASE_URL: sandbox.origin,
      CUCUMBERSTUDIO_UID: 'ci-bot@example.com',
      CUCUMBERSTUDIO_PROJECT_ID: '1',
    });
    expect(env.CUCUMBERSTUDIO_ACCESS_TOKEN).toHaveLength(22);
    expect(env.CUCUMBERSTUDIO_CLIENT).toHaveLength(22);
  });

  it('answers 401 on missing or wrong credentials, without echoing the token', async () => {
    const missing = await api('GET', '/api/projects', undefined, { accept: ACCEPT, uid: AUTH.uid, client: AUTH.client });
    expect(missing.status).toBe(401);
    expect(missing.json.errors[0]).toMatchObject({ status: '401', title: 'Unauthorized' });
    expect(missing.json.errors[0].detail).toContain('access-token');
    const wrong = await api('GET', '/api/projects', undefined, { ...HEADERS, 'access-token': 'not-the-right-token-xyz' });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.json)).not.toContain('not-the-right-token-xyz');
    expect(wrong.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(sandbox.stats().cucumberstudio.byRoute.auth).toBe(2);
  });

  it('answers 406 without the versioned Accept header and tolerates spacing/case', async () => {
    const { accept: _a, ...noAccept } = HEADERS;
    for (const h of [noAccept, { ...HEADERS, accept: 'application/json' }, { ...HEADERS, accept: 'application/vnd.api+json; version=2' }]) {
      const r = await api('GET', '/api/projects', undefined, h);
      expect(r.status).toBe(406);
      expect(r.json.errors[0].detail).toContain('application/vnd.api+json; version=1');
    }
    const relaxed = await api('GET', '/api/projects/', undefined, { ...HEADERS, accept: 'Application/VND.API+JSON;Version = 1' });
    expect(relaxed.status).toBe(200);
  });

  it('sets JSON:API content type and a one-year expiry; projects and 404s', async () => {
    const r = await api('GET', '/api/projects');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/vnd.api+json');
    const expiry = Number(r.headers.get('expiry'));
    expect(expiry - Date.now() / 1000).toBeGreaterThan(364 * 86400);
    expect(r.json.data).toEqual([
      expect.objectContaining({ type: 'projects', id: '1', attributes: expect.objectContaining({ name: 'Web shop' }) }),
    ]);
    const one = await api('GET', '/api/projects/1');
    expect(Array.isArray(one.json.data)).toBe(false);
    expect((await api('GET', '/api/projects/2')).status).toBe(404);
    expect((await api('GET', '/api/projects/1/test_runs/999')).status).toBe(404);
    const unknown = await api('GET', '/api/nothing/here');
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0].status).toBe('404');
  });

  it('lists scenarios, with duplicate names and datasets', async () => {
    const list = await api('GET', '/api/projects/1/scenarios');
    expect(list.json.data).toHaveLength(20);
    const names = list.json.data.map((s: any) => s.attributes.name);
    expect(names[0]).toBe('Scenario 1');
    expect(names.filter((n: string) => n === 'Checkout works')).toHaveLength(2);
    expect(list.json.data[0].attributes['folder-id']).toBeTypeOf('number');
    const ds = await api('GET', '/api/projects/1/scenarios/7/datasets');
    expect(ds.json.data.map((d: any) => d.attributes.name)).toEqual(['visa', 'mastercard']);
    expect((await api('GET', '/api/projects/1/scenarios/21')).status).toBe(404);
  });
});

describe('CucumberStudio sandbox: test runs and tests', () => {
  it('refuses an empty scenario_ids (not documented); external without it is the documented empty run', async () => {
    const empty = await createRun({ name: 'Empty', scenario_ids: [] });
    expect(empty.status).toBe(422);
    expect(JSON.stringify(empty.json)).toContain('external: true');
    const external = await createRun({ name: 'External', external: true });
    expect(external.status).toBe(201);
    expect(external.json.data.attributes.external).toBe(true);
  });

  it('creates a run with scenario_ids: statuses {} and 423 until generated, then tests without scenario linkage', async () => {
    const created = await createRun({ name: 'Nightly 1', description: 'd', scenario_ids: [1, '7', 11] });
    expect(created.status).toBe(201);
    const run = created.json.data;
    expect(run).toMatchObject({ type: 'test-runs', attributes: { name: 'Nightly 1', statuses: {}, archived: false, external: false } });
    const list = `/api/projects/1/test_runs/${run.id}/test_snapshots`;
    const early = await api('GET', list);
    expect(early.status).toBe(423);
    expect(early.json.errors[0].status).toBe('423');
    expect(sandbox.stats().cucumberstudio.byRoute['GET /projects/:pid/test_runs/:trid/test_snapshots']).toBe(1);
    expect(state().testRuns[0]).toMatchObject({ generating: true, statuses: {}, snapshots: [], scenarioIds: [1, 7, 11] });

    clock += 100;
    const after = await api('GET', `/api/projects/1/test_runs/${run.id}`);
    expect(after.json.data.attributes.statuses).toEqual({ passed: 0, failed: 0, retest: 0, undefined: 4, blocked: 0, skipped: 0, wip: 0 });
    const tests = await api('GET', `${list}/`);
    expect(tests.status).toBe(200);
    expect(tests.json.data).toHaveLength(4);
    const names = tests.json.data.map((t: any) => t.attributes.name);
    expect(names).toEqual(['Scenario 1', 'Scenario 7 (visa)', 'Scenario 7 (mastercard)', 'Checkout works']);
    for (const t of tests.json.data) {
      expect(t.type).toBe('test-snapshots');
      expect(t.relationships.scenario).toEqual({});
      expect(t.relationships['last-result'].links.self).toBe(`/test-snapshots/${t.id}/relationships/last-result`);
      expect(t.attributes.status).toBe('undefined');
      expect(Number.isInteger(t.attributes['scenario-snapshot-id'])).toBe(true);
    }
    const visa = tests.json.data[1];
    expect(visa.attributes['definition-json']).toMatchObject({ scenario_name: 'Scenario 7', dataset_name: 'visa', index: 0 });
    expect(visa.attributes['scenario-snapshot-id']).not.toBe(7);
    expect(tests.json.data[2].attributes['scenario-snapshot-id']).toBe(visa.attributes['scenario-snapshot-id']);

    const single = await api('GET', `${list}/${tests.json.data[3].id}?include=scenario,last-result`);
    expect(single.json.data.relationships.scenario.data).toEqual({ type: 'scenarios', id: '11' });
    expect(single.json.data.relationships['last-result'].data).toBeNull();
    expect(single.json.included).toEqual([expect.objectContaining({ type: 'scenarios', id: '11' })]);
    const withDataset = await api('GET', `${list}/${visa.id}?include=dataset`);
    expect(withDataset.json.data.relationships.dataset.data).toMatchObject({ type: 'datasets' });
    expect(withDataset.json.data.relationships.scenario).toEqual({});
  });

  it('creates every scenario when scenario_ids is absent, and validates the body', async () => {
    const all = await createRun({ name: 'All' });
    expect(all.status).toBe(201);
    clock += 100;
    expect(state().testRuns[0].snapshots).toHaveLength(22); // 20 scenarios, 2 of them with 2 datasets
    const noName = await createRun({ description: 'x', scenario_ids: [1] });
    expect(noName.status).toBe(422);
    expect(noName.json.errors[0]).toMatchObject({ status: '422' });
    expect((await createRun({ name: '  ', scenario_ids: [1] })).status).toBe(422);
    const unknown = await createRun({ name: 'x', scenario_ids: [1, 999] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0].detail).toContain('999');
    const bad = await fetch(`${sandbox.origin}/api/projects/1/test_runs`, { method: 'POST', headers: HEADERS, body: '{nope' });
    expect(bad.status).toBe(400);
    expect(state().testRuns).toHaveLength(1);
  });

  it('records results; counters count each test once under its latest result', async () => {
    const run = (await createRun({ name: 'R', scenario_ids: [1, 2, 7] })).json.data;
    const base = `/api/projects/1/test_runs/${run.id}/test_snapshots`;
    expect(state().testRuns[0].snapshots).toEqual([]);
    const blocked = await api('POST', `${base}/1/test_results`, {
      data: { attributes: { status: 'passed', 'status-author': 'ci', description: '' } },
    });
    expect(blocked.status).toBe(423);
    clock += 100;
    const tests = (await api('GET', base)).json.data;
    const post = (id: string, attributes: Record<string, unknown>) => api('POST', `${base}/${id}/test_results`, { data: { attributes } });
    const r1 = await post(tests[0].id, {
      status: 'failed',
      'status-author': 'ci-bot',
      description: 'boom',
      'step-statuses': ['passed', 'failed'],
    });
    expect(r1.status).toBe(201);
    expect(r1.json.data).toMatchObject({
      type: 'test-results',
      attributes: { status: 'failed', 'status-author': 'ci-bot', description: 'boom', 'step-statuses': ['passed', 'failed'] },
      relationships: { 'test-snapshot': { data: { type: 'test-snapshots', id: tests[0].id } } },
    });
    expect(r1.json.data.attributes['test-snapshot-id']).toBe(Number(tests[0].id));
    expect((await post(tests[0].id, { status: 'passed', 'status-author': 'ci-bot', description: 'retry ok' })).status).toBe(201);
    expect((await post(tests[1].id, { status: 'bogus', 'status-author': 'ci-bot', description: '' })).json.data.attributes.status).toBe(
      'undefined',
    );
    expect((await post(tests[2].id, { status: 'skipped', 'status-author': 'ci-bot', description: '' })).status).toBe(201);
    const missing = await post(tests[3].id, { status: 'passed', 'status-author': 'ci-bot' });
    expect(missing.status).toBe(422);
    expect(missing.json.errors[0].detail).toContain('description');
    expect((await post(tests[3].id, { description: '' })).status).toBe(422);

    const r = await api('GET', `/api/projects/1/test_runs/${run.id}`);
    expect(r.json.data.attributes.statuses).toEqual({ passed: 1, failed: 0, retest: 0, undefined: 2, blocked: 0, skipped: 1, wip: 0 });
    const patched = await api('PATCH', `${base}/${tests[2].id}/test_results/${await lastResultId(base, tests[2].id)}`, {
      data: { attributes: { status: 'blocked' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ status: 'blocked', 'status-author': 'ci-bot' });
    const s = state().testRuns[0];
    expect(s.statuses).toMatchObject({ passed: 1, blocked: 1, skipped: 0, undefined: 2 });
    expect(s.snapshots[0].results.map((x: any) => x.status)).toEqual(['failed', 'passed']);
    expect(s.snapshots[0]).toMatchObject({ scenarioId: 1, datasetId: null, datasetName: null, name: 'Scenario 1' });
    expect(s.snapshots[0].results[1]).toMatchObject({ statusAuthor: 'ci-bot', description: 'retry ok' });
    expect(s.snapshots[2]).toMatchObject({ scenarioId: 7, datasetName: 'visa' });
  });

  it('PATCH adds only missing scenarios, re-enters 423 and keeps results', async () => {
    const run = (await createRun({ name: 'P', scenario_ids: [1, 2] })).json.data;
    const tr = `/api/projects/1/test_runs/${run.id}`;
    clock += 100;
    const tests = (await api('GET', `${tr}/test_snapshots`)).json.data;
    await api('POST', `${tr}/test_snapshots/${tests[0].id}/test_results`, {
      data: { attributes: { status: 'passed', 'status-author': 'a', description: '' } },
    });
    const patched = await api('PATCH', tr, {
      data: { type: 'test_runs', id: Number(run.id), attributes: { scenario_ids: ['2', 3, 8], description: 'more' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ statuses: {}, description: 'more' });
    expect((await api('GET', `${tr}/test_snapshots`)).status).toBe(423);
    expect(state().testRuns[0]).toMatchObject({ generating: true, scenarioIds: [1, 2, 3, 8] });
    clock += 100;
    const after = (await api('GET', `${tr}/test_snapshots`)).json.data;
    expect(after.map((t: any) => t.attributes.name)).toEqual([
      'Scenario 1',
      'Scenario 2',
      'Scenario 3',
      'Scenario 8 (small)',
      'Scenario 8 (large)',
    ]);
    expect(after[0].attributes.status).toBe('passed');
    // Renaming is not documented: refused, so that no client depends on it.
    const renamed = await api('PATCH', tr, { data: { attributes: { name: 'Other' } } });
    expect(renamed.status).toBe(422);
    expect(JSON.stringify(renamed.json)).toContain('name cannot be changed');
    const single = await api('PATCH', tr, { data: { attributes: { scenario_id: 1 } } });
    expect(single.json.data.attributes.statuses).toMatchObject({ passed: 1, undefined: 4 }); // nothing new: no regeneration
    expect((await api('PATCH', tr, { data: { attributes: { scenario_ids: [4000] } } })).status).toBe(422);
  });

  it('filters runs by status and archives old runs; names need not be unique', async () => {
    await createRun({ name: 'Same', scenario_ids: [1] });
    await createRun({ name: 'Same', scenario_ids: [2] });
    expect((await api('GET', '/api/projects/1/test_runs')).json.data).toHaveLength(2);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const archived = await api('POST', `/api/projects/1/test_runs/archive?older_than=${tomorrow}`);
    expect(archived.json.meta.archived_test_run_ids).toHaveLength(2);
    await createRun({ name: 'Fresh', scenario_ids: [3] });
    const active = await api('GET', '/api/projects/1/test_runs?filter[status]=active');
    expect(active.json.data.map((r: any) => r.attributes.name)).toEqual(['Fresh']);
    const arch = await api('GET', '/api/projects/1/test_runs?filter%5Bstatus%5D=archived');
    expect(arch.json.data.map((r: any) => r.attributes.archived)).toEqual([true, true]);
    expect((await api('GET', '/api/projects/1/test_runs?filter[status]=old')).status).toBe(400);
  });
});

async function lastResultId(base: string, testId: string): Promise<string> {
  const r = await api('GET', `${base}/${testId}?include=last-result`);
  return r.json.data.relationships['last-result'].data.id;
}
