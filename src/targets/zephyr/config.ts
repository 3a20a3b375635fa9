import {
  bool,
  choice,
  int,
  rate,
  readFields,
  secretsOf,
  statusMap,
  str,
  url,
  type FieldsOf,
  type StatusMapOption,
  type Values,
} from '../../kit/config-fields';
import type { ConfigInput } from '../../kit/target';

/** Options of the Zephyr Squad Cloud target (`zephyr.*`). */
export interface ZephyrOptions {
  /** Origin + context path; default `https://prod-api.zephyr4jiracloud.com/connect`. Env `ZEPHYR_BASE_URL`. */
  baseUrl?: string;
  /** Env `ZEPHYR_ACCESS_KEY`. Sent as `zapiAccessKey` and JWT `iss`. */
  accessKey?: string;
  /** Env `ZEPHYR_SECRET_KEY`. HS256 key; never printed. */
  secretKey?: string;
  /** Env `ZEPHYR_ACCOUNT_ID`. JWT `sub`. */
  accountId?: string;
  /** Numeric Jira project id. Env `ZEPHYR_PROJECT_ID`. */
  projectId?: number | string;
  /** Numeric Jira version id; default -1 (Unscheduled). Env `ZEPHYR_VERSION_ID`. */
  versionId?: number | string;
  /** Publish into this existing cycle. Env `ZEPHYR_CYCLE_ID`. */
  cycleId?: string;
  /** Reuse or create the cycle with this name. Env `ZEPHYR_CYCLE_NAME`. */
  cycleName?: string;
  /** Outcome -> Zephyr status id or name (tenant custom statuses work by name). */
  statusMap?: StatusMapOption;
  /** Put the error text of failed tests in the execution comment; default true. Env `ZEPHYR_FAILURE_COMMENTS`. */
  failureComments?: boolean;
  /** Longest comment sent; longer text is cut with a marker. Default 750. Env `ZEPHYR_COMMENT_LIMIT`. */
  commentLimit?: number | string;
  /**
   * Client-side pacing `N/SECONDS` (or `off`: the service's 429 waits only, honoured by the whole lane).
   * Default 28/60, shared out among N CI shards on one key (each 28/N per minute), since the limit (about
   * 30 per minute) counts every process on the key. Env `ZEPHYR_RATE_LIMIT`.
   */
  rateLimit?: string;
  /**
   * Step results: `passed` (default: a passed test's step results are set PASS by the bulk status call),
   * `detailed` (failed tests also get per-step statuses from their top-level `test.step`s), `off`.
   * Env `ZEPHYR_STEP_RESULTS`.
   */
  stepResults?: 'passed' | 'detailed' | 'off';
  /** Your Jira site (`https://<site>.atlassian.net`), only to print a link to the cycle. Env `ZEPHYR_JIRA_URL`. */
  jiraUrl?: string;
}

export const ZEPHYR_DEFAULT_BASE_URL = 'https://prod-api.zephyr4jiracloud.com/connect';
/** Zephyr Server rejects comments over 750 characters; the cloud limit is not published. */
export const ZEPHYR_COMMENT_LIMIT = 750;
/** Names the settings a project/version error is about. */
export const PROJECT_HINT = (p: number, v: number) =>
  `ZEPHYR_PROJECT_ID (zephyr.projectId) = ${p} and ZEPHYR_VERSION_ID (zephyr.versionId) = ${v}`;

/** One row per option (`ZephyrOptions` has the docs). */
const FIELDS = {
  baseUrl: url('ZEPHYR_BASE_URL', ZEPHYR_DEFAULT_BASE_URL, { credentials: true }),
  accessKey: str('ZEPHYR_ACCESS_KEY', { required: 'Zephyr > API Keys in Jira', secret: true }),
  secretKey: str('ZEPHYR_SECRET_KEY', { required: 'Zephyr > API Keys in Jira', secret: true }),
  accountId: str('ZEPHYR_ACCOUNT_ID', { required: 'your Atlassian account id' }),
  projectId: int('ZEPHYR_PROJECT_ID', 1, { required: 'the numeric Jira project id' }),
  versionId: int('ZEPHYR_VERSION_ID', -1, { default: -1 }),
  cycleId: str('ZEPHYR_CYCLE_ID'),
  cycleName: str('ZEPHYR_CYCLE_NAME'),
  statusMap: statusMap(),
  failureComments: bool('ZEPHYR_FAILURE_COMMENTS', true),
  commentLimit: int('ZEPHYR_COMMENT_LIMIT', 50, { default: ZEPHYR_COMMENT_LIMIT }),
  // No default here: the definition shares its pacing out among the shards.
  rateLimit: rate('ZEPHYR_RATE_LIMIT'),
  stepResults: choice('ZEPHYR_STEP_RESULTS', ['passed', 'detailed', 'off'] as const, 'passed'),
  jiraUrl: url('ZEPHYR_JIRA_URL'),
} satisfies FieldsOf<ZephyrOptions>;

/** Every option key it reads (others are reported as unknown, with a did-you-mean). */
export const OPTION_KEYS = Object.keys(FIELDS);

/** `rateLimit` null: off; undefined: the default (see the definition). */
export type ZephyrConfig = Readonly<Values<typeof FIELDS> & { cycleName: string }>;

/** Enabled when an access key or secret key is given; undefined otherwise. */
export function readZephyrConfig({ options, env, problems: p, runName, container }: ConfigInput): ZephyrConfig | undefined {
  const v = readFields(p, FIELDS, options, env, 'zephyr.', ['accessKey', 'secretKey']);
  if (!v) return undefined;
  const cycleName = container?.name || v.cycleName || runName;
  if (cycleName.length > 255) p.add('zephyr.cycleName', 'ZEPHYR_CYCLE_NAME', 'is longer than 255 characters');
  return { ...v, cycleId: container?.id === null ? undefined : (container?.id ?? v.cycleId), cycleName };
}

/** Keys and the secret as given, even when other settings are invalid. */
export const zephyrSecrets = (o: Record<string, unknown>, env: Record<string, string | undefined>) => secretsOf(FIELDS, o, env);
