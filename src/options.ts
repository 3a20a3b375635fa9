/** Options of the reporter that are not about one service (each service's own are in its folder). */
export interface GeneralOptions {
  /** Where unsent results are kept for `replay`; default `test-results/tms-outbox`. Env `PW_TMS_OUTBOX_DIR`. */
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
   * by then stays in the outbox for `replay`. Default 600. Env `PW_TMS_PUBLISH_TIMEOUT`.
   */
  publishTimeout?: number | string;
}

export const GENERAL_OPTION_KEYS = ['outboxDir', 'failOnPublishError', 'dryRun', 'summaryFile', 'debug', 'publishTimeout'] as const;
