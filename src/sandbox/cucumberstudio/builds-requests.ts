/**
 * Builds and execution environments as documents (spec §3.14–3.15, kebab-case always, running ⇔ `closed-at`
 * null), and the build a posted result goes to.
 */
import type { SandboxResponse } from '../types';
import type { Build, ExecutionEnvironment } from './builds';
import { parseId, type RouteContext } from './context';
import { errorResponse, iso, type Resource } from './jsonapi';
import type { CucumberStudioStore, TestRun } from './store';

export function isAnswer(value: unknown): value is SandboxResponse {
  return typeof value === 'object' && value !== null && 'status' in value && typeof (value as SandboxResponse).status === 'number';
}

export function buildResource(store: CucumberStudioStore, build: Build, withResults = false): Resource {
  const results: Record<string, unknown> = withResults
    ? { data: build.resultIds.map((id) => ({ type: 'test-results', id: String(id) })) }
    : {};
  return {
    type: 'builds',
    id: String(build.id),
    attributes: {
      name: build.name,
      'created-at': iso(build.createdAt),
      'test-run-id': build.runId,
      'execution-environment-id': build.environmentId,
      'is-running': build.closedAt === null,
      'closed-at': build.closedAt === null ? null : iso(build.closedAt),
    },
    links: { self: `/builds/${build.id}` },
    relationships: { 'test-results': results },
  };
}

export function environmentResource(environment: ExecutionEnvironment): Resource {
  return {
    type: 'execution-environments',
    id: String(environment.id),
    attributes: {
      name: environment.name,
      'test-run-id': environment.runId,
      'created-at': iso(environment.createdAt),
      'updated-at': iso(environment.updatedAt),
    },
    links: { self: `/execution-environments/${environment.id}` },
  };
}

/** The refusal of a result into a closed build (`closedBuilds`), or null. */
export function closedRefusal(ctx: RouteContext, build: Build): SandboxResponse | null {
  if (build.closedAt === null || ctx.store.settings.closedBuilds === 'accept') return null;
  return errorResponse(422, `Build ${build.id} is closed: it takes no more results`, ctx.route);
}

/** The id in a to-one relationship `{data: {type, id}}`: a number, null (`data: null` or absent), or 'bad'. */
function linkedId(relationships: unknown, key: string): number | null | 'bad' {
  if (typeof relationships !== 'object' || relationships === null) return null;
  const rel = (relationships as Record<string, unknown>)[key];
  if (rel === undefined || rel === null) return null;
  if (typeof rel !== 'object' || !('data' in rel)) return 'bad';
  const data = (rel as { data: unknown }).data;
  if (data === null) return null;
  const id = typeof data === 'object' ? parseId((data as { id?: unknown }).id) : null;
  return id ?? 'bad';
}

function relationshipsOf(ctx: RouteContext): unknown {
  const body = ctx.req.body as { data?: { relationships?: unknown } } | undefined;
  return body?.data?.relationships;
}

/**
 * #84's build: `relationships.build` → that build of the run; `execution-environment` alone → that environment's
 * current build (none yet → 422: not specified, refused so no client depends on it); both → they must agree;
 * neither → no build (`{build: undefined}`, stored and counted by the caller). A closed build refuses (`closedBuilds`).
 */
export function buildOfRequest(ctx: RouteContext): { build: Build | undefined } | SandboxResponse {
  const { store, route } = ctx;
  const run = ctx.run as TestRun;
  const rels = relationshipsOf(ctx);
  const buildId = linkedId(rels, 'build');
  const environmentId = linkedId(rels, 'execution-environment');
  if (buildId === 'bad') return errorResponse(422, 'relationships.build must be {"data": {"type": "builds", "id": <build id>}}', route);
  if (environmentId === 'bad') {
    return errorResponse(
      422,
      'relationships.execution-environment must be {"data": {"type": "execution-environments", "id": <id>}}',
      route,
    );
  }
  const environment = environmentId === null ? undefined : store.builds.environment(run, environmentId);
  if (environmentId !== null && !environment)
    return errorResponse(422, `Execution environment ${environmentId} is not in test run ${run.id}`, route);
  let build: Build | undefined;
  if (buildId !== null) {
    build = store.builds.build(run, buildId);
    if (!build) return errorResponse(422, `Build ${buildId} is not a build of test run ${run.id}`, route);
    if (environment && build.environmentId !== environment.id) {
      return errorResponse(422, `Build ${build.id} is not in execution environment ${environment.id}`, route);
    }
  } else if (environment) {
    build = store.builds.currentBuild(environment);
    if (!build) return errorResponse(422, `Execution environment ${environment.id} has no build yet`, route);
  }
  return (build && closedRefusal(ctx, build)) ?? { build };
}
