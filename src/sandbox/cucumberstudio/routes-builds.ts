/**
 * Builds (#91–97), execution environments (#98–100, #102–105) and build history (#65) of a test run
 * (spec §3.10, §3.14–3.15; rules in `builds.ts`, documents in `builds-requests.ts`). The project and run are
 * looked up by `routes.ts` first. #101 (delete an environment) is not served.
 *
 * Field evidence: once a run has a second environment (creating the first extra one is enough), the run-level
 * routes #91–93 fail (status `runLevelBuildsStatus`); the by-id routes keep working.
 */
import type { SandboxResponse } from '../types';
import { MAX_ENVIRONMENT_NAME, type Build, type ExecutionEnvironment } from './builds';
import { buildResource, closedRefusal, environmentResource, isAnswer } from './builds-requests';
import { attributesOf, includes, locked, MISSING_ATTRIBUTES, parseId, type RouteContext } from './context';
import { errorResponse, ok, resultResource, snapshotResource, type Resource } from './jsonapi';
import { readResultAttributes, storeResult } from './routes-results';
import type { TestResult, TestRun } from './store';

const run = (ctx: RouteContext) => ctx.run as TestRun;

/** Run-level routes only work while the run has one environment; that one, or the refusal. */
function soleEnvironment(ctx: RouteContext): ExecutionEnvironment | SandboxResponse {
  const list = ctx.store.builds.environmentsOf(run(ctx));
  if (list.length === 1) return list[0];
  const detail = `Test run ${run(ctx).id} has ${list.length} execution environments: use the routes of an execution environment`;
  return errorResponse(ctx.store.settings.runLevelBuildsStatus, detail, ctx.route);
}

function environmentOf(ctx: RouteContext): ExecutionEnvironment | SandboxResponse {
  const environment = ctx.store.builds.environment(run(ctx), ctx.params.eid);
  return environment ?? errorResponse(404, `Execution environment ${ctx.params.eid} not found in test run ${run(ctx).id}`, ctx.route);
}

function buildOf(ctx: RouteContext): Build | SandboxResponse {
  const build = ctx.store.builds.build(run(ctx), ctx.params.bid);
  return build ?? errorResponse(404, `Build ${ctx.params.bid} not found in test run ${run(ctx).id}`, ctx.route);
}

/** A build with `include=test-results`: linkage plus the results in `included` (`included: []` otherwise). */
function buildDocument(ctx: RouteContext, build: Build | undefined, status = 200): SandboxResponse {
  if (!build) return ok(status, { data: null }, ctx.route);
  const withResults = includes(ctx.req).has('test-results');
  const included: Resource[] = withResults
    ? build.resultIds.map((id) => resultResource(ctx.store, ctx.store.results.get(id) as TestResult))
    : [];
  return ok(status, { data: buildResource(ctx.store, build, withResults), included }, ctx.route);
}

/** A build name from `data.attributes.name`: undefined when absent, else a non-empty string or the 422. */
function nameOf(ctx: RouteContext, required: boolean): string | undefined | SandboxResponse {
  const attrs = attributesOf(ctx.req.body);
  if (!attrs) return required ? errorResponse(422, MISSING_ATTRIBUTES, ctx.route) : undefined;
  if (attrs.name === undefined && !required) return undefined;
  if (typeof attrs.name !== 'string' || attrs.name.trim() === '') return errorResponse(422, "name can't be blank", ctx.route);
  return attrs.name;
}

function createBuild(ctx: RouteContext, environment: ExecutionEnvironment, name: string | undefined): SandboxResponse {
  if (name !== undefined && ctx.store.settings.buildNames === 'unique' && ctx.store.builds.buildNamed(environment, name)) {
    return errorResponse(422, 'name has already been taken', ctx.route);
  }
  return buildDocument(ctx, ctx.store.builds.addBuild(environment, name), 201);
}

