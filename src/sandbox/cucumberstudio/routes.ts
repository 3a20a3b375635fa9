/**
 * Routing of the CucumberStudio stand-in: path templates below `/api`, project/run/snapshot lookups shared
 * by all nested routes, and the fixture (project, scenario, dataset) handlers. Run and test handlers live in
 * `runs.ts`, result handlers in `routes-results.ts`.
 */
import type { SandboxRequest, SandboxResponse } from '../types';
import { datasetResource, errorResponse, folderResource, ok, projectResource, scenarioResource } from './jsonapi';
import { createRun, listRuns, archiveRuns, getRun, patchRun, listSnapshots, getSnapshot } from './runs';
import { postResult, patchResult } from './routes-results';
import { BUILD_ROUTES } from './routes-builds';
import { isMultipart, listAttachments, uploadAttachment } from './attachments';
import { includes, locked, type RouteContext } from './context';
import type { CucumberStudioStore, Scenario } from './store';

type Handler = (ctx: RouteContext) => SandboxResponse | Promise<SandboxResponse>;

interface Route {
  method: string;
  template: string;
  parts: string[];
  handler: Handler;
}

const P = '/projects/:pid';
const TR = `${P}/test_runs/:trid`;
const TS = `${TR}/test_snapshots/:tsid`;

function route(method: string, template: string, handler: Handler): Route {
  return { method, template, parts: template.split('/').slice(1), handler };
}

// Literal segments are listed before id segments (spec §1.1); ids only match digits anyway.
const ROUTES: Route[] = [
  route('GET', '/projects', listProjects),
  route('GET', P, getProject),
  route('GET', `${P}/scenarios`, listScenarios),
  route('GET', `${P}/scenarios/:sid`, getScenario),
  route('GET', `${P}/scenarios/:sid/datasets`, listDatasets),
  route('GET', `${P}/scenarios/:sid/datatable`, listDatasets),
  route('GET', `${P}/scenarios/:sid/datasets/:dsid`, getDataset),
  route('GET', `${P}/scenarios/:sid/datatable/:dsid`, getDataset),
  route('GET', `${P}/test_runs`, listRuns),
  route('POST', `${P}/test_runs`, createRun),
  route('POST', `${P}/test_runs/archive`, archiveRuns),
  route('GET', TR, getRun),
  route('PATCH', TR, patchRun),
  route('GET', `${TR}/test_snapshots`, listSnapshots),
  route('GET', TS, getSnapshot),
  ...BUILD_ROUTES.map(([method, path, handler]) => route(method, TR + path, handler)),
  route('POST', `${TS}/test_results`, postResult),
  route('PATCH', `${TS}/test_results/:rid`, patchResult),
  route('GET', `${TS}/test_results/:rid/attachments`, listAttachments),
  route('POST', `${TS}/test_results/:rid/attachments`, uploadAttachment),
];

function match(r: Route, segments: string[]): Record<string, number> | null {
  if (r.parts.length !== segments.length) return null;
  const params: Record<string, number> = {};
  for (let i = 0; i < segments.length; i++) {
    const part = r.parts[i];
    if (part.startsWith(':')) {
      if (!/^\d{1,15}$/.test(segments[i])) return null;
      params[part.slice(1)] = Number(segments[i]);
    } else if (part !== segments[i]) return null;
  }
  return params;
}

/** Serves one authenticated request below `/api`. */
export function dispatch(store: CucumberStudioStore, req: SandboxRequest): SandboxResponse | Promise<SandboxResponse> {
  let path = req.rawPath.slice('/api'.length);
  if (path.endsWith('/')) path = path.slice(0, -1);
  const segments = path === '' ? [] : path.split('/').slice(1);
  for (const r of ROUTES) {
    if (r.method !== req.method) continue;
    const params = match(r, segments);
    if (!params) continue;
    const ctx: RouteContext = { req, store, route: `${r.method} ${r.template}`, params };
    return resolve(ctx) ?? r.handler(ctx);
  }
  return errorResponse(404, `No route matches ${req.method} ${req.rawPath}`, `${req.method} (unknown)`);
}

/** Shared lookups and state gates of nested routes; returns an error answer or null. */
function resolve(ctx: RouteContext): SandboxResponse | null {
  const { params, store, route: r } = ctx;
  if (params.pid !== undefined && params.pid !== store.config.projectId) {
    return errorResponse(404, `Project ${params.pid} not found`, r);
  }
  if (params.sid !== undefined) {
    ctx.scenario = store.scenario(params.sid);
    if (!ctx.scenario) return errorResponse(404, `Scenario ${params.sid} not found`, r);
  }
  if (params.trid !== undefined) {
    const run = store.runs.get(params.trid);
    if (!run || run.projectId !== params.pid) return errorResponse(404, `Test run ${params.trid} not found`, r);
    ctx.run = run;
  }
  if (params.tsid !== undefined && ctx.run) {
    // While tests are generated the whole test sub-tree of the run is locked (list, single test, results),
    // unless the production-like `generationAnswer` lets this request see the tests that exist already.
    if (store.answersLocked(ctx.run)) return locked(ctx.run, r);
    const snap = store.snapshots.get(params.tsid);
    if (!snap || snap.runId !== ctx.run.id || !store.isReady(snap)) {
      return errorResponse(404, `Test ${params.tsid} not found in test run ${ctx.run.id}`, r);
    }
    ctx.snapshot = snap;
  }
  // Multipart bodies (attachments) are not JSON: the core's parse error does not apply to them.
  if ((ctx.req.method === 'POST' || ctx.req.method === 'PATCH') && ctx.req.bodyParseError && !isMultipart(ctx.req)) {
    return errorResponse(400, `Request body is not valid JSON: ${ctx.req.bodyParseError}`, r);
  }
  return null;
}

function listProjects(ctx: RouteContext): SandboxResponse {
  const withFolder = includes(ctx.req).has('scenarios-folder');
  return ok(
    200,
    { data: [projectResource(ctx.store, withFolder)], ...(withFolder ? { included: [folderResource(ctx.store)] } : {}) },
    ctx.route,
  );
}

function getProject(ctx: RouteContext): SandboxResponse {
  const withFolder = includes(ctx.req).has('scenarios-folder');
  return ok(
    200,
    { data: projectResource(ctx.store, withFolder), ...(withFolder ? { included: [folderResource(ctx.store)] } : {}) },
    ctx.route,
  );
}

function listScenarios(ctx: RouteContext): SandboxResponse {
  const data = [];
  for (const id of ctx.store.allScenarioIds()) data.push(scenarioResource(ctx.store, ctx.store.scenario(id) as Scenario));
  return ok(200, { data }, ctx.route);
}

function getScenario(ctx: RouteContext): SandboxResponse {
  return ok(200, { data: scenarioResource(ctx.store, ctx.scenario as Scenario) }, ctx.route);
}

function listDatasets(ctx: RouteContext): SandboxResponse {
  return ok(200, { data: (ctx.scenario as Scenario).datasets.map(datasetResource) }, ctx.route);
}

function getDataset(ctx: RouteContext): SandboxResponse {
  const dataset = ctx.store.dataset(ctx.params.dsid);
  if (!dataset || dataset.scenarioId !== ctx.params.sid) return errorResponse(404, `Dataset ${ctx.params.dsid} not found`, ctx.route);
  return ok(200, { data: datasetResource(dataset) }, ctx.route);
}
