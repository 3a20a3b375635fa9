import {
  int,
  rate,
  readFields,
  secretsOf,
  statusMap,
  str,
  url,
  type Field,
  type FieldsOf,
  type StatusMapOption,
  type Values,
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
  /**
   * The project's secret token (project settings > Test code generation; digits only). With it, results go by bulk
   * push (one call per batch, matched by test uid) instead of one post per result. Env `CUCUMBERSTUDIO_SECRET_TOKEN`; never printed.
   */
  secretToken?: string;
}

/** The project secret token: digits only (the vendor's CLI refuses anything else), a secret. */
function secretToken(env: string): Field<string | undefined> {
  return {
    env,
    default: undefined,
    secret: true,
    read(value: unknown, problem: (m: string) => void) {
      const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
      if (text !== undefined && /^\d+$/.test(text)) return text;
      // Never the value itself: it is a secret, and a wrong one may be a real secret of something else.
      problem(`the project secret token must be digits only (project settings > Test code generation)`);
    },
  };
}

export const CUCUMBERSTUDIO_DEFAULT_BASE_URL = 'https://studio.cucumberstudio.com';

/** One row per option (`CucumberStudioOptions` has the docs). */
const FIELDS = {
  baseUrl: url('CUCUMBERSTUDIO_BASE_URL', CUCUMBERSTUDIO_DEFAULT_BASE_URL, { credentials: true }),
  uid: str('CUCUMBERSTUDIO_UID', { required: 'the account e-mail of the API credentials' }),
  accessToken: str('CUCUMBERSTUDIO_ACCESS_TOKEN', { required: 'profile > API credentials', secret: true }),
  client: str('CUCUMBERSTUDIO_CLIENT', { required: 'profile > API credentials' }),
  projectId: int('CUCUMBERSTUDIO_PROJECT_ID', 1, { required: 'numeric project id' }),
  testRunId: int('CUCUMBERSTUDIO_TEST_RUN_ID', 1),
  testRunName: str('CUCUMBERSTUDIO_TEST_RUN_NAME'),
  // Its statuses are a fixed vocabulary: a name it does not have is refused here, never sent as a default.
  statusMap: statusMap(
    { value: `a status name (${CS_STATUSES.join(', ')})`, example: `{ failed: 'retest' }` },
    { service: 'CucumberStudio', names: CS_STATUSES },
  ),
  // CucumberStudio counts 200/min per IP and locks out for 60 s past it: pace below the limit.
  rateLimit: rate('CUCUMBERSTUDIO_RATE_LIMIT', { count: 195, windowMs: 60_000 }),
  snapshotTimeoutMs: int('CUCUMBERSTUDIO_SNAPSHOT_TIMEOUT_MS', 0, { default: 120_000 }),
  secretToken: secretToken('CUCUMBERSTUDIO_SECRET_TOKEN'),
} satisfies FieldsOf<CucumberStudioOptions>;

/** Every option key it reads (others are reported as unknown, with a did-you-mean). */
export const OPTION_KEYS = Object.keys(FIELDS);

export type CucumberStudioConfig = Readonly<Values<typeof FIELDS> & { testRunName: string }>;

/** Enabled when a uid or an access token is given; undefined otherwise. */
export function readCucumberStudioConfig({ options, env, problems, runName, container }: ConfigInput): CucumberStudioConfig | undefined {
  const v = readFields(problems, FIELDS, options, env, 'cucumberstudio.', ['accessToken', 'uid']);
  if (!v) return undefined;
  const testRunId = container?.id === null ? undefined : container?.id !== undefined ? Number(container.id) : v.testRunId;
  return { ...v, testRunId, testRunName: container?.name || v.testRunName || runName };
}

/** The access token as given, even when other settings are invalid. */
export const cucumberStudioSecrets = (o: Record<string, unknown>, env: Record<string, string | undefined>) => secretsOf(FIELDS, o, env);
