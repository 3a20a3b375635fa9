/** Domain types shared by the reporter, the engine, the targets and replay. No service is named here. */

/**
 * The final outcome of one Playwright test after retries (one per test, never per attempt).
 * `passed` includes `test.fail()` tests that failed as expected.
 */
export type Outcome = 'passed' | 'flaky' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';

export const OUTCOMES: readonly Outcome[] = ['passed', 'flaky', 'failed', 'timedOut', 'skipped', 'interrupted'];

/** A target's id as listed in the registry (`src/targets/index.ts`). */
export type TargetId = string;

/** What the reporter knows of one finished test; journaled to the outbox as-is (no secrets in here). */
export interface TestRecord {
  testId: string;
  /** Project name › file › describe › title, for comments and messages. */
  title: string;
  /** Keys this test reports to, by target id (a target absent or empty = not mapped there). */
  keys: Record<TargetId, string[]>;
  outcome: Outcome;
  /** ANSI-stripped error text of the last failing attempt (up to FULL_ERROR_LIMIT characters), if any. */
  error?: string;
  /** Where that error was thrown (`file:line:column`), if Playwright knows. */
  errorLocation?: string;
  /** Number of attempts that ran (1 + retries used). */
  attempts: number;
  /** A flaky test whose passing attempt was not its last (a serial group's retry ran it again and it failed): that attempt. */
  passedAttempt?: number;
  /** The last attempt's top-level `test.step`s, in order (steps never reached are absent). */
  steps?: StepStatus[];
  /** The last attempt's attachments, by the policy (files by path; bodies are written to files first). */
  attachments?: AttachmentRef[];
  /** The attachments policy covers this test: its files go up, and the full error text when a comment had to cut it. */
  evidence?: true;
  /**
   * `projects: 'split'`: the Playwright project the test ran in ('' for an unnamed one). Its keys are kept apart
   * from the same keys in another project (see `keysOf`): each project has its own result in the service.
   */
  place?: string;
  /**
   * When the attempt the outcome stands for ran (the one its steps come from: a flaky test's passing attempt, a
   * failure's failing one), ISO 8601 UTC; both or neither. Absent in journals written before they were kept.
   */
  startedAt?: string;
  finishedAt?: string;
}

export type StepStatus = 'passed' | 'failed' | 'skipped';

export interface AttachmentRef {
  name: string;
  contentType: string;
  /** Absolute path of the file (a body attachment is written next to the journal before it is journaled). */
  path?: string;
  /** Where the run found the file, when replay finds it elsewhere (a copy, a moved outbox): upload names derive from it. */
  origin?: string;
  /** Only between Playwright and the engine: an in-memory body, never journaled. */
  body?: Buffer;
  /** In a plan item (never journaled): the title of the test the file came from, for the upload's comment. */
  test?: string;
}

/**
 * The keys a record maps to in one target; in split mode each is placed in the record's project, so that
 * everything keyed by key (completeness, worst wins, the ledger, the journal) keeps projects apart unchanged.
 */
export function keysOf(record: Pick<TestRecord, 'keys' | 'place'>, target: TargetId): string[] {
  const keys = record.keys[target] ?? [];
  return record.place === undefined ? keys : keys.map((k) => placedKey(record.place!, k));
}

/** Joins a project and a key (a control character: neither a key nor a project name holds one). */
const PLACE_MARK = '\u001f';

/** A key of one project (split mode). */
export function placedKey(place: string, key: string): string {
  return `${place}${PLACE_MARK}${key}`;
}

/** A key as the service knows it, and the project it belongs to in split mode (`place` absent in merge mode). */
export function unplaced(key: string): { key: string; place?: string } {
  const at = key.indexOf(PLACE_MARK);
  return at < 0 ? { key } : { key: key.slice(at + 1), place: key.slice(0, at) };
}

/** How a key is shown: `PROJ-1`, or `PROJ-1 (chromium)` in split mode. */
export function keyLabel(key: string): string {
  const { key: k, place } = unplaced(key);
  return place === undefined ? k : `${k} (${place || 'unnamed project'})`;
}

