import {
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

/** Options of the Xray Cloud target (`xray.*`). */
export interface XrayOptions {
  /**
   * Xray Cloud's origin; the API is under `/api/v2`. Default `https://xray.cloud.getxray.app`; regional hosts
   * (`https://eu.xray.cloud.getxray.app`, `us.`, `au.`) serve the same API. Env `XRAY_BASE_URL`.
   */
  baseUrl?: string;
  /** API key client id (Xray > Global Settings > API Keys). Env `XRAY_CLIENT_ID`. */
  clientId?: string;
  /** API key client secret; never printed (nor the token it gives). Env `XRAY_CLIENT_SECRET`. */
  clientSecret?: string;
  /** Jira project key of the Test Execution this reporter creates. Env `XRAY_PROJECT_KEY`. */
  projectKey?: string;
  /** Import into this existing Test Execution (`PROJ-123`). Env `XRAY_TEST_EXECUTION_KEY`. */
  testExecutionKey?: string;
  /** When no key: reuse the project's Test Execution with exactly this summary, else create it. Env `XRAY_TEST_EXECUTION_SUMMARY`. */
  testExecutionSummary?: string;
  /** Link the Test Execution(s) to this Test Plan (`PROJ-100`). Env `XRAY_TEST_PLAN_KEY`. */
  testPlanKey?: string;
  /** Outcome -> Xray status name (checked against the tenant's statuses before anything is sent). */
  statusMap?: StatusMapOption;
  /**
   * Client-side pacing `N/SECONDS` (or `off`). Default 290/300, shared out among N CI shards (Xray Cloud allows 300
   * requests per 5 minutes on Standard, REST and GraphQL together). Env `XRAY_RATE_LIMIT`.
   */
  rateLimit?: string;
  /** Your Jira site (`https://<site>.atlassian.net`), only to print a link to the Test Execution. Env `XRAY_JIRA_URL`. */
  jiraUrl?: string;
}

export const XRAY_DEFAULT_BASE_URL = 'https://xray.cloud.getxray.app';

/** A Jira issue key (upper case, as Jira writes it). */
const ISSUE_KEY = /^[A-Z][A-Z0-9_]*-\d+$/;
const PROJECT_KEY = /^[A-Z][A-Z0-9_]*$/;

/** One row per option (`XrayOptions` has the docs). */
const FIELDS = {
  baseUrl: url('XRAY_BASE_URL', XRAY_DEFAULT_BASE_URL, { credentials: true }),
  clientId: str('XRAY_CLIENT_ID', { required: 'Xray > Global Settings > API Keys' }),
  clientSecret: str('XRAY_CLIENT_SECRET', { required: 'Xray > Global Settings > API Keys', secret: true }),
  projectKey: str('XRAY_PROJECT_KEY'),
  testExecutionKey: str('XRAY_TEST_EXECUTION_KEY'),
  testExecutionSummary: str('XRAY_TEST_EXECUTION_SUMMARY'),
  testPlanKey: str('XRAY_TEST_PLAN_KEY'),
  statusMap: statusMap({ value: 'an Xray status name', example: `{ skipped: 'ABORTED' }` }),
  // No default here: the definition shares its pacing out among the shards.
  rateLimit: rate('XRAY_RATE_LIMIT'),
  jiraUrl: url('XRAY_JIRA_URL'),
} satisfies FieldsOf<XrayOptions>;

/** Every option key it reads (others are reported as unknown, with a did-you-mean). */
export const OPTION_KEYS = Object.keys(FIELDS);

/**
 * `rateLimit` null: off; undefined: the default (see the definition). `keyFromJournal`: the key is the one a replayed
 * run's journal names, not the config's (messages must not blame XRAY_TEST_EXECUTION_KEY for it).
 */
export type XrayConfig = Readonly<Values<typeof FIELDS> & { testExecutionSummary: string; keyFromJournal?: boolean }>;

/** Enabled when a client id or secret is given; undefined otherwise. */
export function readXrayConfig({ options, env, problems: p, runName, container, projects }: ConfigInput): XrayConfig | undefined {
  const v = readFields(p, FIELDS, options, env, 'xray.', ['clientId', 'clientSecret']);
  if (!v) return undefined;
  // `null` (create by name) or '' (a split run's journal: one execution per project, found by summary): no key.
  let testExecutionKey = container?.id === null || container?.id === '' ? undefined : (container?.id ?? v.testExecutionKey);
  const upper = (s: string | undefined) => s?.toUpperCase();
  const keyFromJournal = !!container?.id && container.id.toUpperCase() !== upper(v.testExecutionKey);
  if (projects === 'split' && testExecutionKey !== undefined && !keyFromJournal) {
    // A settings problem, so the service is held back before anything: its journal keeps no key (README: a service
    // held back for bad settings journals none), and a replay opens each project's execution by today's settings.
    p.add(
      'xray.testExecutionKey',
      'XRAY_TEST_EXECUTION_KEY',
      `names one Test Execution (${testExecutionKey}), and projects: 'split' (PW_TMS_PROJECTS=split) makes one per Playwright project: ` +
        `set XRAY_TEST_EXECUTION_SUMMARY (xray.testExecutionSummary) instead, or use projects: 'merge'`,
    );
    testExecutionKey = undefined;
  }
  const key = upper(testExecutionKey);
  const plan = upper(v.testPlanKey);
  const project = upper(v.projectKey);
  if (key !== undefined && !ISSUE_KEY.test(key))
    p.add(
      'xray.testExecutionKey',
      'XRAY_TEST_EXECUTION_KEY',
      `expected a Jira issue key such as PROJ-123, got ${JSON.stringify(testExecutionKey)}`,
    );
  if (plan !== undefined && !ISSUE_KEY.test(plan))
    p.add('xray.testPlanKey', 'XRAY_TEST_PLAN_KEY', `expected a Jira issue key such as PROJ-100, got ${JSON.stringify(v.testPlanKey)}`);
  if (project !== undefined && !PROJECT_KEY.test(project))
    p.add('xray.projectKey', 'XRAY_PROJECT_KEY', `expected a Jira project key such as PROJ, got ${JSON.stringify(v.projectKey)}`);
  if (project === undefined && key === undefined)
    p.add(
      'xray.projectKey',
      'XRAY_PROJECT_KEY',
      'is required (the Jira project of the Test Execution) unless xray.testExecutionKey (XRAY_TEST_EXECUTION_KEY) is set',
    );
  const testExecutionSummary = container?.name || v.testExecutionSummary || runName;
  if (testExecutionSummary.length > 255)
    p.add('xray.testExecutionSummary', 'XRAY_TEST_EXECUTION_SUMMARY', 'is longer than 255 characters (a Jira summary)');
  return {
    ...v,
    projectKey: project,
    testExecutionKey: key,
    testPlanKey: plan,
    testExecutionSummary,
    ...(keyFromJournal && key ? { keyFromJournal } : {}),
  };
}

/** The client secret as given, even when other settings are invalid (the token is added by the client as it comes). */
export const xraySecrets = (o: Record<string, unknown>, env: Record<string, string | undefined>) => secretsOf(FIELDS, o, env);
