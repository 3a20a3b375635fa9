import { bool, choice, int, str, type Field, type FieldsOf } from './kit/config-fields';

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
  /** Build label of a cycle / run this reporter creates; default detected from CI. Env `PW_TMS_BUILD`. */
  build?: string;
  /** Environment of a cycle this reporter creates; default the Playwright project names. Env `PW_TMS_ENVIRONMENT`. */
  environment?: string;
  /** Description of a cycle / run this reporter creates; default the CI run link, branch and commit. Env `PW_TMS_DESCRIPTION`. */
  description?: string;
}

/** What a cycle / run this reporter creates carries (a reused one is left as it is). */
export interface RunInfo {
  build?: string;
  environment?: string;
  description: string;
}

/** Which attachments go up, and how large they may be. */
export interface EvidencePolicy {
  attachments: 'failed' | 'all' | 'none';
  maxBytes: number;
}

/**
 * Not under `test-results`: Playwright empties its output folder when a run starts, and a journal kept
 * there for replay would be gone with the next run.
 */
export const DEFAULT_OUTBOX_DIR = 'tms-outbox';

/** The options that are not about one service: one row each (`GeneralOptions` has the docs). */
export const GENERAL_FIELDS = {
  outboxDir: str('PW_TMS_OUTBOX_DIR', { default: DEFAULT_OUTBOX_DIR }),
  failOnPublishError: bool('PW_TMS_FAIL_ON_ERROR', false),
  dryRun: bool('PW_TMS_DRY_RUN', false, { value: true, because: 'taken as true: a dry run' }),
  summaryFile: str('PW_TMS_SUMMARY_FILE', { default: 'test-results/tms-summary.json' }),
  debug: bool('PW_TMS_DEBUG', false),
  publishTimeout: {
    env: 'PW_TMS_PUBLISH_TIMEOUT',
    default: 600_000,
    /** ms from whole seconds; `0` or `off`: no limit. Any size goes: the timers clamp what Node cannot keep (2³¹−1 ms). */
    read(value, problem) {
      const text = String(value).trim().toLowerCase();
      const seconds = text === 'off' ? 0 : typeof value === 'number' ? value : /^\d+$/.test(text) ? Number(text) : NaN;
      if (Number.isSafeInteger(seconds) && seconds >= 0) return seconds === 0 ? Infinity : seconds * 1000;
      problem(`expected a whole number of seconds (0 or off: no limit), got ${JSON.stringify(value)}; 600 is used`);
    },
  } satisfies Field<number>,
  requestTimeout: int('PW_TMS_REQUEST_TIMEOUT', 1, { default: 30 }),
  attachments: choice('PW_TMS_ATTACHMENTS', ['failed', 'all', 'none'] as const, 'failed'),
  attachmentMaxBytes: int('PW_TMS_ATTACHMENT_MAX_BYTES', 1, { default: 10 * 1024 * 1024 }),
  build: str('PW_TMS_BUILD'),
  environment: str('PW_TMS_ENVIRONMENT'),
  description: str('PW_TMS_DESCRIPTION'),
} satisfies FieldsOf<GeneralOptions>;
