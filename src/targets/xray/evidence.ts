/**
 * Files on a run (§8.2 step 8): the run's id and its files' names come from `getTestRun` first, every attempt —
 * whether Xray adds a second file of the same name or replaces it is not established (§6.10), so a file already
 * there (a replay, an earlier attempt that may have been applied) is never sent again.
 */
import type { RequestLane } from '../../kit/lane';
import type { UploadFile } from '../../kit/target';
import type { XrayClient } from './client';
import { addEvidenceOnce, testRunOnce, type ExecutionRef } from './queries';

export async function attachEvidence(
  client: XrayClient,
  lane: RequestLane,
  where: { execution: ExecutionRef; testIssueId: string; testKey: string },
  file: UploadFile,
): Promise<'uploaded' | 'present'> {
  const { execution, testIssueId, testKey } = where;
  return lane.retry(
    'addEvidenceToTestRun',
    async () => {
      const run = await testRunOnce(client, testIssueId, execution.issueId);
      if (!run) throw new Error(`Test Execution ${execution.key} has no run of ${testKey} to attach ${file.fileName} to`);
      if (run.evidence.includes(file.fileName)) return 'present';
      await addEvidenceOnce(client, run.id, file);
      return 'uploaded';
    },
    `evidence ${execution.issueId} ${testIssueId} ${file.fileName}`,
  );
}
