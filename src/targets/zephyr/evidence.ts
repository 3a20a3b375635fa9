import { Blob } from 'node:buffer';
import type { RequestLane } from '../../kit/lane';
import type { UploadFile } from '../../kit/target';
import type { StepStatus } from '../../shared/model';
import { head } from '../../shared/comment';
import { fitSteps, StepCountNotes } from '../../shared/mapping';
import type { ZephyrClient, ZephyrExecution } from './client';

/** Built-in step result statuses (`GET /teststep/statuses`), the same ids on every tenant. */
export const STEP_PASS = 1;
export const STEP_FAIL = 2;
export const STEP_UNEXECUTED = -1;

/** The run mark that ends an upload's comment (`… (run 3fa2b9c1)`). */
const MARK = /\(run [0-9a-f]{8}\)$/;

interface Where {
  cycleId: string;
  projectId: number;
  versionId: number;
}

/**
 * What goes with an execution besides its status: files (`POST /attachment`, every field in the query,
 * so in the qsh) and per-step results. Uploads are not idempotent: an ambiguous failure is followed by
 * a look at the execution's files before the upload is repeated; a replay looks first.
 */
export class ExecutionEvidence {
  constructor(
    private readonly client: ZephyrClient,
    private readonly lane: RequestLane,
    /** This run's mark: the upload's comment ends with it, and a file is this run's only if its comment does. */
    private readonly runMark?: string,
  ) {}

  /** Keys whose Zephyr test has another number of steps than the Playwright test (said once, at the end). */
  readonly stepCounts = new StepCountNotes();

  async attach(e: ZephyrExecution, where: Where, file: UploadFile, comment: string, check: boolean): Promise<'uploaded' | 'present'> {
    let uploaded = false;
    const marked = this.runMark ? `${head(comment, 180)} (run ${this.runMark})` : comment;
    const key = `attachment ${e.id} ${file.fileName}`;
    await this.lane.retry(
      'attachment/create',
      async (attempt, mayHaveApplied) => {
        if (mayHaveApplied || (attempt === 1 && check)) {
          if (await this.hasFile(e.id, file.fileName)) return;
        }
        const form = new FormData();
        form.append('file', new Blob([file.bytes], { type: file.contentType }), file.fileName);
        await this.client.exchange(
          'attachment/create',
          'POST',
          '/attachment',
          {
            comment: marked,
            cycleId: where.cycleId,
            entityId: e.id,
            entityName: 'execution',
            issueId: e.issueId,
            projectId: where.projectId,
            versionId: where.versionId,
          },
          form,
        );
        uploaded = true;
      },
      key,
    );
    return uploaded ? 'uploaded' : 'present';
  }

  /**
   * Per-step results of a test, matched by order: steps that passed PASS, the failing one FAIL, steps it
   * skipped or never reached UNEXECUTED — an earlier run, or this one before a correction, may have left them
   * PASS. A failure in a Playwright step past the Zephyr test's last step FAILs that last step (fitSteps).
   * Steps it has no result for: PASS for a passed test (as the bulk call gives passed tests), else
   * UNEXECUTED. A step result that already says so is not sent: 1 + changed calls.
   */
  async setSteps(e: ZephyrExecution, steps: readonly StepStatus[], passed = false): Promise<void> {
    const found = await this.client.json<{ stepResults?: Array<{ id: string | number; orderId?: number; status?: unknown }> }>(
      'stepresult/search',
      'GET',
      '/stepresult/search',
      { executionId: e.id, issueId: e.issueId },
    );
    const ordered = [...(found.stepResults ?? [])].sort((a, b) => Number(a.orderId ?? 0) - Number(b.orderId ?? 0));
    const fitted = fitSteps(steps, ordered.length);
    this.stepCounts.saw(e.issueKey, ordered.length, steps);
    await Promise.all(
      ordered.map(async (r, i) => {
        const status =
          fitted[i] === 'failed' ? STEP_FAIL : fitted[i] === 'passed' || (passed && i >= steps.length) ? STEP_PASS : STEP_UNEXECUTED;
        // The status as an object ({id}) or an id; a listing without one (not established) gets the call.
        const now = typeof r.status === 'object' && r.status !== null ? (r.status as { id?: unknown }).id : r.status;
        if (now !== undefined && Number(now) === status) return;
        await this.client.json(
          'stepresult/update',
          'PUT',
          `/stepresult/${encodeURIComponent(String(r.id))}`,
          {},
          {
            status: { id: status },
            issueId: e.issueId,
            executionId: e.id,
          },
        );
      }),
    );
  }

  /**
   * A file of that name on the execution, this run's: where the listing gives comments, one whose comment
   * ends with this run's mark (an earlier run's file of the same name in a reused cycle is not this run's,
   * whichever test's title leads the comment). A comment without any mark (a version before marks, or a
   * listing without comments) leaves the name alone to decide.
   */
  private async hasFile(executionId: string, fileName: string): Promise<boolean> {
    const found = await this.client.json<Record<string, Array<{ fileName?: string; name?: string; comment?: unknown }>>>(
      'attachment/search',
      'GET',
      '/attachment/search/execution',
      { entityId: executionId },
    );
    return (found?.[executionId] ?? []).some(
      (a) =>
        (a.fileName === fileName || a.name === fileName) &&
        (!this.runMark || typeof a.comment !== 'string' || !MARK.test(a.comment) || a.comment.endsWith(`(run ${this.runMark})`)),
    );
  }
}