/** #91 / #102 */
function listBuilds(ctx: RouteContext, environment: ExecutionEnvironment | SandboxResponse): SandboxResponse {
  if (isAnswer(environment)) return environment;
  return ok(200, { data: ctx.store.builds.buildsOf(environment).map((b) => buildResource(ctx.store, b)) }, ctx.route);
}

/** #93 / #104 — the most recently created build, `data: null` when there is none. */
function currentBuild(ctx: RouteContext, environment: ExecutionEnvironment | SandboxResponse): SandboxResponse {
  if (isAnswer(environment)) return environment;
  return buildDocument(ctx, ctx.store.builds.currentBuild(environment));
}

/**
 * #96 / #105 — a result with a mandatory `test-snapshot` relationship, answered 200. `step-statuses` are not
 * documented on these routes and are not stored (send them with #84 and `relationships.build`).
 */
function postIntoBuild(ctx: RouteContext, build: Build | SandboxResponse | undefined, environmentId?: number): SandboxResponse {
  if (isAnswer(build)) return build;
  if (!build) return errorResponse(422, `Execution environment ${environmentId} has no build yet`, ctx.route);
  const attrs = readResultAttributes(ctx);
  if (isAnswer(attrs)) return attrs;
  const rels = (ctx.req.body as { data?: { relationships?: Record<string, { data?: { id?: unknown } }> } }).data?.relationships;
  const snapshotId = parseId(rels?.['test-snapshot']?.data?.id);
  if (snapshotId === null)
    return errorResponse(422, 'relationships.test-snapshot is mandatory: {"data": {"type": "test-snapshots", "id": <id>}}', ctx.route);
  if (ctx.store.answersLocked(run(ctx))) return locked(run(ctx), ctx.route);
  const snap = ctx.store.snapshots.get(snapshotId);
  if (!snap || snap.runId !== run(ctx).id || !ctx.store.isReady(snap)) {
    return errorResponse(422, `Test ${snapshotId} is not a test of test run ${run(ctx).id}`, ctx.route);
  }
  const refused = closedRefusal(ctx, build);
  if (refused) return refused;
  const result = storeResult(ctx, snap, { ...attrs, 'step-statuses': undefined }, build);
  return ok(
    200,
    { data: resultResource(ctx.store, result), included: [snapshotResource(ctx.store, snap), buildResource(ctx.store, build)] },
    ctx.route,
  );
}

/** #95 — rename by id (any environment). */
function renameBuild(ctx: RouteContext): SandboxResponse {
  const build = buildOf(ctx);
  if (isAnswer(build)) return build;
  const name = nameOf(ctx, true);
  if (isAnswer(name)) return name;
  const environment = ctx.store.builds.environment(run(ctx), build.environmentId) as ExecutionEnvironment;
  if (ctx.store.settings.buildNames === 'unique' && ctx.store.builds.buildNamed(environment, name as string, build)) {
    return errorResponse(422, 'name has already been taken', ctx.route);
  }
  build.name = name as string;
  return buildDocument(ctx, build);
}

/** #97 — `is-running: false`, `closed-at` = now; closing again keeps the first time. */
function closeBuild(ctx: RouteContext): SandboxResponse {
  const build = buildOf(ctx);
  if (isAnswer(build)) return build;
  build.closedAt ??= Date.now();
  return ok(200, { data: buildResource(ctx.store, build) }, ctx.route);
}

/** An environment name from the body, checked: non-empty, ≤ 255 characters, unique in the run (`environmentNames`). */
function environmentName(ctx: RouteContext, except?: ExecutionEnvironment): string | SandboxResponse {
  const attrs = attributesOf(ctx.req.body);
  if (!attrs) return errorResponse(422, MISSING_ATTRIBUTES, ctx.route);
  if (typeof attrs.name !== 'string' || attrs.name.trim() === '') return errorResponse(422, "name can't be blank", ctx.route);
  if (attrs.name.length > MAX_ENVIRONMENT_NAME) {
    return errorResponse(422, `name is too long (maximum is ${MAX_ENVIRONMENT_NAME} characters)`, ctx.route);
  }
  if (ctx.store.builds.environmentNamed(run(ctx), attrs.name, ctx.store.settings.environmentNames, except)) {
    return errorResponse(422, 'name has already been taken', ctx.route);
  }
  return attrs.name;
}

