import type { PlanItem, TargetId, TestRecord, VerifyReport } from '../model';

export interface ContainerInfo {
  id: string;
  name: string;
  reused: boolean;
}

export interface PublishResult {
  /** Items the service confirmed (journaled as done). */
  done: PlanItem[];
  /** Items that could not be published, with the reason (kept in the outbox). */
  failed: Array<{ item: PlanItem; reason: string }>;
}

/** What a target may know about the run when it begins. */
export interface BeginContext {
  /** A CI shard that is not shard 1 waits this long for shard 1's container before creating one. */
  followerWaitMs?: number;
}

/** One line of `check`. */
export interface CheckLine {
  ok: boolean;
  text: string;
}

/** Runs one read-only check and records its line; false when it failed (later checks may depend on it). */
export async function checkStep(lines: CheckLine[], fn: () => Promise<string>): Promise<boolean> {
  try {
    lines.push({ ok: true, text: await fn() });
    return true;
  } catch (error) {
    lines.push({ ok: false, text: (error as Error).message });
    return false;
  }
}

/**
 * What the engine needs from a service: a few methods, one folder per service.
 * Implementations never decide failure policy or touch the outbox; the session does.
 */
export interface Target {
  readonly id: TargetId;
  /** 'Zephyr Squad', 'CucumberStudio'. */
  readonly label: string;
  readonly containerKind: 'cycle' | 'test run';
  /** Keys a record maps to in this service (empty = not mapped). */
  keysOf(record: TestRecord): string[];
  /**
   * Preflight (credentials, ids, statuses) and the container (create / reuse); may pre-register the
   * keys known before the tests run. `recordedContainerId` comes from the outbox on replay.
   */
  begin(knownKeys: readonly string[], recordedContainerId?: string, ctx?: BeginContext): Promise<ContainerInfo>;
  /** Pure mapping of records to one item per key (valid after begin: statuses are resolved then). */
  plan(records: readonly TestRecord[]): PlanItem[];
  /** Sends the items; safe to call again with the same items (absolute statuses, no duplicates). */
  publish(items: readonly PlanItem[]): Promise<PublishResult>;
  /** Reads the container back and compares it with what was sent. */
  verify(sent: readonly PlanItem[]): Promise<VerifyReport>;
  /** Read-only verification of the settings against the service (the `check` command). */
  check(): Promise<CheckLine[]>;
  /** Display name of a status in the summary. */
  statusName(status: number | string): string;
  /** Problems found while resolving settings against the service (e.g. unknown status name). */
  readonly warnings: string[];
  /** Requests made so far. */
  calls(): number;
  close(): Promise<void>;
}
