import { ok, tokenAnswer, type Route, type RouteContext } from './context';
import { ApiError, ERR, bodyObject, missing, notFound, requiredJiraId } from './http';
import { knownStatusId } from './routes-executions';
import { bulkStepStatus } from './routes-steps';
import type { SandboxResponse } from '../types';
import type { Cycle, Folder, Issue } from './store';

export const MAX_ADD_ISSUES = 100;
export const MAX_BULK_EXECUTIONS = 1000;

/**
 * Job outcome messages (`message` of GET /jobprogress once `progress` is 1) are JSON text:
 *   add tests:   {"added":N,"existing":M,"invalid":["PROJ-999999", …]}
 *                (existing = keys already in the cycle, skipped; invalid = unknown keys, not added;
 *                setting addTestsMessage 'text': the same in sentences, see settings.ts)
 *   bulk status: {"updated":N,"notFound":["<execution id>", …]}   (unknown ids are skipped)
 *   bulk delete: {"deleted":N,"notFound":["<execution id>", …]}
 * `errorMessage` stays null unless the job could not run at all (e.g. its cycle was deleted first).
 */
function addTestsToCycle(c: RouteContext) {
  const body = bodyObject(c.body);
  const method = parseMethod(body.method);
  const projectId = requiredJiraId(body.projectId, 'projectId');
  const versionId = requiredJiraId(body.versionId, 'versionId');
  c.store.checkProjectVersion(projectId, versionId);
  const cycleId = c.params.id;
  c.store.cycle(cycleId, projectId, versionId); // 400 now when unknown
  if (method !== 1) {
    throw new ApiError(
      400,
      `method ${method} is not supported by the sandbox: use method 1 with "issues" (a list of issue keys).`,
      ERR.invalid,
    );
  }
  // The body's `folderId` here is only inferred (§4.6 #28 [I]); folders are filled with #29, so it is refused.
  if (body.folderId !== undefined && body.folderId !== null && body.folderId !== '') {
    throw new ApiError(400, 'folderId is not taken here: add tests to a folder with POST executions/add/folder/{folderId}.', ERR.invalid);
  }
  return queueAddTests(c, issueKeys(body.issues), () => ({ cycle: c.store.cycle(cycleId, projectId, versionId) }));
}

/**
 * The add-tests job: each key not yet in the target (the cycle's root, or one of its folders) gets an execution
 * there. The target is resolved when the job runs, so a cycle or folder deleted meanwhile fails the job.
 */
export function queueAddTests(c: RouteContext, keys: string[], target: () => { cycle: Cycle; folder?: Folder }): SandboxResponse {
  const sub = c.sub;
  const token = c.jobs.create('add-tests', keys.length, () => {
    const { cycle, folder } = target();
    const holder = folder ?? cycle;
    let added = 0;
    const [existing, invalid]: string[][] = [[], []];
    for (const key of keys) {
      const issue: Issue | undefined = c.store.issueByKey(key);
      if (!issue) invalid.push(key);
      else if (holder.byIssue.has(issue.id)) existing.push(key);
      else {
        c.store.addExecution(cycle, issue, sub, 'add-tests', folder);
        added++;
      }
    }
    const message =
      c.settings.addTestsMessage === 'text'
        ? `${added} test(s) added. ${invalid.length} test(s) were invalid${invalid.length ? `: ${invalid.join(', ')}` : ''}. Existing tests: ${existing.join(', ') || 'none'}`
        : JSON.stringify({ added, existing: existing.length, invalid });
    return { message, errorMessage: null };
  });
  return tokenAnswer(token, c.settings.jobTokenStyle);
}

export function parseMethod(value: unknown): number {
  if (value === undefined || value === null || value === '') throw new ApiError(400, 'method field is required.', ERR.missing);
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (n === 1 || n === 2 || n === 3) return n;
  throw new ApiError(
    400,
    `Invalid method ${JSON.stringify(value)}: expected 1 (issue keys), 2 (JQL) or 3 (from another cycle).`,
    ERR.invalid,
  );
}

/** `issues`: an array of issue KEYS, or a single key as a string. */
export function issueKeys(value: unknown): string[] {
  if (value === undefined || value === null) throw missing('issues');
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((k) => typeof k === 'string')) {
    throw new ApiError(400, 'issues must be an array of issue keys, e.g. ["PROJ-1","PROJ-2"].', ERR.invalid);
  }
  if (list.length > MAX_ADD_ISSUES) {
    throw new ApiError(400, `At most ${MAX_ADD_ISSUES} issues can be added per request (got ${list.length}).`, ERR.invalid);
  }
  return list as string[];
}

function executionIds(value: unknown): string[] {
  if (value === undefined || value === null) throw missing('executions');
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw new ApiError(400, 'executions must be an array of execution ids.', ERR.invalid);
  }
  if (value.length > MAX_BULK_EXECUTIONS) {
    throw new ApiError(400, `At most ${MAX_BULK_EXECUTIONS} executions can be changed per request (got ${value.length}).`, ERR.invalid);
  }
  return [...new Set(value.map(String))];
}

function bulkStatus(c: RouteContext) {
  const body = bodyObject(c.body);
  const ids = executionIds(body.executions);
  if (typeof body.status === 'object' && body.status !== null) {
    throw new ApiError(400, 'status must be a status id (number or numeric string), e.g. "status": 1.', ERR.invalid);
  }
  const statusId = knownStatusId(c.store, body.status, 'status');
  const stepStatusId = bulkStepStatus(c.store, body);
  const sub = c.sub;
  const token = c.jobs.create('bulk-status', ids.length, () => {
    let updated = 0;
    const missingIds: string[] = [];
    for (const id of ids) {
      const e = c.store.executions.get(id);
      if (!e) missingIds.push(id);
      else {
        c.store.setStatus(e, statusId, sub);
        if (stepStatusId !== undefined) {
          for (const r of c.store.evidence.stepResultsOf(e.id)) c.store.evidence.setStepStatus(r, stepStatusId, sub);
        }
        updated++;
      }
    }
    return { message: JSON.stringify({ updated, notFound: missingIds }), errorMessage: null };
  });
  return tokenAnswer(token, c.settings.jobTokenStyle);
}

function bulkDelete(c: RouteContext) {
  const ids = executionIds(bodyObject(c.body).executions);
  const token = c.jobs.create('bulk-delete', ids.length, () => {
    let deleted = 0;
    const missingIds: string[] = [];
    for (const id of ids) {
      const e = c.store.executions.get(id);
      if (!e) missingIds.push(id);
      else {
        c.store.deleteExecution(e);
        deleted++;
      }
    }
    return { message: JSON.stringify({ deleted, notFound: missingIds }), errorMessage: null };
  });
  return tokenAnswer(token, c.settings.jobTokenStyle);
}

function jobProgress(c: RouteContext) {
  const view = c.jobs.view(c.params.token);
  if (!view) throw notFound(`Job ${c.params.token} does not exist.`);
  return ok(view);
}

export const jobRoutes: Route[] = [
  { method: 'POST', path: '/executions/add/cycle/:id', handler: addTestsToCycle },
  { method: 'POST', path: '/executions', handler: bulkStatus },
  { method: 'POST', path: '/executions/delete', handler: bulkDelete },
  { method: 'GET', path: '/jobprogress/:token', handler: jobProgress },
];