/** One publishable result for one key in a service, after worst-wins aggregation. */
export interface PlanItem {
  key: string;
  outcome: Outcome;
  /** The service's status: a numeric id or a status name, as the target defines it. */
  status: number | string;
  /** Text for the execution comment / result description ('' when none). */
  comment: string;
  /** Titles of the Playwright tests that fed this result. */
  tests: string[];
  /** Top-level `test.step` statuses of the test that decided the status, in order (steps never reached are absent). */
  steps?: StepStatus[];
  /** Files to attach to this result (every feeding test's, by the policy); bodies only for generated files. */
  attachments?: AttachmentRef[];
  /** When the tests that fed this result ran: the earliest start and the latest finish of those with timing. */
  startedAt?: string;
  finishedAt?: string;
}

export interface VerifyReport {
  ok: boolean;
  /** One sentence per check that failed, or what was checked when ok. */
  details: string[];
  /** Container status as the service reports it (a cycle's status, a run's counters). */
  containerStatus?: string;
  /**
   * The service still lacks results of this run that the read-back could not send (e.g. dataset rows made
   * after their result went out): the journal is kept, and a replay's read-back sends them.
   */
  incomplete?: boolean;
}

/** A cycle / run / Test Execution, as the summary names it. */
export interface ContainerSummary {
  kind: string;
  id?: string;
  name?: string;
  reused?: boolean;
}

/** One Playwright project's part of a target's summary (split mode). */
export interface PlaceSummary {
  published: number;
  countsByStatus: Record<string, number>;
  /**
   * Where a service keeps each project in a container of its own (Xray: a Test Execution per project), that one:
   * the run then has no container of its own. Absent where the project is a part of the run's (a Zephyr folder).
   */
  container?: ContainerSummary;
  /** That container's web address, when known. */
  link?: string;
}

/** Machine-readable outcome of one target's publish (goes to the summary JSON). */
export interface TargetSummary {
  target: TargetId;
  /** Display name of the service. */
  label: string;
  enabled: boolean;
  /** The cycle / run results went to; absent when each place has its own (`byPlace`'s: Xray split mode). */
  container?: ContainerSummary;
  published: number;
  countsByStatus: Record<string, number>;
  unmapped: number;
  notRun: number;
  /** Split mode: what was published per Playwright project (the summary line gives one line each). */
  byPlace?: Record<string, PlaceSummary>;
  /** Keys also mapped by a test that never started (the run stopped first): published from the tests that ran. */
  partlyRun?: string[];
  errors: string[];
  /** Settings that were resolved against the service with a fallback (e.g. an unknown status name). */
  warnings?: string[];
  unsent: number;
  /** Results whose key the service refused (no such Test issue / scenario): not kept for replay. */
  refused?: number;
  outbox?: string;
  /** publishTimeout ended the publishing before it was done (the rest is in the outbox). */
  cutShort?: boolean;
  /** A signal (SIGINT: Ctrl+C; SIGTERM: a CI cancel), not publishTimeout, cut the publishing short. */
  stoppedBy?: string;
  verify?: VerifyReport;
  /** Evidence files: uploaded, already there, skipped on purpose (named, with why), not sent (named, with why). */
  attachments?: { uploaded: number; present: number; skipped: string[]; failed: string[] };
  /** Web address of the cycle / run, when known. */
  link?: string;
  calls: number;
  durationMs: number;
  dryRun?: boolean;
}

/** A target's summary before anything is published (every count 0, no error yet). */
export function emptySummary(target: TargetId, label: string, unmapped: number, notRun: number): TargetSummary {
  return {
    target,
    label,
    enabled: true,
    published: 0,
    countsByStatus: {},
    unmapped,
    notRun,
    errors: [],
    unsent: 0,
    calls: 0,
    durationMs: 0,
  };
}

export interface RunSummary {
  version: 1;
  startedAt: string;
  finishedAt: string;
  targets: Record<TargetId, TargetSummary>;
  /** Why nothing was published at all (a run with no tests, or one Playwright ended before any test). */
  note?: string;
}
