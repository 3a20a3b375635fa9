import {
  pick,
  rawStrings,
  type Problems,
  readInt,
  readRate,
  readStatusMap,
  readString,
  readUrl,
  type StatusMapOption,
} from '../../kit/config-fields';
import type { ConfigInput } from '../../kit/target';
import { CS_STATUSES } from './statuses';

/** Options of the CucumberStudio target (`cucumberstudio.*`). */
export interface CucumberStudioOptions {
  /**
   * Site root; the API is under `/api`. Default `https://studio.cucumberstudio.com` (the vendor moved there in
   * March 2025; the former `https://studio.cucumber.io` redirects). Env `CUCUMBERSTUDIO_BASE_URL`.
   */
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

export interface CucumberStudioConfig {
  readonly baseUrl: string;
  readonly uid: string;
  readonly accessToken: string;
  readonly client: string;
  readonly projectId: number;
  readonly testRunId?: number;
  readonly testRunName: string;
  readonly statusMap: StatusMapOption;
  readonly rateLimit: { count: number; windowMs: number } | null;
  readonly snapshotTimeoutMs: number;
}

export const CUCUMBERSTUDIO_DEFAULT_BASE_URL = 'https://studio.cucumberstudio.com';
/** Every option key it reads (others are reported as unknown, with a did-you-mean). */
export const OPTION_KEYS = [
  'baseUrl',
  'uid',
  'accessToken',
  'client',
  'projectId',
  'testRunId',
  'testRunName',
  'statusMap',
  'rateLimit',
  'snapshotTimeoutMs',
];

/** Enabled when a uid or an access token is given; undefined otherwise. */
export function readCucumberStudioConfig({
  options: o,
  env,
  problems: p,
  runName,
  container,
}: ConfigInput): CucumberStudioConfig | undefined {
  const accessToken = readString(p, o.accessToken, env, 'cucumberstudio.accessToken', 'CUCUMBERSTUDIO_ACCESS_TOKEN');
  const uid = readString(p, o.uid, env, 'cucumberstudio.uid', 'CUCUMBERSTUDIO_UID');
  if (!accessToken && !uid) return undefined;
  const client = readString(p, o.client, env, 'cucumberstudio.client', 'CUCUMBERSTUDIO_CLIENT');
  const projectId = readInt(p, o.projectId, env, 'cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID', 1);
  if (!uid) p.add('cucumberstudio.uid', 'CUCUMBERSTUDIO_UID', 'is required (the account e-mail of the API credentials)');
  if (!accessToken) p.add('cucumberstudio.accessToken', 'CUCUMBERSTUDIO_ACCESS_TOKEN', 'is required (profile > API credentials)');
  if (!client) p.add('cucumberstudio.client', 'CUCUMBERSTUDIO_CLIENT', 'is required (profile > API credentials)');
  if (projectId === undefined && pick(o.projectId, env, 'CUCUMBERSTUDIO_PROJECT_ID').from === 'none')
    p.add('cucumberstudio.projectId', 'CUCUMBERSTUDIO_PROJECT_ID', 'is required (numeric project id)');
  const timeout = readInt(p, o.snapshotTimeoutMs, env, 'cucumberstudio.snapshotTimeoutMs', 'CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS', 0);
  const rate = readRate(p, o.rateLimit, env, 'cucumberstudio.rateLimit', 'CUCUMBERSTUDIO_RATE_LIMIT');
  const configuredRun = readInt(p, o.testRunId, env, 'cucumberstudio.testRunId', 'CUCUMBERSTUDIO_TEST_RUN_ID', 1);
  const testRunId = container?.id === null ? undefined : container?.id !== undefined ? Number(container.id) : configuredRun;
  return {
    baseUrl: readUrl(p, o.baseUrl, env, 'cucumberstudio.baseUrl', 'CUCUMBERSTUDIO_BASE_URL', CUCUMBERSTUDIO_DEFAULT_BASE_URL, {
      credentials: true,
    }),
    uid: uid ?? '',
    accessToken: accessToken ?? '',
    client: client ?? '',
    projectId: projectId ?? 0,
    testRunId,
    testRunName:
      container?.name || readString(p, o.testRunName, env, 'cucumberstudio.testRunName', 'CUCUMBERSTUDIO_TEST_RUN_NAME') || runName,
    statusMap: readCsStatusMap(p, o.statusMap),
    // CucumberStudio counts 200/min per IP and locks out for 60 s past it: pace below the limit.
    rateLimit: rate === undefined ? { count: 195, windowMs: 60_000 } : rate,
    snapshotTimeoutMs: timeout ?? 120_000,
  };
}

/**
 * The service's statuses are a fixed vocabulary, so a name it does not have is known here: refused like a
 * typo in an outcome key (the target is held back and its results kept for replay), never sent as a default.
 */
function readCsStatusMap(p: Problems, v: unknown): StatusMapOption {
  const map = readStatusMap(p, v, 'cucumberstudio.statusMap', {
    value: `a status name (${CS_STATUSES.join(', ')})`,
    example: `{ failed: 'retest' }`,
  });
  for (const [outcome, ref] of Object.entries(map)) {
    if (!(CS_STATUSES as readonly string[]).includes(String(ref).toLowerCase()))
      p.add(
        `cucumberstudio.statusMap.${outcome}`,
        undefined,
        `CucumberStudio has no status ${JSON.stringify(ref)}; use one of ${CS_STATUSES.join(', ')}`,
      );
  }
  return map;
}

/** The access token as given, even when other settings are invalid. */
export function cucumberStudioSecrets(o: Record<string, unknown>, env: Record<string, string | undefined>): string[] {
  return rawStrings([o.accessToken, env.CUCUMBERSTUDIO_ACCESS_TOKEN]);
}
