/** Options of the reporter that are not about one service (each service's own are in its folder). */
export interface GeneralOptions {
  /** Where unsent results are kept for `replay`; default `tms-outbox` (outside Playwright's output folder, which each run empties). Env `PW_TMS_OUTBOX_DIR`. */
  outboxDir?: string;
  /** A publish failure fails the run. Env `PW_TMS_FAIL_ON_ERROR`. */
  failOnPublishError?: boolean;
  /** Map and print; send nothing. Env `PW_TMS_DRY_RUN`. */
  dryRun?: boolean;
  /** Default `test-results/tms-summary.json`. Env `PW_TMS_SUMMARY_FILE`. */
  summaryFile?: string;
  /** Log every request (secrets redacted). Env `PW_TMS_DEBUG`. */
  debug?: boolean;
  /**
   * The longest (seconds) the reporter keeps Playwright waiting after the last test; what is not sent
   * by then stays in the outbox for `replay`. Default 600; `0` or `'off'`: no limit. Env `PW_TMS_PUBLISH_TIMEOUT`.
   */
  publishTimeout?: number | string;
  /**
   * How long (seconds) a request may go without a byte from the service; after that it counts as no answer,
   * and a service that answers nothing for two such requests in a row (or refuses three connections) is
   * given up for the run, its results kept in the outbox. Default 30. Env `PW_TMS_REQUEST_TIMEOUT`.
   */
  requestTimeout?: number | string;
  /**
   * Which tests' Playwright attachments (screenshots, videos, traces, `testInfo.attach`) are uploaded:
   * `failed` (failed, timed out and flaky tests; default), `all`, `none`. Env `PW_TMS_ATTACHMENTS`.
   */
  attachments?: 'failed' | 'all' | 'none';
  /** Larger files are not uploaded (they are named in the summary). Default 10485760. Env `PW_TMS_ATTACHMENT_MAX_BYTES`. */
  attachmentMaxBytes?: number | string;
  /**
   * `merge` (default): one result per key, whatever project ran its tests (a failure's comment names the test,
   * project first). `split`: each Playwright project gets its own results — a Zephyr folder per project in the
   * cycle, a CucumberStudio execution environment per project in the run. Env `PW_TMS_PROJECTS`.
   */
  projects?: 'merge' | 'split';
  /** Build label of a cycle / run this reporter creates; default detected from CI. Env `PW_TMS_BUILD`. */
  build?: string;
  /** Environment of a cycle this reporter creates; default the Playwright project names. Env `PW_TMS_ENVIRONMENT`. */
  environment?: string;
  /** Description of a cycle / run this reporter creates; default the CI run link, branch and commit. Env `PW_TMS_DESCRIPTION`. */
  description?: string;
}

/** What a cycle / run this reporter creates carries (a reused one is left as it is). */
export interface RunInfo {
  /** The build label a created cycle / run shows (CI build number, `build`, PW_TMS_BUILD); none locally. */
  build?: string;
  /**
   * Which CI build this publish belongs to: every process of one build (shards, a job per project,
   * merge-reports, a later replay) agrees on it — the label when there is one, else one of this run's own
   * (a local run is a build of its own). Set by the engine, journaled; a replay takes its run's.
   */
  buildId?: string;
  environment?: string;
  description: string;
}

/** Which attachments go up, and how large they may be. */
export interface EvidencePolicy {
  attachments: 'failed' | 'all' | 'none';
  maxBytes: number;
}
