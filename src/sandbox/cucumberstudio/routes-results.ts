/**
 * Test results (#84–85) of the CucumberStudio stand-in. Lookups (project, run, snapshot) and the generation gate
 * are handled by `routes.ts` before these handlers run; attachments of a result are in `attachments.ts`.
 */
import type { SandboxResponse } from '../types';
import { attributesOf, MISSING_ATTRIBUTES, type RouteContext } from './context';
import { errorResponse, ok, resultResource, snapshotResource } from './jsonapi';
import type { Build } from './builds';
import { buildOfRequest, buildResource, isAnswer } from './builds-requests';
import { isStatus, normaliseStatus, STATUSES, type TestResult, type TestSnapshot } from './store';

/** With `strictStepStatuses`: why `step-statuses` is refused, or null. Absent is fine. */
function checkStepStatuses(value: unknown): string | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return `step-statuses must be an array of statuses, got ${JSON.stringify(value)}`;
  const bad = value.map((v, i) => [v, i] as const).filter(([v]) => !isStatus(v));
  if (bad.length === 0) return null;
  const list = bad.map(([v, i]) => `${JSON.stringify(v)} at ${i}`).join(', ');
  return `step-statuses must contain only ${STATUSES.join(', ')}; got ${list}`;
}

/** Percentage of `passed` among passed/failed/blocked results within the last 10 of those (filter first). */
export function passRate(snap: TestSnapshot): string {
  const relevant = snap.results.filter((r) => r.status === 'passed' || r.status === 'failed' || r.status === 'blocked').slice(-10);
  if (relevant.length === 0) return '';
  return String(Math.round((100 * relevant.filter((r) => r.status === 'passed').length) / relevant.length));
}

/** The checked attributes of a new result, or the 422 that refuses them. */
export function readResultAttributes(ctx: RouteContext): Record<string, unknown> | SandboxResponse {
  const { store, route } = ctx;
  const attrs = attributesOf(ctx.req.body);
  if (!attrs) return errorResponse(422, MISSING_ATTRIBUTES, route);
  const missing = ['status', 'status-author', 'description'].filter((k) => attrs[k] === undefined);
  if (missing.length > 0)
    return errorResponse(422, `Missing mandatory attribute${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`, route);
  if (typeof attrs['status-author'] !== 'string') return errorResponse(422, 'status-author must be a string', route);
  if (attrs.description !== null && typeof attrs.description !== 'string') return errorResponse(422, 'description must be a string', route);
  const stepError = store.settings.strictStepStatuses ? checkStepStatuses(attrs['step-statuses']) : null;
  if (stepError) return errorResponse(422, stepError, route);
  return attrs;
}

/** Stores a result of `snap` in `build` (or in none, counted) from checked attributes. */
export function storeResult(ctx: RouteContext, snap: TestSnapshot, attrs: Record<string, unknown>, build: Build | undefined): TestResult {
  const result = ctx.store.addResult(snap, {
    status: attrs.status,
    statusAuthor: attrs['status-author'] as string,
    description: attrs.description as string | null,
    stepStatuses: attrs['step-statuses'],
  });
  ctx.store.builds.attach(result, build);
  return result;
}

/**
 * #84 — `status`, `status-author` and `description` are mandatory keys (description may be ""). `step-statuses`
 * are stored as sent and shown as the service reads them (`step-statuses.ts`); unknown values become `undefined`
 * unless `strictStepStatuses` rejects them. `relationships.build` / `execution-environment` choose the build
 * (`routes-builds.ts`); with neither the result belongs to no build: stored, and counted.
 */
export function postResult(ctx: RouteContext): SandboxResponse {
  const { store, route } = ctx;
  const snap = ctx.snapshot as TestSnapshot;
  const attrs = readResultAttributes(ctx);
  if (isAnswer(attrs)) return attrs;
  const target = buildOfRequest(ctx);
  if (isAnswer(target)) return target;
  const result = storeResult(ctx, snap, attrs, target.build);
  const included = [snapshotResource(store, snap), ...(target.build ? [buildResource(store, target.build)] : [])];
  return ok(201, { data: resultResource(store, result), included }, route);
}

/** #85 — any subset of status / status-author / description; unknown status → `undefined`. */
export function patchResult(ctx: RouteContext): SandboxResponse {
  const { store, route } = ctx;
  const snap = ctx.snapshot as TestSnapshot;
  const result = store.results.get(ctx.params.rid);
  if (!result || result.snapshotId !== snap.id)
    return errorResponse(404, `Test result ${ctx.params.rid} not found for test ${snap.id}`, route);
  const attrs = attributesOf(ctx.req.body);
  if (!attrs) return errorResponse(422, MISSING_ATTRIBUTES, route);
  if (attrs['status-author'] !== undefined && typeof attrs['status-author'] !== 'string') {
    return errorResponse(422, 'status-author must be a string', route);
  }
  if (attrs.description !== undefined && attrs.description !== null && typeof attrs.description !== 'string') {
    return errorResponse(422, 'description must be a string', route);
  }
  if (attrs.status !== undefined) result.status = normaliseStatus(attrs.status);
  if (typeof attrs['status-author'] === 'string') result.statusAuthor = attrs['status-author'];
  if (attrs.description !== undefined) result.description = attrs.description as string | null;
  result.updatedAt = Date.now() + store.settings.clockOffsetMs;
  return ok(200, { data: resultResource(store, result) }, route);
}
