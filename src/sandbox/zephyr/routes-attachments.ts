/**
 * Attachments (§4.10): upload (#43), list an execution's (#44), delete (#47). Download (#46) is not served: the
 * sandbox core sends bodies as text, so a binary file could not go back out intact; tests read the stored bytes
 * with the module's `attachmentBytes(id)` instead. The step-result listing (#45) is not served either (its request
 * and answer shapes are unknown, §4.10 [U]); the state view lists step-result attachments.
 */
import { ok, type Route, type RouteContext } from './context';
import { missing, notFound, optionalJiraId } from './http';
import { readFilePart, uploadTarget } from './attachments';
import type { SandboxResponse } from '../types';
import { attachmentView } from './views-evidence';

/**
 * #43 — answers 200 with the stored attachment (`attachmentView`; production's answer is not established). The
 * query is checked before the body is read, and again after: the execution may have gone while the body was parsed.
 */
async function upload(c: RouteContext): Promise<SandboxResponse> {
  uploadTarget(c.store, c.req.query);
  const file = await readFilePart(c.req);
  const target = uploadTarget(c.store, c.req.query);
  const e = target.execution;
  const attachment = c.store.evidence.addAttachment({
    fileName: file.fileName,
    contentType: file.contentType,
    bytes: file.bytes,
    comment: target.comment,
    entityName: target.entityName,
    entityId: target.entityId,
    executionId: e.id,
    issueId: e.issueId,
    projectId: e.projectId,
    versionId: e.versionId,
    cycleId: e.cycleId,
    createdByAccountId: c.sub,
  });
  return ok(attachmentView(attachment));
}

/**
 * #44 — `{"<executionId>": [attachment…]}`, the execution's own attachments in upload order (those of its step
 * results are not included). `entityId` is required; `issueId`/`projectId`, which a client adds, must match.
 */
function searchExecution(c: RouteContext) {
  const entityId = c.req.query.get('entityId');
  if (entityId === null || entityId === '') throw missing('entityId');
  const e = c.store.executions.get(entityId);
  if (!e) throw notFound(`Execution ${entityId} does not exist.`);
  const issueId = optionalJiraId(c.req.query.get('issueId'), 'issueId');
  if (issueId !== undefined && issueId !== e.issueId) throw notFound(`Execution ${e.id} does not belong to issue ${issueId}.`);
  const projectId = optionalJiraId(c.req.query.get('projectId'), 'projectId');
  if (projectId !== undefined && projectId !== e.projectId) throw notFound(`Execution ${e.id} does not belong to project ${projectId}.`);
  const own = c.store.evidence.attachmentsOf(e.id).filter((a) => a.entityName === 'execution');
  return ok({ [e.id]: own.map(attachmentView) });
}

/** #47 — answer shape not established; a short message like the other deletes. */
function remove(c: RouteContext) {
  const attachment = c.store.evidence.attachments.get(c.params.id);
  if (!attachment) throw notFound(`Attachment ${c.params.id} does not exist.`);
  c.store.evidence.deleteAttachment(attachment);
  return ok({ message: `Attachment ${attachment.id} deleted successfully.` });
}

export const attachmentRoutes: Route[] = [
  { method: 'POST', path: '/attachment', multipart: true, handler: upload },
  { method: 'GET', path: '/attachment/search/execution', handler: searchExecution },
  { method: 'DELETE', path: '/attachment/:id', handler: remove },
];
