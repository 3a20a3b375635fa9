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

/** What `begin` found or made, and the preparation it started there. */
export interface BeginResult extends ContainerInfo {
  /**
   * Settles (never rejects) once the preparation `begin` started in the background has: registering the known
   * keys, waiting for generated tests (kit/container-state.ts). `publish` waits for it by itself; the engine
   * waits for it before the stream's first batch (its time is not a batch's) and before it closes the lanes.
   */
  preparation?: Promise<void>;
}

export interface PublishResult {
  /** Items the service confirmed (journaled as done). */
  done: PlanItem[];
  /**
   * Items that could not be published, with the reason (kept in the outbox). `refused`: the service
   * refused the key itself (no such Test issue, no such scenario): sending again cannot help, so the
   * item is journaled as refused and replay leaves it; the summary says to fix the test's key.
   */
  failed: Array<{ item: PlanItem; reason: string; refused?: boolean }>;
}

export interface BeginOptions {
  /** Keys known before the tests run: a target may register them while the tests run. */
  knownKeys: readonly string[];
  /** A CI shard that is not shard 1 waits this long for shard 1's container before creating one. */
  followerWaitMs?: number;
}

/** Outcome -> status of one target, resolved once (explicit step, so dry run can use it too). */
export interface StatusTable {
  byOutcome: Record<Outcome, number | string>;
  /** Display name of a status (summary, dry run). */
  name(status: number | string): string;
  /** Settings resolved with a fallback (e.g. an unknown status name), one line each. */
  warnings: string[];
}

