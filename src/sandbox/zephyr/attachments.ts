/**
 * The two halves of an attachment upload (§4.10 #43): the metadata, which travels in the query string (and is
 * therefore signed by the qsh like any other query), and the file, one `multipart/form-data` part named `file`
 * (field evidence). The body is parsed by the platform (`Response.formData()`), never by hand.
 */
import type { SandboxRequest } from '../types';
import { ApiError, ERR, invalid, missing, notFound, requiredJiraId } from './http';
import type { Execution, ZephyrStore } from './store';

export const ENTITY_NAMES = ['execution', 'stepResult'] as const;
export type EntityName = (typeof ENTITY_NAMES)[number];

/** Where an upload goes, resolved from its query and checked against the entity's own ids. */
export interface UploadTarget {
  entityName: EntityName;
  entityId: string;
  execution: Execution;
  comment: string;
}

/** A query parameter given once: absent → undefined, twice → 400 (152: which one was meant is ambiguous). */
function single(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw invalid(name, all);
  return all[0];
}

function requiredText(query: URLSearchParams, name: string): string {
  const v = single(query, name);
  if (v === undefined || v === '') throw missing(name);
  return v;
}

/**
 * `entityName` (execution | stepResult), `entityId`, `issueId`, `projectId`, `versionId` and `cycleId` are required
 * (every client sends them all); they must be the entity's own, else 400 (160). `comment` is optional (may be
 * empty). `executionId`, which one client adds for step results, must then name the entity's execution.
 */
export function uploadTarget(store: ZephyrStore, query: URLSearchParams): UploadTarget {
  const entityName = requiredText(query, 'entityName');
  if (!(ENTITY_NAMES as readonly string[]).includes(entityName)) {
    throw new ApiError(400, `Invalid value for parameter entityName: "${entityName}" (expected execution or stepResult).`, ERR.invalid);
  }
  const entityId = requiredText(query, 'entityId');
  const issueId = requiredJiraId(single(query, 'issueId'), 'issueId');
  const projectId = requiredJiraId(single(query, 'projectId'), 'projectId');
  const versionId = requiredJiraId(single(query, 'versionId'), 'versionId');
  const cycleId = requiredText(query, 'cycleId');
  const comment = single(query, 'comment') ?? '';

  let execution: Execution | undefined;
  if (entityName === 'execution') {
    execution = store.executions.get(entityId);
    if (!execution) throw notFound(`Execution ${entityId} does not exist.`);
  } else {
    const result = store.evidence.stepResults.get(entityId);
    if (!result) throw notFound(`Step result ${entityId} does not exist.`);
    execution = store.executions.get(result.executionId);
    if (!execution) throw notFound(`Step result ${entityId} does not exist.`);
  }
  const executionId = single(query, 'executionId');
  if (executionId !== undefined && executionId !== execution.id) {
    throw notFound(`${entityName} ${entityId} does not belong to execution ${executionId}.`);
  }
  const e = execution;
  if (e.issueId !== issueId) throw notFound(`Execution ${e.id} does not belong to issue ${issueId}.`);
  if (e.projectId !== projectId) throw notFound(`Execution ${e.id} does not belong to project ${projectId}.`);
  if (e.versionId !== versionId) throw notFound(`Execution ${e.id} is not in version ${versionId}.`);
  if (e.cycleId !== cycleId) throw notFound(`Execution ${e.id} is not in cycle ${cycleId}.`);
  return { entityName: entityName as EntityName, entityId, execution: e, comment };
}

export interface FilePart {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * The one file of the upload: 400 when the body is not `multipart/form-data`, cannot be read, has no file in a
 * part named `file` (151; a file under another name such as `files` is not taken) or has several.
 */
export async function readFilePart(req: SandboxRequest): Promise<FilePart> {
  const contentType = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new ApiError(
      400,
      `Upload the file as multipart/form-data in a part named "file" (got content-type "${contentType || 'none'}").`,
      ERR.generic,
    );
  }
  let form: FormData;
  try {
    form = await new Response(req.rawBytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new ApiError(400, 'The multipart/form-data body could not be read (boundary or framing is wrong).', ERR.generic);
  }
  const files = form.getAll('file').filter((v) => typeof v !== 'string');
  if (files.length === 0) {
    // Name each part received, marking text fields: a "file" part without a filename is text, not a file.
    const parts = [...new Set(form.keys())].map((k) => (form.getAll(k).some((v) => typeof v !== 'string') ? k : `${k} (text)`));
    throw new ApiError(
      400,
      `Missing parameter: file (send the file in a multipart part named "file"; parts received: ${parts.length > 0 ? parts.join(', ') : 'none'}).`,
      ERR.missing,
    );
  }
  if (files.length > 1) throw new ApiError(400, `One file per upload: got ${files.length} parts named "file".`, ERR.invalid);
  const file = files[0];
  return {
    fileName: file.name || 'file',
    contentType: file.type || 'application/octet-stream',
    bytes: Buffer.from(await file.arrayBuffer()),
  };
}
