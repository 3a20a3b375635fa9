import { randomUUID } from 'node:crypto';

export type JobKind = 'add-tests' | 'bulk-status' | 'bulk-delete';

/** What a job reports once it has run: `message` is the outcome text, `errorMessage` non-null on failure. */
export interface JobOutcome {
  message: string;
  errorMessage: string | null;
}

interface Job {
  token: string;
  kind: JobKind;
  createdAt: number;
  dueAt: number;
  totalSteps: number;
  apply: () => JobOutcome;
  outcome: JobOutcome | null;
  doneAt: number | null;
}

const ENTITY: Record<JobKind, string> = {
  'add-tests': 'ADD_TESTS_TO_CYCLE',
  'bulk-status': 'BULK_EXECUTION_STATUS_CHANGE',
  'bulk-delete': 'BULK_EXECUTION_DELETE',
};

/**
 * Asynchronous jobs (add tests, bulk status, bulk delete). A job takes effect `delayMs` after it was
 * created; there are no timers: `runDue()` is called at the start of every handled request and by
 * `snapshot()`, and applies every due job in creation order, so the outcome is deterministic.
 */
export class JobQueue {
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly delayMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  create(kind: JobKind, totalSteps: number, apply: () => JobOutcome): string {
    const now = this.clock();
    const token = randomUUID();
    this.jobs.set(token, { token, kind, createdAt: now, dueAt: now + this.delayMs, totalSteps, apply, outcome: null, doneAt: null });
    return token;
  }

  runDue(): void {
    const now = this.clock();
    for (const job of this.jobs.values()) {
      if (job.outcome !== null || job.dueAt > now) continue;
      try {
        job.outcome = job.apply();
      } catch (e) {
        job.outcome = { message: '', errorMessage: (e as Error).message };
      }
      job.doneAt = now;
    }
  }

  has(token: string): boolean {
    return this.jobs.has(token);
  }

  /** The §3.10 job object; `progress` stays below 1 (at most 0.99) until the job has been applied. */
  view(token: string): Record<string, unknown> | undefined {
    const job = this.jobs.get(token);
    if (!job) return undefined;
    const done = job.outcome !== null;
    const progress = done ? 1 : Math.min(0.99, Math.floor(((this.clock() - job.createdAt) / Math.max(1, this.delayMs)) * 100) / 100);
    const seconds = Math.round(((job.doneAt ?? this.clock()) - job.createdAt) / 1000);
    return {
      id: job.token,
      entity: ENTITY[job.kind],
      entityId: '',
      progress,
      completedSteps: done ? job.totalSteps : Math.floor(progress * job.totalSteps),
      totalSteps: job.totalSteps,
      stepLabel: '',
      stepMessage: '',
      stepMessages: [],
      summaryMessage: '',
      message: job.outcome?.message ?? '',
      errorMessage: job.outcome?.errorMessage ?? null,
      timeTaken: `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`,
      zipped: false,
    };
  }

  counts(): { total: number; pending: number } {
    let pending = 0;
    for (const j of this.jobs.values()) if (j.outcome === null) pending++;
    return { total: this.jobs.size, pending };
  }

  reset(): void {
    this.jobs.clear();
  }
}
