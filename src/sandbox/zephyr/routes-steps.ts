/**
 * Test steps (§4.8 #34, #35), step statuses (#5) and step results (§4.9 #41, #42). Steps are read-only here:
 * they come from the module's `testSteps` option. A step result exists for every step the issue had when its
 * execution was created (field evidence).
 */
import { ok, type Route, type RouteContext } from './context';
import {
  ApiError,
  ERR,
  bodyObject,
  invalid,
  missing,
  notFound,
  optionalJiraId,
  optionalText,
  optionalZephyrId,
  requiredJiraId,
} from './http';
import type { StepResult } from './evidence';
import type { Execution, Issue, ZephyrStore } from './store';
import { stepResultView, testStepView } from './views-evidence';

/** A step status id as a number or numeric string; 400 (152) unless it is a known step status. */
export function knownStepStatusId(store: ZephyrStore, value: unknown, name: string): number {
  const id = optionalJiraId(value, name);
  if (id === undefined) throw missing(name);
  if (!store.cfg.steps.status(id)) throw new ApiError(400, `Step status ${id} does not exist.`, ERR.invalid);
  return id;
}

/**
 * The bulk status call's step part (§4.6 #26): with `testStepStatusChangeFlag: true` every step result of the
 * executions gets `stepStatus` (then required); without the flag `stepStatus` is ignored and the step results stay.
 * The flag is a JSON boolean or the string "true"/"false"; anything else is 400 (152).
 */
export function bulkStepStatus(store: ZephyrStore, body: Record<string, unknown>): number | undefined {
  const flag = body.testStepStatusChangeFlag;
  if (flag === undefined || flag === null || flag === false || flag === 'false') return undefined;
  if (flag !== true && flag !== 'true') throw invalid('testStepStatusChangeFlag', flag);
  if (typeof body.stepStatus === 'object' && body.stepStatus !== null) {
    throw new ApiError(400, 'stepStatus must be a status id (number or numeric string), e.g. "stepStatus": 1.', ERR.invalid);
  }
  return knownStepStatusId(store, body.stepStatus, 'stepStatus');
}

/** The issue named in the path; `projectId` is required on every step call [R] (151 without it). */
function pathIssue(c: RouteContext): Issue {
  const projectId = requiredJiraId(c.req.query.get('projectId'), 'projectId');
  c.store.checkProjectVersion(projectId);
  const issueId = requiredJiraId(c.params.issueId, 'issueId');
  const issue = c.store.issueById(issueId);
  if (!issue) throw notFound(`Issue ${issueId} does not exist or is not a Test of project ${projectId}.`);
  return issue;
}

function listSteps(c: RouteContext) {
  return ok(c.store.cfg.steps.stepsOf(pathIssue(c)).map(testStepView));
}

/** 2.0 envelope: `testSteps` [C] plus `totalCount`, which a client reads at the top level [R]. */
function listSteps2(c: RouteContext) {
  const steps = c.store.cfg.steps.stepsOf(pathIssue(c)).map(testStepView);
  return ok({ testSteps: steps, totalCount: steps.length });
}

/** The execution a step-result call names, checked against the issue the caller repeats (400/160 otherwise). */
function executionOfIssue(store: ZephyrStore, executionId: string, issueId: number): Execution {
  const e = store.executions.get(executionId);
  if (!e) throw notFound(`Execution ${executionId} does not exist.`);
  if (e.issueId !== issueId) throw notFound(`Execution ${executionId} does not belong to issue ${issueId}.`);
  return e;
}

/** #41 — both query parameters are required (every client sends both); extra ones (`isOrdered`) are ignored. */
function searchStepResults(c: RouteContext) {
  const executionId = optionalZephyrId(c.req.query.get('executionId'), 'executionId');
  if (executionId === undefined) throw missing('executionId');
  const issueId = requiredJiraId(c.req.query.get('issueId'), 'issueId');
  const e = executionOfIssue(c.store, executionId, issueId);
  return ok({ stepResults: c.store.evidence.stepResultsOf(e.id).map((r) => stepResultView(c.store, r)) });
}

/** `status` must be an object `{id}`, as on executions (§4.9 #42). */
function statusObject(store: ZephyrStore, value: unknown): number {
  if (value === undefined || value === null) throw missing('status');
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, `status must be an object like {"id": 1}, got ${JSON.stringify(value)}`, ERR.invalid);
  }
  return knownStepStatusId(store, (value as Record<string, unknown>).id, 'status.id');
}

/**
 * #42 — `status: {id}`, `issueId` and `executionId` are required and must be the step result's own; `comment` is
 * optional. `stepId` is not checked: one client sends the step-result id there, and what production does with a
 * wrong one is not known.
 */
function updateStepResult(c: RouteContext) {
  const body = bodyObject(c.body);
  const statusId = statusObject(c.store, body.status);
  const issueId = requiredJiraId(body.issueId, 'issueId');
  const executionId = optionalZephyrId(body.executionId, 'executionId');
  if (executionId === undefined) throw missing('executionId');
  const comment = optionalText(body.comment, 'comment');
  const result: StepResult | undefined = c.store.evidence.stepResults.get(c.params.id);
  if (!result) throw notFound(`Step result ${c.params.id} does not exist.`);
  if (result.executionId !== executionId) throw notFound(`Step result ${result.id} does not belong to execution ${executionId}.`);
  if (result.issueId !== issueId) throw notFound(`Step result ${result.id} does not belong to issue ${issueId}.`);
  if (comment !== undefined) result.comment = comment;
  c.store.evidence.setStepStatus(result, statusId, c.sub);
  return ok(stepResultView(c.store, result));
}

export const stepRoutes: Route[] = [
  // Before `/teststep/:issueId`, which would otherwise take "statuses" for an issue id.
  { method: 'GET', path: '/teststep/statuses', handler: (c) => ok(c.store.cfg.steps.statuses.map((s) => ({ ...s }))) },
  { method: 'GET', path: '/teststep/:issueId', handler: listSteps },
  { method: 'GET', path: '/teststep/:issueId', api: 2, handler: listSteps2 },
  { method: 'GET', path: '/stepresult/search', handler: searchStepResults },
  { method: 'PUT', path: '/stepresult/:id', handler: updateStepResult },
];
