import { createHash, randomUUID } from 'node:crypto';
import type { StepCatalog } from './steps';
import type { Execution, Issue } from './entities';

/** One step's result within one execution (§3.8); exists from the execution's creation on. */
export interface StepResult {
  id: string;
  stepId: string;
  orderId: number;
  executionId: string;
  issueId: number;
  statusId: number;
  comment: string;
  /** How many times the status was set (PUT or the bulk job's step flag): lets tests see retries. */
  changes: number;
  executedOn: number | null;
  executedByAccountId: string | null;
  modifiedByAccountId: string;
}

/** A file attached to an execution or to one of its step results (§3.9). */
export interface Attachment {
  id: string;
  fileName: string;
  size: number;
  contentType: string;
  comment: string;
  sha256: string;
  entityName: 'execution' | 'stepResult';
  /** The execution id or the step-result id. */
  entityId: string;
  /** The execution the entity belongs to (the entity itself for `execution`). */
  executionId: string;
  issueId: number;
  projectId: number;
  versionId: number;
  cycleId: string;
  createdByAccountId: string;
  creationDate: number;
  bytes: Buffer;
}

export type NewAttachment = Omit<Attachment, 'id' | 'size' | 'sha256' | 'creationDate'>;

interface ExecutionEvidence {
  stepResults: StepResult[];
  attachments: Attachment[];
}

const UNEXECUTED = -1;

/**
 * Step results and attachments, kept per execution. The ZephyrStore calls `executionAdded` for every new execution
 * (add-tests job, POST execution, clone) and `forget` when one is deleted, so nothing outlives its execution.
 */
export class EvidenceStore {
  readonly stepResults = new Map<string, StepResult>();
  readonly attachments = new Map<string, Attachment>();
  private readonly byExecution = new Map<string, ExecutionEvidence>();

  constructor(
    readonly steps: StepCatalog,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** One UNEXECUTED step result per step the issue has at this moment (steps added later would have none). */
  executionAdded(execution: Execution, issue: Issue, sub: string): void {
    const stepResults = this.steps.stepsOf(issue).map((step): StepResult => ({
      id: randomUUID(),
      stepId: step.id,
      orderId: step.orderId,
      executionId: execution.id,
      issueId: issue.id,
      statusId: UNEXECUTED,
      comment: '',
      changes: 0,
      executedOn: null,
      executedByAccountId: null,
      modifiedByAccountId: sub,
    }));
    for (const r of stepResults) this.stepResults.set(r.id, r);
    this.byExecution.set(execution.id, { stepResults, attachments: [] });
  }

  /** In `orderId` order. */
  stepResultsOf(executionId: string): StepResult[] {
    return this.byExecution.get(executionId)?.stepResults ?? [];
  }

  /** Every attachment of the execution and of its step results, in upload order. */
  attachmentsOf(executionId: string): Attachment[] {
    return this.byExecution.get(executionId)?.attachments ?? [];
  }

  /** Like an execution's status: ≠ -1 stamps executedOn/executedBy with now/sub, -1 clears them; always counted. */
  setStepStatus(result: StepResult, statusId: number, sub: string): void {
    result.statusId = statusId;
    result.changes++;
    result.modifiedByAccountId = sub;
    result.executedOn = statusId === UNEXECUTED ? null : this.now();
    result.executedByAccountId = statusId === UNEXECUTED ? null : sub;
  }

  addAttachment(fields: NewAttachment): Attachment {
    const attachment: Attachment = {
      ...fields,
      id: randomUUID(),
      size: fields.bytes.length,
      sha256: createHash('sha256').update(fields.bytes).digest('hex'),
      creationDate: this.now(),
    };
    this.attachments.set(attachment.id, attachment);
    this.byExecution.get(attachment.executionId)?.attachments.push(attachment);
    return attachment;
  }

  deleteAttachment(attachment: Attachment): void {
    this.attachments.delete(attachment.id);
    const evidence = this.byExecution.get(attachment.executionId);
    if (evidence) evidence.attachments = evidence.attachments.filter((a) => a.id !== attachment.id);
  }

  forget(executionId: string): void {
    const evidence = this.byExecution.get(executionId);
    if (!evidence) return;
    for (const r of evidence.stepResults) this.stepResults.delete(r.id);
    for (const a of evidence.attachments) this.attachments.delete(a.id);
    this.byExecution.delete(executionId);
  }

  reset(): void {
    this.stepResults.clear();
    this.attachments.clear();
    this.byExecution.clear();
  }
}
