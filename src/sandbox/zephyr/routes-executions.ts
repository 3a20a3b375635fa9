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
  queryInt,
  requiredJiraId,
} from './http';
import { folderIn } from './folders';
import { queryProjectVersion } from './routes-cycles';
import { AD_HOC_ID, type Execution, type ZephyrStore } from './store';
import { executionWrapper } from './views';
import { parseZql, runZql } from './zql';

export const MAX_PAGE = 50;

/** A status id sent as a number or numeric string; 400 (152) unless it is a known status. */
export function knownStatusId(store: ZephyrStore, value: unknown, name: string): number {
  const id = optionalJiraId(value, name);
  if (id === undefined) throw missing(name);
  if (!store.status(id)) throw new ApiError(400, `Execution status ${id} does not exist.`, ERR.invalid);
  return id;
}

/** `status` in an execution body must be an object `{id}` (§4.6 #19). */
function statusObject(store: ZephyrStore, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, `status must be an object like {"id": 1}, got ${JSON.stringify(value)}`, ERR.invalid);
  }
  return knownStatusId(store, (value as Record<string, unknown>).id, 'status.id');
}

/** Execution by id, checked against the issueId/projectId the caller repeats; 400 (160) otherwise. */
function findExecution(store: ZephyrStore, id: string, issueId: number, projectId: number): Execution {
  const e = store.executions.get(id);
  if (!e) throw notFound(`Execution ${id} does not exist.`);
  if (e.issueId !== issueId) throw notFound(`Execution ${id} does not belong to issue ${issueId}.`);
  if (e.projectId !== projectId) throw notFound(`Execution ${id} does not belong to project ${projectId}.`);
  return e;
}

export function pageParams(c: RouteContext): { offset: number; size: number } {
  const size = queryInt(c.req.query, 'size', MAX_PAGE);
  if (size > MAX_PAGE) throw new ApiError(400, 'size of query chunk should not exceed 50', ERR.generic);
  if (size < 1) throw invalid('size', size);
  return { offset: queryInt(c.req.query, 'offset', 0), size };
}

function createExecution(c: RouteContext) {
  const body = bodyObject(c.body);
  const issueId = requiredJiraId(body.issueId, 'issueId');
  const projectId = requiredJiraId(body.projectId, 'projectId');
  const versionId = requiredJiraId(body.versionId, 'versionId');
  c.store.checkProjectVersion(projectId, versionId);
  const issue = c.store.issueById(issueId);
  if (!issue) throw notFound(`Issue ${issueId} does not exist or is not a Test of project ${projectId}.`);
  const cycleId = optionalZephyrId(body.cycleId, 'cycleId') ?? AD_HOC_ID;
  const cycle = c.store.cycle(cycleId, projectId, versionId);
  // `folderId` files the execution in that folder of the cycle (field evidence); "already exist" is per folder.
  const folderId = optionalZephyrId(body.folderId, 'folderId');
  const folder = folderId === undefined ? undefined : folderIn(c.store, cycle, folderId);
  const statusId = statusObject(c.store, body.status);
  const comment = optionalText(body.comment, 'comment');
  if ((folder ?? cycle).byIssue.has(issue.id)) {
    const where = folder ? `folder ${folder.name} (${folder.id}) of cycle ${cycle.name}` : `cycle ${cycle.name} (${cycle.id})`;
    throw new ApiError(400, `Execution already exist for issue ${issue.key} in ${where}.`, ERR.generic);
  }
  const e = c.store.addExecution(cycle, issue, c.sub, 'post', folder);
  if (comment !== undefined) e.comment = comment;
  // A status given at creation is applied but not counted in statusChanges (only PUT/bulk count).
  if (statusId !== undefined && statusId !== e.statusId) c.store.setStatus(e, statusId, c.sub, false);
  return ok(executionWrapper(c.store, e));
}

function getExecution(c: RouteContext) {
  const issueId = requiredJiraId(c.req.query.get('issueId'), 'issueId');
  const projectId = requiredJiraId(c.req.query.get('projectId'), 'projectId');
  return ok(executionWrapper(c.store, findExecution(c.store, c.params.id, issueId, projectId)));
}

