/**
 * Folder routes (§4.5 #13–15, #24/25, #29; rules in `folders.ts`). `DELETE folder/{id}` (#16) is not served:
 * whether production has it is not established and no cloud client calls it.
 */
import { ok, type Route, type RouteContext } from './context';
import { createFolder, folderIn, folderView, foldersOf, renameFolder } from './folders';
import { ApiError, ERR, bodyObject, invalid, missing, optionalText, optionalZephyrId, requiredJiraId } from './http';
import { queryProjectVersion } from './routes-cycles';
import { pageParams } from './routes-executions';
import { issueKeys, parseMethod, queueAddTests } from './routes-jobs';
import type { Cycle, Folder } from './store';
import { executionWrapper } from './views';

function requiredName(value: unknown): string {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) throw missing('name');
  if (typeof value !== 'string') throw invalid('name', value);
  return value;
}

function requiredCycleId(value: unknown): string {
  const id = optionalZephyrId(value, 'cycleId');
  if (id === undefined) throw missing('cycleId');
  return id;
}

/** The cycle and folder a folder-scoped request names: `cycleId`, `projectId`, `versionId` in the query. */
function folderOfQuery(c: RouteContext): { cycle: Cycle; folder: Folder } {
  const { projectId, versionId } = queryProjectVersion(c);
  const cycle = c.store.cycle(requiredCycleId(c.req.query.get('cycleId')), projectId, versionId);
  return { cycle, folder: folderIn(c.store, cycle, c.params.id) };
}

/** #13 — bare array of the cycle's folders. */
function listFolders(c: RouteContext) {
  const { projectId, versionId } = queryProjectVersion(c);
  const cycle = c.store.cycle(requiredCycleId(c.req.query.get('cycleId')), projectId, versionId);
  return ok(foldersOf(c.store, cycle).map((f) => folderView(c.store, f)));
}

/** #14 — a name already used in the cycle answers 400 / 152 (field evidence); ids may come as strings. */
function createFolderRoute(c: RouteContext) {
  const body = bodyObject(c.body);
  const name = requiredName(body.name);
  const cycleId = requiredCycleId(body.cycleId);
  const projectId = requiredJiraId(body.projectId, 'projectId');
  const versionId = requiredJiraId(body.versionId, 'versionId');
  c.store.checkProjectVersion(projectId, versionId);
  const cycle = c.store.cycle(cycleId, projectId, versionId);
  const description = optionalText(body.description, 'description') ?? '';
  const folder = createFolder(c.store, cycle, { name, description }, c.settings.folderNames, c.sub);
  return ok(folderView(c.store, folder));
}

/** #15 — rename / describe; the ids may be in the body (as one client sends them) or the query. */
function updateFolder(c: RouteContext) {
  const body = bodyObject(c.body);
  const projectId = requiredJiraId(body.projectId ?? c.req.query.get('projectId'), 'projectId');
  const versionId = requiredJiraId(body.versionId ?? c.req.query.get('versionId'), 'versionId');
  const cycle = c.store.cycle(requiredCycleId(body.cycleId ?? c.req.query.get('cycleId')), projectId, versionId);
  const folder = folderIn(c.store, cycle, c.params.id);
  if (body.name !== undefined) renameFolder(c.store, cycle, folder, requiredName(body.name), c.settings.folderNames, c.sub);
  const description = optionalText(body.description, 'description');
  if (description !== undefined) folder.description = description;
  return ok(folderView(c.store, folder));
}

/** #24 — 1.0 page of the folder's executions (the cycle search does not list them). */
function searchFolder(c: RouteContext) {
  const { folder } = folderOfQuery(c);
  const { offset, size } = pageParams(c);
  const list = folder.executions;
  return ok({ searchObjectList: list.slice(offset, offset + size).map((e) => executionWrapper(c.store, e)), totalCount: list.length });
}

/** #25 — the same in the 2.0 envelope, with `currentOffset` (a migration tool pages on it). */
function searchFolder2(c: RouteContext) {
  const { folder } = folderOfQuery(c);
  const { offset, size } = pageParams(c);
  const list = folder.executions;
  return ok({
    searchResult: {
      searchObjectList: list.slice(offset, offset + size).map((e) => executionWrapper(c.store, e)),
      totalCount: list.length,
      currentOffset: offset,
    },
  });
}

/**
 * #29 — as add-tests to a cycle, plus `cycleId` in the body. Whether production works without it is not
 * established; every client but one sends it, so the sandbox requires it (151).
 */
function addTestsToFolder(c: RouteContext) {
  const body = bodyObject(c.body);
  const method = parseMethod(body.method);
  const projectId = requiredJiraId(body.projectId, 'projectId');
  const versionId = requiredJiraId(body.versionId, 'versionId');
  c.store.checkProjectVersion(projectId, versionId);
  const cycleId = requiredCycleId(body.cycleId);
  const folderId = c.params.id;
  folderIn(c.store, c.store.cycle(cycleId, projectId, versionId), folderId); // 400 now when unknown
  if (method !== 1) {
    throw new ApiError(
      400,
      `method ${method} is not supported by the sandbox: use method 1 with "issues" (a list of issue keys).`,
      ERR.invalid,
    );
  }
  return queueAddTests(c, issueKeys(body.issues), () => {
    const cycle = c.store.cycle(cycleId, projectId, versionId);
    return { cycle, folder: folderIn(c.store, cycle, folderId) };
  });
}

export const folderRoutes: Route[] = [
  { method: 'GET', path: '/folders', handler: listFolders },
  { method: 'POST', path: '/folder', handler: createFolderRoute },
  { method: 'PUT', path: '/folder/:id', handler: updateFolder },
  { method: 'GET', path: '/executions/search/folder/:id', handler: searchFolder },
  { method: 'GET', path: '/executions/search/folder/:id', api: 2, handler: searchFolder2 },
  { method: 'POST', path: '/executions/add/folder/:id', handler: addTestsToFolder },
];