/** One file to attach to a result, read by the engine (size checked against attachmentMaxBytes first). */
export interface UploadFile {
  /** The name the service shows (unique among the result's files). */
  fileName: string;
  contentType: string;
  bytes: Buffer;
  /** The title of the test the file came from (a key may have several tests). */
  test?: string;
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
 * What the engine needs from a service. Implementations never decide failure policy or touch the
 * outbox; the session does. Order: resolveStatuses, begin, then publish / verify any number of times.
 * Counting calls and closing lanes is the engine's (lanes opened with kit/lanes.ts `openLane`).
 */
export interface Target {
  /**
   * Outcome -> status. `offline` answers without asking the service (dry run): names that only the
   * service could resolve are shown as given, with a warning.
   */
  resolveStatuses(mode: 'offline' | 'service'): Promise<StatusTable>;
  /** Preflight (credentials, ids) and the container (create / reuse), and the preparation begun in the background. */
  begin(options: BeginOptions): Promise<BeginResult>;
  /** Pure mapping of records to one item per key. */
  plan(records: readonly TestRecord[], statuses: StatusTable): PlanItem[];
  /**
   * Sends the items; safe to call again with the same items (absolute statuses, no duplicates). `onDone`
   * hears of items as the service confirms them, before the whole call settles (so their files go up
   * while the rest waits, e.g. for a job); every item it hears of is in the result's `done` too. Calls may
   * run at once (the end of the run beside the stream's batch; the stream's batches once the tests are
   * over), never two with the same key.
   */
  publish(items: readonly PlanItem[], onDone?: (items: readonly PlanItem[]) => void): Promise<PublishResult>;
  /**
   * Attaches a file to the key's result (after its status was confirmed). `check`: look first whether a
   * file of that name is already there (replay: an earlier process may have sent it without journaling).
   * An ambiguous failure is followed by such a look before the upload is repeated, so a file is never
   * attached twice. Optional: a target without it gets no uploads.
   */
  attach?(item: PlanItem, file: UploadFile, options: { check: boolean }): Promise<'uploaded' | 'present'>;
  /** A web address of the container for the summary line, when one is known. */
  link?(): string | undefined;
  /** Reads the container back and compares it with what was sent. */
  verify(sent: readonly PlanItem[]): Promise<VerifyReport>;
  /** Read-only verification of the settings against the service (the `check` command). */
  check(): Promise<CheckLine[]>;
  /** What the user should know of what was sent (e.g. step counts that differ): said once, at the end. */
  notes?(): string[];
  /**
   * How results are grouped while the tests run: a batch goes out when it has `maxItems` results or
   * its oldest result has waited `maxWaitMs`. `spaced`: the next batch waits as long as the last one
   * took (for bulk calls whose cost is per batch, so a slow service gets fewer, larger batches);
   * otherwise the next batch goes as soon as the last one is done (one call per result anyway). Once
   * every test has its result, what is queued goes at once, in batches of `maxItems` side by side.
   * `pick` (optional): which of the queued results go now; the others stay queued for a later batch or
   * the end of the run (a target under a tight budget keeps results that can share a later call).
   * `endInMs`: the estimated time until the last test finishes (Infinity when unknown).
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
  /** Every secret of the config, redacted from the service's answers before they reach a message. */
  secrets: readonly string[];
  /** Tests' and benchmarks' lane knobs, over the service's own (see openLane). */
  lane?: Partial<LaneOptions>;
  /** Where the engine keeps the target's lanes (openLane adds each): it counts their calls and closes them. */
  lanes?: LaneSet;
  onRetry?: LaneOptions['onRetry'];
  /** Replay: an earlier process may have sent something without journaling it; check before sending. */
  replay?: boolean;
  /** The run's publishTimeout, once the tests are over: give it to every lane. */
  deadline?: Deadline;
  /** Whether this service is given up for the run (no answer): give it to its lane and its waits. */
  reachability?: Reachability;
  /** How many processes of this run publish at once with the same credentials (CI shards). */
  processes?: number;
  /**
   * When this publication began (epoch ms; replay: when the run it replays began). What the service holds
   * from before it is an earlier run's, never this run's: a look before repeating a request must not take it
   * for what an ambiguous failure may have applied.
   */
  since?: number;
  /**
   * A short mark of this run, the same in its replays: the files it uploads carry it (Zephyr: in the upload's
   * comment), so a look before repeating an upload tells them from an earlier run's files of the same name.
   */
  runMark?: string;
  /** What a container this run creates carries (build, environment, description). */
  runInfo?: RunInfo;
  /** Per-target knobs for tests and benchmarks, by target id (e.g. faster job polling). */
  tuning?: Record<string, unknown>;
}

/** Where results go when it is decided outside the options: replay's journal, the CLI's `--name`. */
export interface ContainerChoice {
  /** An existing container; `null` ignores a configured one (create by name). */
  id?: string | null;
  name?: string;
}

/** What a target's config reader is given. Problems are one line each, naming the option and the env var. */
export interface ConfigInput {
  /** This target's options object (`{ <optionsKey>: { … } }` -> the inner object). */
  options: Record<string, unknown>;
  env: Env;
  problems: Problems;
  /** Default container name (the same for every shard of one CI build). */
  runName: string;
  container?: ContainerChoice;
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
  /** Option values (by option key) that decide where results go and what they say, e.g. `projectId`, `statusMap`. */
  settings: Record<string, unknown>;
  containerName: string;
  containerId?: string;
}

/** Everything the package knows of one service. `C` is its resolved (read-only) config. */
export interface TargetDefinition<C = unknown> extends KeySource {
  /** Stable id: summary JSON key, journal key. */
  readonly id: string;
  /** Display name, e.g. in the summary line. */
  readonly label: string;
  readonly containerKind: string;
  /** Key of its options object in the reporter options. */
  readonly optionsKey: string;
  /** Prefix of its env vars (`<PREFIX>_ACCESS_KEY`, …). */
  readonly envPrefix: string;
  /** The env vars that switch it on, for the "no target enabled" line. */
  readonly enableHint: string;
  /** The command that creates its container (`cycle` -> `npx playwright-tms-reporter cycle create`). */
  readonly command: string;
  /** Every key of its options object (others are reported as unknown, with a did-you-mean). */
  readonly optionKeys: readonly string[];
  /** Its resolved config, or undefined when its credentials are absent (not enabled). */
  readConfig(input: ConfigInput): Readonly<C> | undefined;
  /** Secret values as given (even when the config is invalid), to redact everywhere. */
  secrets(options: Record<string, unknown>, env: Env): string[];
  /** Keys a Playwright test maps to in this service (empty = not mapped). */
  keysOf(test: Pick<TestLike, 'tags' | 'annotations' | 'results'>): string[];
  /** What the journal keeps so that replay lands in the same place. */
  journalMeta(config: Readonly<C>): JournalTargetMeta;
  create(config: Readonly<C>, deps: TargetDeps): Target;
}

/** A definition with its resolved config: what the engine is handed. */
export interface ResolvedTarget<C = unknown> {
  definition: TargetDefinition<C>;
  config: Readonly<C>;
}
