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
  /** The folder of the cycle it is filed in; null when it sits in the cycle's root. */
  folderId: string | null;
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
  /** Each status so set, in order: lets tests see a status replaced, even when a later call restored it. */
  statusHistory: number[];
  /** `clone` only for executions copied by `POST /cycle?clonedCycleId=`. */
  createdVia: 'add-tests' | 'post' | 'clone';
}

/**
 * A folder of a cycle (§3.6): one level deep, its own executions (the same issue may also sit in the cycle root and
 * in other folders, each a separate execution). Names are unique within the cycle (`folders.ts`).
 */
export interface Folder {
  id: string;
  name: string;
  description: string;
  cycleId: string;
  projectId: number;
  versionId: number;
  createdByAccountId: string;
  modifiedByAccountId: string;
  creationDate: number;
  nextOrderId: number;
  /** Kept in orderId order. */
  executions: Execution[];
  /** Same executions by issueId (a test is in a folder at most once). */
  byIssue: Map<number, Execution>;
}
