/**
 * What a service is, to the rest of the package: a definition (config, keys, journal meta, factory) and
 * the Target it creates (a few methods the engine drives). A service is one folder under src/targets/
 * that exports one TargetDefinition, plus one line in the registry.
 */
import type { HttpSend } from '../http/client';
import type { KeySource, TestLike } from '../shared/mapping';
import type { Outcome, PlanItem, TestRecord, VerifyReport } from '../shared/model';
import type { Env, Problems } from './config-fields';
import type { RunInfo } from '../shared/options';
import type { Deadline } from './deadline';
import type { Reachability } from './reachability';
import type { LaneOptions } from './lane';
import type { LaneSet } from './lanes';

export interface ContainerInfo {
  id: string;
  name: string;
  reused: boolean;
  /** Something about the container the user should know (said once, and in the summary), e.g. it is archived. */
  warning?: string;
}

/** A place's own container (split mode, where each Playwright project has one), and its web address when known. */
export interface PlaceContainer extends ContainerInfo {
  link?: string;
}

export interface BeginResult extends ContainerInfo {
  /**
   * Settles (never rejects) with the background work `begin` started (registering known keys, waiting for
   * generated tests). The engine waits for it before the stream's first batch and before closing the lanes.
   */
  preparation?: Promise<void>;
}

export interface PublishResult {
  /** Confirmed by the service (journaled as done). */
  done: PlanItem[];
  /**
   * Kept in the outbox, with the reason. `refused`: the service refused the key itself (no such Test issue or
   * scenario): journaled as refused, replay leaves it, the summary says to fix the test's key.
   */
  failed: Array<{ item: PlanItem; reason: string; refused?: boolean }>;
  /** Files of `publish`'s `files` the service confirmed along with their item's status (journaled as attached). */
  carried?: Array<{ item: PlanItem; fileName: string }>;
}

export interface BeginOptions {
  /** Keys known before the tests run (a target may register them meanwhile). */
  knownKeys: readonly string[];
  /** A CI shard that is not shard 1 waits this long for shard 1's container before creating one. */
  followerWaitMs?: number;
}

/** Outcome -> status of one target, resolved once (explicit step, so dry run can use it too). */
export interface StatusTable {
  byOutcome: Record<Outcome, number | string>;
  name(status: number | string): string;
  /** Settings resolved with a fallback (e.g. an unknown status name), one line each. */
  warnings: string[];
}

/** One file to attach to a result, read by the engine (size checked against attachmentMaxBytes first). */
export interface UploadFile {
  /** Unique among the result's files. */
  fileName: string;
  contentType: string;
  bytes: Buffer;
  /** The test it came from (a key may have several). */
  test?: string;
}

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
 * What the engine needs from a service. Implementations never decide failure policy or touch the
 * outbox; the session does. Order: resolveStatuses, begin, then publish / verify any number of times.
 * Counting calls and closing lanes is the engine's (lanes opened with kit/lanes.ts `openLane`).
 */
export interface Target {
  /** `offline` (dry run): names only the service could resolve are shown as given, with a warning. */
  resolveStatuses(mode: 'offline' | 'service'): Promise<StatusTable>;
  /** Preflight (credentials, ids), the container (create / reuse), and background preparation. */
  begin(options: BeginOptions): Promise<BeginResult>;
  /** Pure: one item per key. */
  plan(records: readonly TestRecord[], statuses: StatusTable): PlanItem[];
  /**
   * Safe to call again with the same items (absolute statuses, no duplicates). `onDone` hears of items as
   * they are confirmed, before the call settles (their files go up meanwhile); each is in `done` too. Calls
   * may overlap, never two with the same key.
   */
  publish(
    items: readonly PlanItem[],
    onDone?: (items: readonly PlanItem[]) => void,
    files?: ReadonlyMap<PlanItem, readonly UploadFile[]>,
  ): Promise<PublishResult>;
  /**
   * The status call can carry files (`publish`'s `files`: read by the engine, within these budgets of raw bytes).
   * Only files of items whose status goes in that call; it says which it carried in `carried`. Anything else — a
   * larger file, a replay, a CI build another process also publishes to — goes by `attach`.
   */
  readonly inlineEvidence?: { maxBytesPerCall: number; maxBytesPerFile: number };
  /**
   * After the status was confirmed. `check`: look first for a file of that name (replay: an earlier process
   * may have sent it unjournaled); an ambiguous failure also looks before repeating: never attached twice.
   */
  attach?(item: PlanItem, file: UploadFile, options: { check: boolean }): Promise<'uploaded' | 'present'>;
  /** The container's web address, for the summary line. */
  link?(): string | undefined;
  /**
   * Split mode where each place is a container of its own, not a part of the run's (Xray: a Test Execution per
   * Playwright project): those found or made so far, by place. The summary names them, and no container of the run:
   * `begin`'s then only holds what the journal keeps to find them again (their common summary, no id). Undefined
   * where the run's container is one (merge mode; Zephyr's folders and CucumberStudio's environments are inside it).
   */
  placeContainers?(): Record<string, PlaceContainer> | undefined;
  /** Dry run: where inside the container these items would go (a build, folders, environments), one line each. */
  wouldPublishInto?(items: readonly PlanItem[]): readonly string[];
  /** Reads the container back and compares it with what was sent. */
  verify(sent: readonly PlanItem[]): Promise<VerifyReport>;
  /** Read-only check of the settings against the service (the `check` command). */
  check(): Promise<CheckLine[]>;
  /** Said once, at the end (e.g. step counts that differ). */
  notes?(): string[];
  /**
   * The stream's batches: one goes at `maxItems` results or when its oldest waited `maxWaitMs`. `spaced`: the
   * next waits as long as the last took (bulk calls: a slow service gets fewer, larger batches). Once every
   * test has its result, the queue goes at once. `pick`: which queued results go now (the rest wait for a
   * later call); `endInMs`: estimated time until the last test ends (Infinity when unknown).
   */
  readonly batching: {
    maxItems: number;
    maxWaitMs: number;
    spaced: boolean;
    pick?: (queued: readonly PlanItem[], run: { endInMs: number }) => readonly PlanItem[];
  };
}