function createEnvironment(ctx: RouteContext): SandboxResponse {
  const name = environmentName(ctx);
  if (isAnswer(name)) return name;
  return ok(201, { data: environmentResource(ctx.store.builds.addEnvironment(run(ctx), name)) }, ctx.route);
}

function renameEnvironment(ctx: RouteContext): SandboxResponse {
  const environment = environmentOf(ctx);
  if (isAnswer(environment)) return environment;
  const name = environmentName(ctx, environment);
  if (isAnswer(name)) return name;
  environment.name = name;
  environment.updatedAt = Date.now();
  return ok(200, { data: environmentResource(environment) }, ctx.route);
}

/** #65 — not JSON:API: `{data: [{id, date, values, platform}]}`, newest first, `limit` default 25. */
function buildHistory(ctx: RouteContext): SandboxResponse {
  const raw = ctx.req.query.get('limit');
  const limit = raw === null ? 25 : /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (Number.isNaN(limit)) return errorResponse(400, `limit must be a number, got "${raw}"`, ctx.route);
  const { store } = ctx;
  return ok(200, { data: store.builds.history(run(ctx), store.results, (s) => store.isReady(s), limit) }, ctx.route);
}

type Handler = (ctx: RouteContext) => SandboxResponse;
/** Templates relative to the run (`TR`); `routes.ts` mounts them. */
export const BUILD_ROUTES: Array<[method: string, path: string, handler: Handler]> = [
  ['GET', '/build_history', buildHistory],
  ['GET', '/builds', (ctx) => listBuilds(ctx, soleEnvironment(ctx))],
  [
    'POST',
    '/builds',
    (ctx) => {
      const environment = soleEnvironment(ctx);
      if (isAnswer(environment)) return environment;
      const name = nameOf(ctx, false);
      return isAnswer(name) ? name : createBuild(ctx, environment, name);
    },
  ],
  ['GET', '/builds/current', (ctx) => currentBuild(ctx, soleEnvironment(ctx))],
  [
    'GET',
    '/builds/:bid',
    (ctx) => {
      const build = buildOf(ctx);
      return isAnswer(build) ? build : buildDocument(ctx, build);
    },
  ],
  ['PATCH', '/builds/:bid', renameBuild],
  ['POST', '/builds/:bid/test_results', (ctx) => postIntoBuild(ctx, buildOf(ctx))],
  ['POST', '/builds/:bid/close', closeBuild],
  [
    'GET',
    '/execution_environments',
    (ctx) => ok(200, { data: ctx.store.builds.environmentsOf(run(ctx)).map(environmentResource) }, ctx.route),
  ],
  ['POST', '/execution_environments', createEnvironment],
  ['PATCH', '/execution_environments/:eid', renameEnvironment],
  ['GET', '/execution_environments/:eid/builds', (ctx) => listBuilds(ctx, environmentOf(ctx))],
  [
    'POST',
    '/execution_environments/:eid/builds',
    (ctx) => {
      const environment = environmentOf(ctx);
      if (isAnswer(environment)) return environment;
      // Documented with `{}` only: whether `name` is honoured is not known (`environmentBuildName`).
      const name = nameOf(ctx, false);
      if (isAnswer(name)) return name;
      return createBuild(ctx, environment, ctx.store.settings.environmentBuildName === 'honour' ? name : undefined);
    },
  ],
  ['GET', '/execution_environments/:eid/builds/current', (ctx) => currentBuild(ctx, environmentOf(ctx))],
  [
    'POST',
    '/execution_environments/:eid/test_results',
    (ctx) => {
      const environment = environmentOf(ctx);
      if (isAnswer(environment)) return environment;
      return postIntoBuild(ctx, ctx.store.builds.currentBuild(environment), environment.id);
    },
  ],
];
