/** The sandbox's Zephyr records that several of its parts share (types only). */

/** Execution status as `GET /execution/statuses` returns it (§3.2). */
export interface StatusDef {
  id: number;
  name: string;
  description: string;
  color: string;
  /** 0 = built-in, 1 = tenant-defined. */
  type: number;
}

export interface Issue {
  id: number;
  key: string;
  summary: string;
}

export interface Execution {
  id: string;
  issueId: number;
  issueKey: string;
  projectId: number;
  versionId: number;
  cycleId: string;
  orderId: number;
  statusId: number;
  comment: string;
  executedOn: number | null;
  executedByAccountId: string | null;
  createdByAccountId: string;
  modifiedByAccountId: string;
  creationDate: number;
  /** How many times the status was set (PUT or bulk job): lets tests see retries. */
  statusChanges: number;
  /** `clone` only for executions copied by `POST /cycle?clonedCycleId=`. */
  createdVia: 'add-tests' | 'post' | 'clone';
}
