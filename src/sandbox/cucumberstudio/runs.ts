/**
 * Test runs (#59–63) and tests (#75–76) of the CucumberStudio stand-in (results: `routes-results.ts`).
 * Lookups (project, run, snapshot), the 423 gate of the test sub-tree and body-parse errors are handled
 * by `routes.ts` before these handlers run.
 */
import type { SandboxResponse } from '../types';
import { attributesOf, includes, locked, MISSING_ATTRIBUTES, parseScenarioIds, type RouteContext } from './context';
import {
  errorResponse,
  ok,
  resultResource,
  runResource,
  scenarioResource,
  snapshotResource,
  datasetResource,
  type Resource,
} from './jsonapi';
import { passRate } from './routes-results';
import type { Scenario, TestRun, TestSnapshot } from './store';

function isTrue(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}

/** #59 — `filter[status]=active|archived`; no filter = every run (ascending id). */
export function listRuns(ctx: RouteContext): SandboxResponse {
  const filter = ctx.req.query.get('filter[status]');
  if (filter !== null && filter !== 'active' && filter !== 'archived') {
    return errorResponse(400, `filter[status] must be "active" or "archived", got "${filter}"`, ctx.route);
  }
  const runs = [...ctx.store.runs.values()].filter((r) => filter === null || r.archived === (filter === 'archived'));
  return ok(200, { data: runs.map((r) => runResource(ctx.store, r)) }, ctx.route);
}

/** #60 — create (optionally from `scenario_ids`) or clone (`test_run_id`). Names need not be unique. */
export function createRun(ctx: RouteContext): SandboxResponse {
  const { store, route } = ctx;
  const attrs = attributesOf(ctx.req.body);
  if (!attrs) return errorResponse(422, MISSING_ATTRIBUTES, route);
  if (typeof attrs.name !== 'string' || attrs.name.trim() === '') return errorResponse(422, "name can't be blank", route);
  if (attrs.description !== undefined && attrs.description !== null && typeof attrs.description !== 'string') {
    return errorResponse(422, 'description must be a string', route);
  }
  let description = typeof attrs.description === 'string' ? attrs.description : '';
  let scenarioIds: number[];
  let external = false;
  if (attrs.test_run_id !== undefined && attrs.test_run_id !== null) {
    // Clone: copies the source run's tests (fresh, no results) and its description.
    const source = store.runs.get(Number(attrs.test_run_id));
    if (!source) return errorResponse(422, `test_run_id ${JSON.stringify(attrs.test_run_id)} is not a test run of this project`, route);
    scenarioIds = source.scenarioIds.slice();
    if (attrs.description === undefined) description = source.description;
  } else if (attrs.scenario_ids !== undefined && attrs.scenario_ids !== null) {
    // What production does with an empty list is not established (absent means every scenario): refused here,
    // so that no client depends on it.
    if (Array.isArray(attrs.scenario_ids) && attrs.scenario_ids.length === 0)
      return errorResponse(422, 'scenario_ids is empty: leave it out for every scenario, or send external: true for an empty run', route);
    const parsed = parseScenarioIds(store, attrs.scenario_ids, 'scenario_ids');
    if ('error' in parsed) return errorResponse(422, parsed.error, route);
    scenarioIds = parsed.ids; // `external` is ignored when scenario_ids is given
  } else if (isTrue(attrs.external)) {
    external = true;
    scenarioIds = [];
  } else {
    scenarioIds = [...store.allScenarioIds()];
  }
  const run = store.createRun({ name: attrs.name, description, external, scenarioIds });
  return ok(201, { data: runResource(store, run) }, route);
}

/** #61 — archive every run created before `older_than` (UTC midnight); lists the runs that changed state. */
export function archiveRuns(ctx: RouteContext): SandboxResponse {
  const olderThan = ctx.req.query.get('older_than') ?? '';
  const limit = /^\d{4}-\d{2}-\d{2}$/.test(olderThan) ? Date.parse(`${olderThan}T00:00:00.000Z`) : NaN;
  if (Number.isNaN(limit)) return errorResponse(400, 'older_than is required, as YYYY-MM-DD', ctx.route);
  return ok(200, { meta: { archived_test_run_ids: ctx.store.archiveOlderThan(limit) } }, ctx.route);
}

/** #62 */
export function getRun(ctx: RouteContext): SandboxResponse {
  const withSync = ctx.req.query.get('show_synchronization_information') === 'true';
  return ok(200, { data: runResource(ctx.store, ctx.run as TestRun, withSync) }, ctx.route);
}

