import type { ContainerInfo } from '../../kit/target';
import type { ZephyrClient, ZephyrExecution } from './client';
import type { ZephyrConfig } from './config';
import { ExecutionReader } from './executions';
import type { FolderCalls, ZephyrFolder } from './folders';
import { chunk, parseAddJobMessage, waitForJob, type JobWaitOptions } from './jobs';

const ADD_CHUNK = 100;

/**
 * Which keys are executions of the cycle's root, or (split mode) of one folder of it: `folder` with its calls. Keys become executions only through "add tests" (by key, an async
 * job): creating an execution needs the numeric issueId, which only the cycle listing tells. Adding is safe
 * to repeat (a key already there is skipped by the service).
 */
export class CycleMembers {
  private readonly executions = new Map<string, ZephyrExecution>();
  /** Keys not in the cycle, why, and whether Zephyr refused the key itself (sending again cannot help). */
  private readonly rejected = new Map<string, { reason: string; refused: boolean }>();
  private readonly reader: ExecutionReader;

  constructor(
    private readonly cfg: Pick<ZephyrConfig, 'projectId' | 'versionId'>,
    private readonly client: ZephyrClient,
    private readonly jobs: JobWaitOptions,
    /** Split mode: the Playwright project's folder, and the folder calls (added and read there, not in the root). */
    readonly folder?: { folder: ZephyrFolder; calls: FolderCalls },
  ) {
    this.reader = new ExecutionReader(client);
  }

  /** The key's execution, as last read or set. */
  get(key: string): ZephyrExecution | undefined {
    return this.executions.get(key);
  }

  /** The key's execution is no longer in the cycle: the next `ensure` adds the key again. */
  forget(key: string): void {
    this.executions.delete(key);
  }

  /** Why a key is not in the cycle, once adding it failed. */
  rejection(key: string): { reason: string; refused: boolean } | undefined {
    return this.rejected.get(key);
  }

  /** A key in the cycle (the Jira project key of a link comes from it). */
  anyKey(): string | undefined {
    return this.executions.keys().next().value;
  }

  /** Adds missing keys (≤ 100 per job), waits for the jobs, then reads their executions (see ExecutionReader). */
  async ensure(cycle: ContainerInfo, keys: readonly string[]): Promise<void> {
    const missing = [...new Set(keys)].filter((k) => !this.executions.has(k) && !this.rejected.get(k)?.refused);
    if (!missing.length) return;
    const { projectId, versionId } = this.cfg;
    const invalid = new Set<string>();
    /** Keys of a job that failed, with why: one bad chunk must not hold back the keys of the others. */
    const failedWith = new Map<string, Error>();
    await Promise.all(
      chunk(missing, ADD_CHUNK).map(async (part) => {
        try {
          const token = this.folder
            ? await this.folder.calls.addTests(this.folder.folder.id, part, { cycleId: cycle.id, projectId, versionId })
            : await this.client.addTests(cycle.id, part, projectId, versionId);
          const progress = await waitForJob(this.client, token, this.jobs);
          for (const k of parseAddJobMessage(progress.message)) invalid.add(k);
        } catch (error) {
          for (const k of part) failedWith.set(k, error as Error);
        }
      }),
    );
    // Nothing added at all (the service down, say): each key says why, without a read that would fail too. The
    // keys already in the cycle still get their statuses; these are tried again with the next send.
    if (failedWith.size === missing.length) {
      for (const [k, error] of failedWith) this.rejected.set(k, { reason: error.message, refused: false });
      return;
    }
    // Every key is looked for, whatever the job's message said (its wording is not established). The listing
    // holds every execution of the cycle: one held already keeps what we know of it (a status job of ours may
    // still be running, the listing shows the status before it).
    for (const e of await this.read(cycle, missing, invalid)) {
      if (!this.executions.has(e.issueKey)) this.executions.set(e.issueKey, e);
    }
    for (const k of missing.filter((key) => !this.executions.has(key))) {
      const refused = invalid.has(k);
      const where = this.folder ? `folder "${this.folder.folder.name}" of the cycle` : 'cycle';
      const reason = refused
        ? `${k} is not a Test issue of project ${projectId} (Zephyr rejected it)`
        : (failedWith.get(k)?.message ?? `${k} was not added to the ${where} by Zephyr`);
      this.rejected.set(k, { reason, refused });
    }
  }

  /** The root: the cheaper of listing and ZQL (ExecutionReader). A folder: its own listing, every page (no ZQL by folder yet). */
  private async read(cycle: ContainerInfo, wanted: string[], invalid: ReadonlySet<string>): Promise<ZephyrExecution[]> {
    const { projectId, versionId } = this.cfg;
    if (!this.folder) return this.reader.read({ ...cycle, projectId, versionId }, wanted, invalid);
    const all = await this.folder.calls.readAll(this.folder.folder.id, { cycleId: cycle.id, projectId, versionId });
    return wanted.flatMap((k) => all.get(k) ?? []);
  }
}
