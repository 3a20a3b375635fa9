/**
 * Options + env vars -> one validated config. Options override env vars; each problem is one line
 * naming the option and the env var. A target with bad settings is disabled (and reported), never thrown.
 */
import * as path from 'node:path';
import { checkUnknownKeys, isPlainObject, pick, Problems, readBool, readInt, readRate, readString, readUrl, type Env } from './config-fields';
import { OUTCOMES, type Outcome, type TargetId } from './model';
import { defaultRunName } from './run-name';

export type StatusRef = number | string;
/** Playwright outcome -> service status, by id or by name. `timedOut` defaults to the `failed` row. */
export type StatusMapOption = Partial<Record<Outcome, StatusRef>>;

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
  /** Client-side pacing `N/SECONDS`; default off (429 wait hints are honoured). Env `ZEPHYR_RATE_LIMIT`. */
  rateLimit?: string;
}

/** Options of the CucumberStudio target (`cucumberstudio.*`). */
export interface CucumberStudioOptions {
  /** Default `https://studio.cucumber.io` (API under `/api`). Env `CUCUMBERSTUDIO_BASE_URL`. */
  baseUrl?: string;
  /** Env `CUCUMBERSTUDIO_UID`. */
  uid?: string;
  /** Env `CUCUMBERSTUDIO_ACCESS_TOKEN`; never printed. */
  accessToken?: string;
  /** Env `CUCUMBERSTUDIO_CLIENT`. */
  client?: string;
  /** Env `CUCUMBERSTUDIO_PROJECT_ID`. */
  projectId?: number | string;
  /** Publish into this existing test run. Env `CUCUMBERSTUDIO_TEST_RUN_ID`. */
  testRunId?: number | string;
  /** Reuse an active run with this name, else create it. Env `CUCUMBERSTUDIO_TEST_RUN_NAME`. */
  testRunName?: string;
  /** Outcome -> CucumberStudio status name. */
  statusMap?: StatusMapOption;
  /** Client-side pacing `N/SECONDS`; default `195/60` (the service allows 200/min per IP). Env `CUCUMBERSTUDIO_RATE_LIMIT`. */
  rateLimit?: string;
  /** How long to wait for a run's tests to be generated (ms); default 120000. Env `CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS`. */
  snapshotTimeoutMs?: number;
}

/** Options of `['playwright-tms-reporter', { ... }]`. */
export interface TmsReporterOptions {
  zephyr?: ZephyrOptions;
  cucumberstudio?: CucumberStudioOptions;
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
}

export interface ZephyrConfig {
  baseUrl: string;
  accessKey: string;
  secretKey: string;
  accountId: string;
  projectId: number;
  versionId: number;
  cycleId?: string;
  cycleName: string;
  statusMap: StatusMapOption;
  failureComments: boolean;
  rateLimit: { count: number; windowMs: number } | null;
}

export interface CucumberStudioConfig {
  baseUrl: string;
  uid: string;
  accessToken: string;
  client: string;
  projectId: number;
  testRunId?: number;
  testRunName: string;
  statusMap: StatusMapOption;
  rateLimit: { count: number; windowMs: number } | null;
  snapshotTimeoutMs: number;
}

export interface ResolvedConfig {
  zephyr?: ZephyrConfig;
  cucumberstudio?: CucumberStudioConfig;
  outboxDir: string;
  summaryFile: string;
  failOnPublishError: boolean;
  dryRun: boolean;
  debug: boolean;
  /** One line per problem, each naming the option and the env var. */
  problems: string[];
  /** Targets whose credentials are present but whose settings are invalid: journaled, not sent. */
  invalid: TargetId[];
  /** Secret values to redact from anything printed or written. */
  secrets: string[];
}

const GENERAL_KEYS = ['zephyr', 'cucumberstudio', 'outboxDir', 'failOnPublishError', 'dryRun', 'summaryFile', 'debug'] as const;
const ZEPHYR_KEYS = ['baseUrl', 'accessKey', 'secretKey', 'accountId', 'projectId', 'versionId', 'cycleId', 'cycleName', 'statusMap', 'failureComments', 'rateLimit'];
const CS_KEYS = ['baseUrl', 'uid', 'accessToken', 'client', 'projectId', 'testRunId', 'testRunName', 'statusMap', 'rateLimit', 'snapshotTimeoutMs'];

export const ZEPHYR_DEFAULT_BASE_URL = 'https://prod-api.zephyr4jiracloud.com/connect';
export const CUCUMBERSTUDIO_DEFAULT_BASE_URL = 'https://studio.cucumber.io';

/**
 * Resolves options + env into one config. `rootDir` anchors relative paths (Playwright's config dir
 * when known, else the working directory).
 */