/** What a definition's factory is given besides its config. */
export interface TargetDeps {
  send: HttpSend;
  /** Redacted from the service's answers before they reach a message. */
  secrets: readonly string[];
  /** Tests' and benchmarks' lane knobs, over the service's own (see openLane). */
  lane?: Partial<LaneOptions>;
  /** The engine's: openLane adds each lane (it counts their calls and closes them). */
  lanes?: LaneSet;
  onRetry?: LaneOptions['onRetry'];
  /** An earlier process may have sent something without journaling it: check before sending. */
  replay?: boolean;
  deadline?: Deadline;
  reachability?: Reachability;
  /** Processes of this run publishing at once with the same credentials (CI shards). */
  processes?: number;
  /**
   * When this publication began (epoch ms; replay: the replayed run's). What the service holds from before is
   * an earlier run's: a look after an ambiguous failure must not take it for this run's.
   */
  since?: number;
  /** This run's mark (the same in its replays), carried by its uploads: tells them from an earlier run's. */
  runMark?: string;
  /** What a container this run creates carries (build, environment, description). */
  runInfo?: RunInfo;
  /** Per-target knobs for tests and benchmarks, by target id. */
  tuning?: Record<string, unknown>;
}

/** Where results go when decided outside the options (replay's journal, the CLI's `--name`). */
export interface ContainerChoice {
  /** `null` ignores a configured one (create by name). */
  id?: string | null;
  name?: string;
}

/** What a target's config reader is given. Problems are one line each, naming the option and the env var. */
export interface ConfigInput {
  /** The inner object of `{ <optionsKey>: { … } }`. */
  options: Record<string, unknown>;
  env: Env;
  problems: Problems;
  /** Default container name (the same for every shard of one CI build). */
  runName: string;
  container?: ContainerChoice;
  /** `projects` as configured (`split`: each Playwright project apart), for a setting that cannot go with it. */
  projects?: 'merge' | 'split';
}

/**
 * A setting the service refused (a status name it does not have): nothing is sent to it, and its results are
 * kept for a replay, which takes `settings` from the config it is given rather than from the run's journal.
 */
export class SettingsRefusedError extends Error {
  constructor(
    readonly settings: string[],
    message: string,
  ) {
    super(message);
    this.name = 'SettingsRefusedError';
  }
}

/** Non-secret settings a replay needs to land in the same place (credentials come from env/options). */
export interface JournalTargetMeta {
  /** Option values deciding where results go and what they say (`projectId`, `statusMap`). */
  settings: Record<string, unknown>;
  containerName: string;
  containerId?: string;
}

/** Everything the package knows of one service. `C` is its resolved (read-only) config. */
export interface TargetDefinition<C = unknown> extends KeySource {
  /** Summary JSON key, journal key. */
  readonly id: string;
  readonly label: string;
  readonly containerKind: string;
  /** The env var that names an existing container, and what the `create` command prints for it (`--help`). */
  readonly containerSetting?: { env: string; what: 'id' | 'key' };
  readonly optionsKey: string;
  /** `<PREFIX>_ACCESS_KEY`, … */
  readonly envPrefix: string;
  /** For the "no target enabled" line. */
  readonly enableHint: string;
  /** `cycle` -> `npx playwright-tms-reporter cycle create`. */
  readonly command: string;
  /**
   * Keeps each Playwright project apart in split mode (`projects: 'split'`): its target takes placed keys and
   * groups them with kit/places.ts. Split mode needs every enabled target to.
   */
  readonly places?: boolean;
  /**
   * Split mode makes each place a container of its own (Xray: a Test Execution per project), not a part of the run's
   * one: there is then no one container to name beforehand (the dry run, the `create` command). `nameSetting`: the
   * setting whose name they share (the project's name follows it), as the `create` command names it.
   */
  readonly containerPerPlace?: { nameSetting: string };
  /** Others are reported as unknown, with a did-you-mean. */
  readonly optionKeys: readonly string[];
  /** Undefined when its credentials are absent (not enabled). */
  readConfig(input: ConfigInput): Readonly<C> | undefined;
  /** As given, even when the config is invalid: redacted everywhere. */
  secrets(options: Record<string, unknown>, env: Env): string[];
  /** Empty: not mapped. */
  keysOf(test: Pick<TestLike, 'tags' | 'annotations' | 'results'>): string[];
  /** What replay needs to land in the same place. */
  journalMeta(config: Readonly<C>): JournalTargetMeta;
  create(config: Readonly<C>, deps: TargetDeps): Target;
}

/** A definition with its resolved config: what the engine is handed. */
export interface ResolvedTarget<C = unknown> {
  definition: TargetDefinition<C>;
  config: Readonly<C>;
}
