/**
 * Folders of a cycle (wire reference §3.6, §4.5 #13–16, and the field evidence in /work/shared/spec/README.md):
 * one level deep, names unique within their cycle, each holding its own executions.
 *
 * What production is known to do, and the sandbox therefore does:
 * - a name already used in the cycle → 400 with `errorCode` 152 (the client re-lists the folders and reuses
 *   the one with that name — which is also what makes concurrent creators safe);
 * - `executions/search/cycle` lists only the root: folder executions are found with `executions/search/folder`,
 *   while the cycle's counts (`expand=executionSummaries`) include them.
 * What is not known, and is a switch (`settings.ts`, `folderNames`): whether names are compared exactly or
 * trimmed and case-insensitively (default: the latter, so a client that does not look for `chromium` when
 * creating `Chromium` meets the 152 here).
 */
import { randomUUID } from 'node:crypto';
import { ApiError, ERR, notFound } from './http';
import type { FolderNames } from './settings';
import type { Cycle, Folder, ZephyrStore } from './store';

export const DUPLICATE_FOLDER_MESSAGE = 'A folder with this name already exists in the cycle.';

/** Folders of the cycle in creation order. */
export function foldersOf(store: ZephyrStore, cycle: Cycle): Folder[] {
  return [...store.folders.values()].filter((f) => f.cycleId === cycle.id && !cycle.adHoc);
}

function sameName(a: string, b: string, rule: FolderNames): boolean {
  return rule === 'exact' ? a === b : a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** A folder of `cycle`; 400 (160) when it does not exist or sits in another cycle. */
export function folderIn(store: ZephyrStore, cycle: Cycle, folderId: string): Folder {
  const folder = store.folders.get(folderId);
  if (!folder || folder.cycleId !== cycle.id || cycle.adHoc) throw notFound(`Folder ${folderId} does not exist in cycle ${cycle.id}.`);
  return folder;
}

/** 400 (152) when another folder of the cycle has that name under the `folderNames` rule. */
function checkUnique(store: ZephyrStore, cycle: Cycle, name: string, rule: FolderNames, except?: Folder): void {
  if (foldersOf(store, cycle).some((f) => f !== except && sameName(f.name, name, rule))) {
    throw new ApiError(400, DUPLICATE_FOLDER_MESSAGE, ERR.invalid);
  }
}

export function createFolder(
  store: ZephyrStore,
  cycle: Cycle,
  fields: { name: string; description: string },
  rule: FolderNames,
  sub: string,
): Folder {
  if (cycle.adHoc) throw new ApiError(400, 'Folders cannot be created in the Ad hoc cycle.', ERR.invalid);
  checkUnique(store, cycle, fields.name, rule);
  const folder: Folder = {
    id: randomUUID(),
    name: fields.name,
    description: fields.description,
    cycleId: cycle.id,
    projectId: cycle.projectId,
    versionId: cycle.versionId,
    createdByAccountId: sub,
    modifiedByAccountId: sub,
    creationDate: Date.now(),
    nextOrderId: 1,
    executions: [],
    byIssue: new Map(),
  };
  store.folders.set(folder.id, folder);
  return folder;
}

export function renameFolder(store: ZephyrStore, cycle: Cycle, folder: Folder, name: string, rule: FolderNames, sub: string): void {
  checkUnique(store, cycle, name, rule, folder);
  folder.name = name;
  folder.modifiedByAccountId = sub;
}

/** The folder object (§3.6) as the list and create answer it. */
export function folderView(store: ZephyrStore, folder: Folder): Record<string, unknown> {
  const cycle = store.cycles.get(folder.cycleId);
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    cycleId: folder.cycleId,
    cycleName: cycle?.name ?? '',
    projectId: folder.projectId,
    versionId: folder.versionId,
    createdBy: folder.createdByAccountId,
    createdByAccountId: folder.createdByAccountId,
    modifiedBy: folder.modifiedByAccountId,
    modifiedByAccountId: folder.modifiedByAccountId,
    creationDate: folder.creationDate,
  };
}