export function resolveConfig(options: unknown, env: Env = process.env, rootDir = process.cwd(), now = new Date()): ResolvedConfig {
  const p = new Problems();
  let opts: Record<string, unknown> = isPlainObject(options) ? options : {};
  if (options !== undefined && options !== null && !isPlainObject(options)) p.add('reporter options', undefined, 'expected an object such as { zephyr: { … } }; ignored');
  // Playwright spreads a string given as options into {0: 'z', 1: 'e', …} (plus configDir).
  const own = Object.keys(opts).filter((k) => k !== 'configDir' && !k.startsWith('_'));
  if (own.length && own.every((k) => /^\d+$/.test(k))) {
    p.add('reporter options', undefined, 'expected an object such as { zephyr: { … } }, got a string; ignored');
    opts = {};
  }
  checkUnknownKeys(p, opts, GENERAL_KEYS, '');
  const runName = defaultRunName(env, now);
  const invalid: TargetId[] = [];
  const zephyr = resolveZephyr(p, sub(p, opts, 'zephyr'), env, runName, () => invalid.push('zephyr'));
  const cucumberstudio = resolveCucumberStudio(p, sub(p, opts, 'cucumberstudio'), env, runName, () => invalid.push('cucumberstudio'));
  const outboxDir = readString(p, opts.outboxDir, env, 'outboxDir', 'PW_TMS_OUTBOX_DIR') || 'test-results/tms-outbox';
  const summaryFile = readString(p, opts.summaryFile, env, 'summaryFile', 'PW_TMS_SUMMARY_FILE') || 'test-results/tms-summary.json';
  return {
    zephyr,
    cucumberstudio,
    outboxDir: path.resolve(rootDir, outboxDir),
    summaryFile: path.resolve(rootDir, summaryFile),
    failOnPublishError: readBool(p, opts.failOnPublishError, env, 'failOnPublishError', 'PW_TMS_FAIL_ON_ERROR', false),
    dryRun: readBool(p, opts.dryRun, env, 'dryRun', 'PW_TMS_DRY_RUN', false),
    debug: readBool(p, opts.debug, env, 'debug', 'PW_TMS_DEBUG', false),
    problems: p.lines,
    invalid,
    secrets: [zephyr?.secretKey, zephyr?.accessKey, cucumberstudio?.accessToken, rawSecret(opts, env)].flat().filter((s): s is string => !!s && s.length >= 4),
  };
}

/** Secrets as given, even when their target was disabled for another problem (still never print them). */
function rawSecret(opts: Record<string, unknown>, env: Env): string[] {
  const z = isPlainObject(opts.zephyr) ? opts.zephyr : {};
  const c = isPlainObject(opts.cucumberstudio) ? opts.cucumberstudio : {};
  return [z.secretKey, z.accessKey, c.accessToken, env.ZEPHYR_SECRET_KEY, env.ZEPHYR_ACCESS_KEY, env.CUCUMBERSTUDIO_ACCESS_TOKEN]
    .filter((v): v is string => typeof v === 'string');
}

function sub(p: Problems, opts: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = opts[key];
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) {
    p.add(key, undefined, 'expected an object; ignored');
    return {};
  }
  return v;
}

function readStatusMap(p: Problems, v: unknown, name: string): StatusMapOption {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) {
    p.add(name, undefined, `expected an object such as { failed: 'FAIL' }`);
    return {};
  }
  const out: StatusMapOption = {};
  for (const [k, val] of Object.entries(v)) {
    if (!(OUTCOMES as readonly string[]).includes(k)) {
      p.add(`${name}.${k}`, undefined, `unknown outcome; use one of ${OUTCOMES.join(', ')}`);
    } else if ((typeof val === 'number' && Number.isInteger(val)) || (typeof val === 'string' && val.trim() !== '')) {
      out[k as Outcome] = typeof val === 'string' ? val.trim() : val;
    } else {
      p.add(`${name}.${k}`, undefined, `expected a status id or name, got ${JSON.stringify(val)}`);
    }
  }
  return out;
}

