import {
  pick,
  rawStrings,
  readBool,
  readChoice,
  readInt,
  readRate,
  readStatusMap,
  readString,
  readUrl,
  type StatusMapOption,
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

export interface ZephyrConfig {
  readonly baseUrl: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly accountId: string;
  readonly projectId: number;
  readonly versionId: number;
  readonly cycleId?: string;
  readonly cycleName: string;
  readonly statusMap: StatusMapOption;
  readonly failureComments: boolean;
  readonly commentLimit: number;
  /** null = off; undefined = the default (see the definition). */
  readonly rateLimit: { count: number; windowMs: number } | null | undefined;
  readonly stepResults: 'passed' | 'detailed' | 'off';
  readonly jiraUrl?: string;
}

export const ZEPHYR_DEFAULT_BASE_URL = 'https://prod-api.zephyr4jiracloud.com/connect';
/** Zephyr Server rejects comments over 750 characters; the cloud limit is not published. */
export const ZEPHYR_COMMENT_LIMIT = 750;
const STEP_RESULTS = ['passed', 'detailed', 'off'] as const;
/** Names the settings a project/version error is about. */
export const PROJECT_HINT = (p: number, v: number) =>
  `ZEPHYR_PROJECT_ID (zephyr.projectId) = ${p} and ZEPHYR_VERSION_ID (zephyr.versionId) = ${v}`;

/** Every option key it reads (others are reported as unknown, with a did-you-mean). */
export const OPTION_KEYS = [
  'baseUrl',
  'accessKey',
  'secretKey',
  'accountId',
  'projectId',
  'versionId',
  'cycleId',
  'cycleName',
  'statusMap',
  'failureComments',
  'commentLimit',
  'rateLimit',
  'stepResults',
  'jiraUrl',
];

/** Enabled when an access key or secret key is given; undefined otherwise. */
export function readZephyrConfig({ options: o, env, problems: p, runName, container }: ConfigInput): ZephyrConfig | undefined {
  const accessKey = readString(p, o.accessKey, env, 'zephyr.accessKey', 'ZEPHYR_ACCESS_KEY');
  const secretKey = readString(p, o.secretKey, env, 'zephyr.secretKey', 'ZEPHYR_SECRET_KEY');
  if (!accessKey && !secretKey) return undefined;
  const accountId = readString(p, o.accountId, env, 'zephyr.accountId', 'ZEPHYR_ACCOUNT_ID');
  const projectId = readInt(p, o.projectId, env, 'zephyr.projectId', 'ZEPHYR_PROJECT_ID', 1);
  if (!accessKey) p.add('zephyr.accessKey', 'ZEPHYR_ACCESS_KEY', 'is required (Zephyr > API Keys in Jira)');
  if (!secretKey) p.add('zephyr.secretKey', 'ZEPHYR_SECRET_KEY', 'is required (Zephyr > API Keys in Jira)');
  if (!accountId) p.add('zephyr.accountId', 'ZEPHYR_ACCOUNT_ID', 'is required (your Atlassian account id)');
  if (projectId === undefined && pick(o.projectId, env, 'ZEPHYR_PROJECT_ID').from === 'none')
    p.add('zephyr.projectId', 'ZEPHYR_PROJECT_ID', 'is required (the numeric Jira project id)');
  const cycleId =
    container?.id === null
      ? undefined
      : (container?.id ?? (readString(p, o.cycleId, env, 'zephyr.cycleId', 'ZEPHYR_CYCLE_ID') || undefined));
  const cycleName = container?.name || readString(p, o.cycleName, env, 'zephyr.cycleName', 'ZEPHYR_CYCLE_NAME') || runName;
  if (cycleName.length > 255) p.add('zephyr.cycleName', 'ZEPHYR_CYCLE_NAME', 'is longer than 255 characters');
  return {
    baseUrl: readUrl(p, o.baseUrl, env, 'zephyr.baseUrl', 'ZEPHYR_BASE_URL', ZEPHYR_DEFAULT_BASE_URL, { credentials: true }),
    accessKey: accessKey ?? '',
    secretKey: secretKey ?? '',
    accountId: accountId ?? '',
    projectId: projectId ?? 0,
    versionId: readInt(p, o.versionId, env, 'zephyr.versionId', 'ZEPHYR_VERSION_ID', -1) ?? -1,
    cycleId,
    cycleName,
    statusMap: readStatusMap(p, o.statusMap, 'zephyr.statusMap'),
    failureComments: readBool(p, o.failureComments, env, 'zephyr.failureComments', 'ZEPHYR_FAILURE_COMMENTS', true),
    commentLimit: readInt(p, o.commentLimit, env, 'zephyr.commentLimit', 'ZEPHYR_COMMENT_LIMIT', 50) ?? ZEPHYR_COMMENT_LIMIT,
    rateLimit: readRate(p, o.rateLimit, env, 'zephyr.rateLimit', 'ZEPHYR_RATE_LIMIT'),
    stepResults: readChoice(p, o.stepResults, env, 'zephyr.stepResults', 'ZEPHYR_STEP_RESULTS', STEP_RESULTS, 'passed'),
    jiraUrl: readUrl(p, o.jiraUrl, env, 'zephyr.jiraUrl', 'ZEPHYR_JIRA_URL', '') || undefined,
  };
}

/** Keys and the secret as given, even when other settings are invalid. */
export function zephyrSecrets(o: Record<string, unknown>, env: Record<string, string | undefined>): string[] {
  return rawStrings([o.secretKey, o.accessKey, env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY]);
}
