/**
 * Data model of the CucumberStudio stand-in: the status vocabulary and the records the store keeps.
 * Kept apart from the store so that fixtures, store, documents and views share one definition.
 */

export const STATUSES = ['passed', 'failed', 'retest', 'undefined', 'blocked', 'skipped', 'wip'] as const;
export type Status = (typeof STATUSES)[number];

export function isStatus(value: unknown): value is Status {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
}

/** Unknown or non-string status values are stored as `undefined` (spec §4.1 rule 4: never an error). */
export function normaliseStatus(value: unknown): Status {
  return isStatus(value) ? value : 'undefined';
}

/** Fixed date for fixture audit attributes, so fixture documents are stable across runs. */
export const FIXTURE_TIME = Date.parse('2024-01-08T08:00:00.000Z');

export interface Dataset {
  id: number;
  scenarioId: number;
  index: number;
  name: string;
  data: Record<string, string>;
}

export interface Scenario {
  id: number;
  name: string;
  datasets: Dataset[];
}

export interface TestResult {
  id: number;
  snapshotId: number;
  status: Status;
  statusAuthor: string;
  description: string | null;
  /** As the service shows them (`step-statuses.ts`). */
  stepStatuses: Status[];
  /** `step-statuses` exactly as sent (undefined when absent). */
  stepStatusesSent: unknown;
  /** How the service read them: per test step, per scenario step (shorter than the test), or none sent. */
  stepReading: 'none' | 'test-level' | 'scenario-level';
  /** Sent values that are not statuses (stored as `undefined`). */
  unknownStepStatuses: unknown[];
  attachments: Attachment[];
  createdAt: number;
  updatedAt: number;
}

/** A file uploaded to a test result (multipart part `file`). */
export interface Attachment {
  id: number;
  resultId: number;
  fileName: string;
  size: number;
  contentType: string;
  sha256: string;
  bytes: Buffer;
  /** Where the module read the upload from: the core's raw bytes, or (older core) its UTF-8 `rawBody` text. */
  bytesSource: 'rawBytes' | 'rawBody';
  createdAt: number;
}

export interface TestSnapshot {
  id: number;
  runId: number;
  scenarioId: number;
  scenarioSnapshotId: number;
  folderSnapshotId: number;
  dataset: Dataset | null;
  name: string;
  createdAt: number;
  /** Clock value from which the test exists. */
  readyAt: number;
  results: TestResult[];
}

export interface TestRun {
  id: number;
  projectId: number;
  name: string;
  description: string;
  archived: boolean;
  external: boolean;
  createdAt: number;
  updatedAt: number;
  generatingUntil: number;
  /** Clock value of the last description update (statuses may stay `{}` for a while after it), null if none. */
  descriptionPatchedAt: number | null;
  /** Every description the run had, in order (creation first): tests assert marks such as "duplicate of shard 2". */
  descriptionHistory: string[];
  scenarioIds: number[];
  folderSnapshotId: number;
  snapshots: TestSnapshot[];
}