/**
 * #63 — change the description and/or add scenarios (`scenario_id` or `scenario_ids`), as documented; `name` is
 * refused (renaming is not documented). Only scenarios not yet in the run get tests; when some are
 * added the run is generating again (test list 423, statuses `{}`). Everything is validated before anything is
 * applied. Answer: `patchRunStatus` / `patchRunData`.
 */
export function patchRun(ctx: RouteContext): SandboxResponse {
  const { store, route } = ctx;
  const run = ctx.run as TestRun;
  const attrs = attributesOf(ctx.req.body);
  if (!attrs) return errorResponse(422, MISSING_ATTRIBUTES, route);
  // Renaming a run is not documented (field evidence): refused, so that no client depends on it.
  if (attrs.name !== undefined) {
    return errorResponse(422, 'name cannot be changed: a run takes description, scenario_id or scenario_ids', route);
  }
  if (attrs.description !== undefined && attrs.description !== null && typeof attrs.description !== 'string') {
    return errorResponse(422, 'description must be a string', route);
  }
  const toAdd: number[] = [];
  for (const key of ['scenario_id', 'scenario_ids'] as const) {
    if (attrs[key] === undefined) continue;
    const parsed = parseScenarioIds(store, attrs[key], key);
    if ('error' in parsed) return errorResponse(422, parsed.error, route);
    toAdd.push(...parsed.ids);
  }
  const known = ['description', 'scenario_id', 'scenario_ids'];
  if (!known.some((k) => attrs[k] !== undefined)) {
    return errorResponse(422, 'Nothing to update: send description, scenario_id or scenario_ids', route);
  }
  if (attrs.description !== undefined) store.setDescription(run, typeof attrs.description === 'string' ? attrs.description : '');
  store.addScenarios(run, toAdd);
  // The reference shows 201 for a description update and an array `data` for adding scenarios; clients must
  // take either (field evidence), so the answer's shape is a switch.
  const scenariosSent = attrs.scenario_id !== undefined || attrs.scenario_ids !== undefined;
  const { patchRunStatus, patchRunData } = store.settings;
  const status = patchRunStatus === 'documented' ? (scenariosSent ? 200 : 201) : patchRunStatus;
  const resource = runResource(store, run);
  const asArray = patchRunData === 'array' || (patchRunData === 'documented' && scenariosSent);
  return ok(status, { data: asArray ? [resource] : resource }, route);
}

/**
 * #75 — while the run's tests are generated: 423 (documented), or the tests that exist so far (`generationAnswer`).
 * Not paginated. Without `include=scenario` there is no scenario linkage (`relationships.scenario` is `{}`, as
 * documented); with it (field evidence: two real clients use it) each test links its scenario and the scenarios
 * are in `included`, once each. Other include names are ignored here.
 */
export function listSnapshots(ctx: RouteContext): SandboxResponse {
  const { store, route } = ctx;
  const run = ctx.run as TestRun;
  if (store.answersLocked(run)) return locked(run, route);
  const withResults = ctx.req.query.get('show_step_statuses') === 'true';
  const withScenario = includes(ctx.req).has('scenario');
  const data: Resource[] = [];
  const included: Resource[] = [];
  const scenarios = new Set<number>();
  const now = store.now();
  for (const snap of run.snapshots) {
    if (!store.isReady(snap, now)) continue;
    data.push(snapshotResource(store, snap, { lastResult: withResults, scenario: withScenario }));
    if (withScenario && !scenarios.has(snap.scenarioId)) {
      scenarios.add(snap.scenarioId);
      included.push(scenarioResource(store, store.scenario(snap.scenarioId) as Scenario));
    }
    const last = store.latestResult(snap);
    if (withResults && last) included.push(resultResource(store, last));
  }
  return ok(200, withResults || withScenario ? { data, included } : { data }, route);
}

/** #76 — `include=scenario,dataset,last-result` gives linkage plus top-level `included`. */
export function getSnapshot(ctx: RouteContext): SandboxResponse {
  const { store, route } = ctx;
  const snap = ctx.snapshot as TestSnapshot;
  const inc = includes(ctx.req);
  const want = { scenario: inc.has('scenario'), dataset: inc.has('dataset'), lastResult: inc.has('last-result') };
  const data = snapshotResource(store, snap, want);
  if (ctx.req.query.has('show_passrate')) (data.attributes as Record<string, unknown>)['pass-rate'] = passRate(snap);
  const included: Resource[] = [];
  if (want.scenario) included.push(scenarioResource(store, store.scenario(snap.scenarioId) as Scenario));
  if (want.dataset && snap.dataset) included.push(datasetResource(snap.dataset));
  const last = store.latestResult(snap);
  if (want.lastResult && last) included.push(resultResource(store, last));
  return ok(200, { data, included }, route);
}