function resolveZephyr(p: Problems, o: Record<string, unknown>, env: Env, runName: string, onInvalid: () => void): ZephyrConfig | undefined {
  checkUnknownKeys(p, o, ZEPHYR_KEYS, 'zephyr.');
  const accessKey = readString(p, o.accessKey, env, 'zephyr.accessKey', 'ZEPHYR_ACCESS_KEY');
  const secretKey = readString(p, o.secretKey, env, 'zephyr.secretKey', 'ZEPHYR_SECRET_KEY');
  if (!accessKey && !secretKey) return undefined; // not enabled: credentials absent
  const before = p.lines.length;
  const accountId = readString(p, o.accountId, env, 'zephyr.accountId', 'ZEPHYR_ACCOUNT_ID');
  const projectId = readInt(p, o.projectId, env, 'zephyr.projectId', 'ZEPHYR_PROJECT_ID', 1);
  if (!accessKey) p.add('zephyr.accessKey', 'ZEPHYR_ACCESS_KEY', 'is required (Zephyr > API Keys in Jira)');
  if (!secretKey) p.add('zephyr.secretKey', 'ZEPHYR_SECRET_KEY', 'is required (Zephyr > API Keys in Jira)');
  if (!accountId) p.add('zephyr.accountId', 'ZEPHYR_ACCOUNT_ID', 'is required (your Atlassian account id)');
  if (projectId === undefined && pick(o.projectId, env, 'ZEPHYR_PROJECT_ID').from === 'none') p.add('zephyr.projectId', 'ZEPHYR_PROJECT_ID', 'is required (the numeric Jira project id)');
  const config = {
    baseUrl: readUrl(p, o.baseUrl, env, 'zephyr.baseUrl', 'ZEPHYR_BASE_URL', ZEPHYR_DEFAULT_BASE_URL),
    accessKey: accessKey ?? '',
    secretKey: secretKey ?? '',
    accountId: accountId ?? '',
    projectId: projectId ?? 0,
    versionId: readInt(p, o.versionId, env, 'zephyr.versionId', 'ZEPHYR_VERSION_ID', -1) ?? -1,
    cycleId: readString(p, o.cycleId, env, 'zephyr.cycleId', 'ZEPHYR_CYCLE_ID') || undefined,
    cycleName: readString(p, o.cycleName, env, 'zephyr.cycleName', 'ZEPHYR_CYCLE_NAME') || runName,
    statusMap: readStatusMap(p, o.statusMap, 'zephyr.statusMap'),
    failureComments: readBool(p, o.failureComments, env, 'zephyr.failureComments', 'ZEPHYR_FAILURE_COMMENTS', true),
    rateLimit: readRate(p, o.rateLimit, env, 'zephyr.rateLimit', 'ZEPHYR_RATE_LIMIT') ?? null,
  };
  if (config.cycleName.length > 255) p.add('zephyr.cycleName', 'ZEPHYR_CYCLE_NAME', 'is longer than 255 characters');
  if (p.lines.length === before) return config;
  onInvalid();
  return undefined;
}

function resolveCucumberStudio(p: Problems, o: Record<string, unknown>, env: Env, runName: string, onInvalid: () => void): CucumberStudioConfig | undefined {
  checkUnknownKeys(p, o, CS_KEYS, 'cucumberstudio.');
  const accessToken = readString(p, o.accessToken, env, 'cucumberstudio.accessToken', 'CUCUMBERSTUDIO_ACCESS_TOKEN');
  const uid = readString(p, o.uid, env, 'cucumberstudio.uid', 'CUCUMBERSTUDIO_UID');
  if (!accessToken && !uid) return undefined;
  const before = p.lines.length;
  const client = readString(p, o.client, env, 'cucumberstudio.client', 'CUCUMBERSTUDIO_CLIENT');
  const projectId = readInt(p, o.projectId, env, 'cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID', 1);
  if (!uid) p.add('cucumberstudio.uid', 'CUCUMBERSTUDIO_UID', 'is required (the account e-mail of the API credentials)');
  if (!accessToken) p.add('cucumberstudio.accessToken', 'CUCUMBERSTUDIO_ACCESS_TOKEN', 'is required (profile > API credentials)');
  if (!client) p.add('cucumberstudio.client', 'CUCUMBERSTUDIO_CLIENT', 'is required (profile > API credentials)');
  if (projectId === undefined && pick(o.projectId, env, 'CUCUMBERSTUDIO_PROJECT_ID').from === 'none') p.add('cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID', 'is required (numeric project id)');
  const timeout = readInt(p, o.snapshotTimeoutMs, env, 'cucumberstudio.snapshotTimeoutMs', 'CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS', 0);
  const rate = readRate(p, o.rateLimit, env, 'cucumberstudio.rateLimit', 'CUCUMBERSTUDIO_RATE_LIMIT');
  const config = {
    baseUrl: readUrl(p, o.baseUrl, env, 'cucumberstudio.baseUrl', 'CUCUMBERSTUDIO_BASE_URL', CUCUMBERSTUDIO_DEFAULT_BASE_URL),
    uid: uid ?? '',
    accessToken: accessToken ?? '',
    client: client ?? '',
    projectId: projectId ?? 0,
    testRunId: readInt(p, o.testRunId, env, 'cucumberstudio.testRunId', 'CUCUMBERSTUDIO_TEST_RUN_ID', 1),
    testRunName: readString(p, o.testRunName, env, 'cucumberstudio.testRunName', 'CUCUMBERSTUDIO_TEST_RUN_NAME') || runName,
    statusMap: readStatusMap(p, o.statusMap, 'cucumberstudio.statusMap'),
    rateLimit: rate === undefined ? { count: 195, windowMs: 60_000 } : rate,
    snapshotTimeoutMs: timeout ?? 120_000,
  };
  if (p.lines.length === before) return config;
  onInvalid();
  return undefined;
}