function updateExecution(c: RouteContext) {
  const body = bodyObject(c.body);
  const issueId = requiredJiraId(body.issueId, 'issueId');
  const projectId = requiredJiraId(body.projectId, 'projectId');
  const e = findExecution(c.store, c.params.id, issueId, projectId);
  const cycleId = optionalZephyrId(body.cycleId, 'cycleId');
  if (cycleId !== undefined && cycleId !== e.cycleId) throw notFound(`Execution ${e.id} is not in cycle ${cycleId}.`);
  const versionId = optionalJiraId(body.versionId, 'versionId');
  if (versionId !== undefined && versionId !== e.versionId) throw notFound(`Execution ${e.id} is not in version ${versionId}.`);
  // A client may repeat the execution's folder (field evidence); another folder is an error.
  const folderId = optionalZephyrId(body.folderId, 'folderId');
  if (folderId !== undefined && folderId !== e.folderId) throw notFound(`Execution ${e.id} is not in folder ${folderId}.`);
  const statusId = statusObject(c.store, body.status);
  const comment = optionalText(body.comment, 'comment');
  if (comment !== undefined) e.comment = comment;
  if (statusId !== undefined) c.store.setStatus(e, statusId, c.sub);
  e.modifiedByAccountId = c.sub;
  return ok(executionWrapper(c.store, e));
}

function deleteExecution(c: RouteContext) {
  const issueId = requiredJiraId(c.req.query.get('issueId'), 'issueId');
  const projectId = requiredJiraId(c.req.query.get('projectId'), 'projectId');
  const e = findExecution(c.store, c.params.id, issueId, projectId);
  c.store.deleteExecution(e);
  return ok({ message: `Execution ${e.id} deleted successfully.` });
}

function listByIssue(c: RouteContext) {
  const issueId = requiredJiraId(c.req.query.get('issueId'), 'issueId');
  const projectId = requiredJiraId(c.req.query.get('projectId'), 'projectId');
  c.store.checkProjectVersion(projectId);
  const cycleId = c.req.query.get('cycleId');
  const { offset, size } = pageParams(c);
  const all = [...c.store.executions.values()].filter((e) => e.issueId === issueId && (!cycleId || e.cycleId === cycleId));
  return ok({ executions: all.slice(offset, offset + size).map((e) => executionWrapper(c.store, e)), totalCount: all.length });
}

function searchCycle(c: RouteContext) {
  const { projectId, versionId } = queryProjectVersion(c);
  const { offset, size } = pageParams(c);
  const cycle = c.store.cycle(c.params.id, projectId, versionId);
  const list = cycle.executions; // kept in orderId order
  return ok({ searchObjectList: list.slice(offset, offset + size).map((e) => executionWrapper(c.store, e)), totalCount: list.length });
}

/** `POST zql/search` (§4.7 #32): paging in the body (`offset`, `maxRecords` ≤ 50; its default is
 * not documented: 20, as in the execution search clients send), the 1.0 page shape. */
function searchZql(c: RouteContext) {
  if (c.settings.zql === 'absent') throw new ApiError(404, `No such resource: ${c.req.method} ${c.req.rawPath}`, 404);
  const body = bodyObject(c.body);
  if (typeof body.zqlQuery !== 'string') throw body.zqlQuery === undefined ? missing('zqlQuery') : invalid('zqlQuery', body.zqlQuery);
  const offset = optionalJiraId(body.offset, 'offset') ?? 0;
  const size = optionalJiraId(body.maxRecords, 'maxRecords') ?? 20;
  if (size > MAX_PAGE) throw new ApiError(400, 'maxRecords should not exceed 50', ERR.generic);
  if (size < 1 || offset < 0) throw invalid(size < 1 ? 'maxRecords' : 'offset', size < 1 ? size : offset);
  const query = parseZql(body.zqlQuery);
  const found = c.settings.zql === 'stale' ? [] : runZql(c.store, query);
  return ok({ searchObjectList: found.slice(offset, offset + size).map((e) => executionWrapper(c.store, e)), totalCount: found.length });
}

export const executionRoutes: Route[] = [
  { method: 'POST', path: '/execution', handler: createExecution },
  { method: 'GET', path: '/execution/:id', handler: getExecution },
  { method: 'PUT', path: '/execution/:id', handler: updateExecution },
  { method: 'DELETE', path: '/execution/:id', handler: deleteExecution },
  { method: 'GET', path: '/executions', handler: listByIssue },
  { method: 'GET', path: '/executions/search/cycle/:id', handler: searchCycle },
  { method: 'POST', path: '/zql/search', handler: searchZql },
];
