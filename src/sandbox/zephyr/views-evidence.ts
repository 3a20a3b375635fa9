import type { Attachment, StepResult } from './evidence';
import type { TestStep } from './steps';
import type { Execution, ZephyrStore } from './store';

/** A test step (§3.7) as `GET {api}/teststep/{issueId}` lists it. */
export function testStepView(step: TestStep): Record<string, unknown> {
  return { ...step, customFieldValues: [], attachments: [] };
}

/**
 * A step result (§3.8) as `stepresult/search` lists it and `PUT stepresult/{id}` answers it. `status` is the full
 * status object: clients read `status.name` and `status.description` [C]. `executedOn`/`executedBy*` appear
 * once a status other than UNEXECUTED was set, like on executions.
 */
export function stepResultView(store: ZephyrStore, r: StepResult): Record<string, unknown> {
  const status = store.cfg.steps.status(r.statusId) ?? { id: r.statusId, name: String(r.statusId), description: '', color: '', type: 1 };
  const view: Record<string, unknown> = {
    id: r.id,
    stepId: r.stepId,
    orderId: r.orderId,
    executionId: r.executionId,
    issueId: r.issueId,
    status: { ...status },
    comment: r.comment,
    defects: [],
    modifiedBy: r.modifiedByAccountId,
    modifiedByAccountId: r.modifiedByAccountId,
  };
  if (r.executedOn !== null) {
    view.executedOn = r.executedOn;
    view.executedBy = r.executedByAccountId;
    view.executedByAccountId = r.executedByAccountId;
  }
  return view;
}

/**
 * An attachment as the upload answers it and `attachment/search/execution` lists it. Production's shape is not
 * established (§3.9 [U]): `fileName` is what one client reads from the search [R], `name` + `fileExtension` what
 * another (an exporter run against production) reads; both are given so neither convention is favoured.
 */
export function attachmentView(a: Attachment): Record<string, unknown> {
  const dot = a.fileName.lastIndexOf('.');
  return {
    id: a.id,
    fileName: a.fileName,
    name: a.fileName,
    fileExtension: dot > 0 ? a.fileName.slice(dot + 1) : '',
    size: a.size,
    contentType: a.contentType,
    comment: a.comment,
    entityName: a.entityName,
    entityId: a.entityId,
    executionId: a.executionId,
    issueId: a.issueId,
    projectId: a.projectId,
    versionId: a.versionId,
    cycleId: a.cycleId,
    createdBy: a.createdByAccountId,
    createdByAccountId: a.createdByAccountId,
    dateCreated: a.creationDate,
  };
}

/** The state view's evidence of one execution (see `ZephyrSnapshot`). */
export interface ExecutionEvidenceSnapshot {
  stepResults: { id: string; stepId: string; orderId: number; statusId: number; statusName: string; changes: number }[];
  /** Attachments of the execution and of its step results, in upload order (bytes: `module.attachmentBytes(id)`). */
  attachments: {
    id: string;
    fileName: string;
    size: number;
    sha256: string;
    contentType: string;
    comment: string;
    entityName: Attachment['entityName'];
    entityId: string;
  }[];
}

export function executionEvidence(store: ZephyrStore, e: Execution): ExecutionEvidenceSnapshot {
  return {
    stepResults: store.evidence.stepResultsOf(e.id).map((r) => ({
      id: r.id,
      stepId: r.stepId,
      orderId: r.orderId,
      statusId: r.statusId,
      statusName: store.cfg.steps.status(r.statusId)?.name ?? String(r.statusId),
      changes: r.changes,
    })),
    attachments: store.evidence.attachmentsOf(e.id).map((a) => ({
      id: a.id,
      fileName: a.fileName,
      size: a.size,
      sha256: a.sha256,
      contentType: a.contentType,
      comment: a.comment,
      entityName: a.entityName,
      entityId: a.entityId,
    })),
  };
}
