/**
 * CucumberStudio (Hiptest) public API v1 stand-in for the sandbox core (see
 * /work/shared/spec/cucumberstudio-api.md). The core owns latency, rate limiting (lock-out mode), fault
 * injection, resets, outages and counting; this module models the service: strict headers, JSON:API
 * documents, test runs whose tests are generated asynchronously (423 meanwhile), tests, results, attachments.
 *
 * Choices where the public contract is silent (kept stable, documented here):
 * - Accept is strict: `application/vnd.api+json` with `version=1` is required, else 406 (the spec would
 *   tolerate a missing Accept; the project's issue asks for 406). `POST /api/auth/sign_in` needs no header.
 * - 4xx bodies are JSON:API error objects unless `errorBodyStyle` asks for another shape seen in the field
 *   (`errors.ts`); `deviseAuthErrors` makes credential 401s devise's string array. 5xx keep JSON:API.
 * - While a run is generating, its whole test sub-tree (list, single test, results) answers 423
 *   (`generationAnswer: '423'`, the default). Field evidence shows production also answering 200 with the
 *   tests generated so far: `'partial'` and `'mixed'` (seeded draw per request) model that; the tests then
 *   appear one by one over the delay.
 * - Run-time switches (`settings.ts`) are changed with `module.configure(patch)`; a core reset keeps them.
 * - A run with no tests (external, or `scenario_ids: []`) still goes through the generation delay.
 * - Unknown `filter[status]` values answer 400; unknown `include` names are ignored.
 * - Method/path combinations that are not served answer 404 (route counted as `<METHOD> (unknown)`).
 * - Evidence: results keep `step-statuses` as sent and as shown (`step-statuses.ts`); result attachments can be
 *   uploaded (multipart `file`, 200) and listed (`attachments.ts`); downloading them is not served.
 * - The token routes of the vendor's CLI (`routes-push.ts`: the run as XML with the test uids, `publication.ts`;
 *   the bulk result push, `push.ts`) sit outside `/api`, checked by the secret token in their path only.
 * - Builds and execution environments (`builds.ts`, `routes-builds.ts`): what production does is not established
 *   for duplicate build names, a name sent to the environment's build create, results into a closed build,
 *   environment name case and the run-level routes' refusal: each is a switch (`settings.ts`). Results posted
 *   with no build are stored and counted (`counters().resultsWithoutBuild`, state `resultsWithoutBuild`).
 */
import type { SandboxResponse, ServiceModule } from '../types';
import { checkHeaders, isSignIn, signIn, type Credentials } from './auth';
import { restyle } from './errors';
import { checkStepPlan, type StepPlan } from './fixtures';
import { errorResponse, JSONAPI_MEDIA_TYPE } from './jsonapi';
import { dispatch } from './routes';
import { checkToken, dispatchToken, isTokenRoute } from './routes-push';
import { checkSettings, SETTING_DEFAULTS, type CucumberStudioSettings } from './settings';
import { CucumberStudioStore } from './store';
import { stateView } from './view';

export type { CucumberStudioStateView } from './view';
export { acceptsVersion1 } from './auth';
export type { StepPlan } from './fixtures';
export type { CucumberStudioSettings, ErrorBodyStyle, ErrorBodyStyles, GenerationAnswer, PushFaultWhen } from './settings';

/** Fixtures and credentials (fixed at creation) plus the initial value of every run-time setting (`settings.ts`). */
export interface CucumberStudioSandboxOptions extends Partial<CucumberStudioSettings> {
  /** Account e-mail sent in the `uid` header. Default `ci-bot@example.com`. */
  uid?: string;
  /** Default: a fixed 22-character token. */
  accessToken?: string;
  /** Default: a fixed 22-character client id. */
  client?: string;
  /** Password of the `uid` account for `POST /api/auth/sign_in`. Default `sandbox-password`. */
  password?: string;
  /** The project's secret token of the token routes (`routes-push.ts`): digits only. Default a fixed 20-digit one. */
  secretToken?: string;
  /** The one project. Default 1 (named `Web shop`). */
  projectId?: number;
  projectName?: string;
  /**
   * Scenarios 1..scenarioCount named `Scenario <id>`, with a description and a definition (computed on demand,
   * so 20,000 cost nothing until listed; the list then weighs ~0.7 kB per scenario). Default 5000.
   */
  scenarioCount?: number;
  /**
   * Scenario id → its steps: a count of plain steps, or per top-level step the number of test steps it expands
   * to (n > 1 = an action-word call), e.g. `{ 3: 5, 4: [1, 2, 1] }`. Default for the others: `defaultSteps`.
   */
  scenarioSteps?: Record<number, StepPlan>;
  /** Steps of every other scenario. Default 3 (Given …, When …, result Then …). */
  defaultSteps?: StepPlan;
  /** Scenario id → dataset names; a run gets one test per dataset. Default `{7: ['visa','mastercard'], 8: ['small','large']}`. */
  datasetScenarios?: Record<number, string[]>;
  /** Scenario id → name overriding `Scenario <id>`. Default `{11: 'Checkout works', 12: 'Checkout works'}`. */
  duplicateNames?: Record<number, string>;
  /** Monotonic clock (ms) used for the generation state. Default `performance.now()`. For tests. */
  now?: () => number;
}

export const CUCUMBERSTUDIO_DEFAULTS = {
  uid: 'ci-bot@example.com',
  accessToken: 'sbx7Kd2LmQ0pRt-YvW4kJa',
  client: 'sbxCl_9sLpXe2Vb-Ma0nRg',
  password: 'sandbox-password',
  secretToken: '70431958264018375521',
  projectId: 1,
  projectName: 'Web shop',
  scenarioCount: 5000,
  datasetScenarios: { 7: ['visa', 'mastercard'], 8: ['small', 'large'] } as Record<number, string[]>,
  duplicateNames: { 11: 'Checkout works', 12: 'Checkout works' } as Record<number, string>,
  scenarioSteps: {} as Record<number, StepPlan>,
  defaultSteps: 3 as StepPlan,
};

/** The module plus its run-time switches (reach it with `sandbox.modules.find((m) => m.name === 'cucumberstudio')`). */
export interface CucumberStudioModule extends ServiceModule {
  /** Changes settings at run time; throws on an unknown key or a bad value (nothing is applied then). */
  configure(patch: Partial<CucumberStudioSettings>): CucumberStudioSettings;
  /** A copy of the current settings. */
  settings(): CucumberStudioSettings;
  /** The bytes of an uploaded attachment (state() lists ids, sizes and sha256 only). */
  attachmentBytes(id: number): Buffer | undefined;
}

export function createCucumberStudioModule(options: CucumberStudioSandboxOptions = {}): CucumberStudioModule {
  const o = { ...CUCUMBERSTUDIO_DEFAULTS, ...stripUndefined(options) };
  // The service's tokens are digits only (the vendor's CLI refuses anything else).
  if (!/^\d+$/.test(o.secretToken))
    throw new Error(`cucumberstudio sandbox: secretToken must be digits only, got ${o.secretToken.length} characters`);
  const settingKeys = Object.keys(SETTING_DEFAULTS) as Array<keyof CucumberStudioSettings>;
  const initial = checkSettings(Object.fromEntries(settingKeys.map((k) => [k, options[k]])));
  const store = new CucumberStudioStore(
    {
      uid: o.uid,
      projectId: o.projectId,
      projectName: o.projectName,
      scenarioCount: o.scenarioCount,
      datasetScenarios: o.datasetScenarios,
      duplicateNames: o.duplicateNames,
      scenarioSteps: Object.fromEntries(Object.entries(o.scenarioSteps).map(([id, p]) => [id, checkStepPlan(p, `scenarioSteps[${id}]`)])),
      defaultSteps: checkStepPlan(o.defaultSteps, 'defaultSteps'),
      now: options.now ?? (() => performance.now()),
    },
    { ...SETTING_DEFAULTS, ...initial },
  );
  // Tokens live one year and are not rotated: the expiry of "the token in use" is fixed at issue time.
  const expiry = String(Math.floor(Date.now() / 1000) + 365 * 24 * 3600);

  const creds: Credentials = { uid: o.uid, accessToken: o.accessToken, client: o.client, password: o.password };

  const finish = (answer: SandboxResponse): SandboxResponse =>
    restyle(
      { ...answer, headers: { 'content-type': JSONAPI_MEDIA_TYPE, expiry, ...(answer.headers ?? {}) } },
      store.settings.errorBodyStyle,
    );

  return {
    name: 'cucumberstudio',
    // 200 requests per minute per IP, then a 60 s lock-out (spec §1.4).
    rateLimitStyle: 'lockout',
    matches: (rawPath) => rawPath === '/api' || rawPath.startsWith('/api/') || isTokenRoute(rawPath),
    authenticate(req) {
      if (isTokenRoute(req.rawPath)) return checkToken(req, o.secretToken);
      const refused = checkHeaders(req, creds, store.settings.deviseAuthErrors);
      return refused ? finish(refused) : null;
    },
    rateLimitKey: (_req, remoteAddress) => remoteAddress, // per client IP (spec §1.6)
    rateLimitResponse: (waitSeconds) =>
      finish({
        ...errorResponse(429, `Rate limit exceeded. Retry in ${waitSeconds} seconds.`, 'rate-limited'),
        headers: { 'Retry-After': String(waitSeconds) },
      }),
    faultResponse: () => finish(errorResponse(503, 'Please try again.', 'fault')),
    handle: async (req) => {
      // The token routes are not JSON:API: their answers keep their own shape and content type.
      if (isTokenRoute(req.rawPath)) return dispatchToken(store, req);
      return finish(isSignIn(req) ? signIn(req, creds, expiry) : await dispatch(store, req));
    },
    configure(patch) {
      store.configure(patch);
      return structuredClone(store.settings);
    },
    settings: () => structuredClone(store.settings),
    attachmentBytes: (id) => {
      const bytes = store.attachments.get(id)?.bytes;
      return bytes ? Buffer.from(bytes) : undefined;
    },
    // Results posted with no build: stored, as production does, and counted so that tests can assert none was sent.
    counters: () => ({ resultsWithoutBuild: store.builds.noBuildResults }),
    snapshot: () => stateView(store),
    reset: () => store.reset(),
    env: (origin) => ({
      CUCUMBERSTUDIO_BASE_URL: origin,
      CUCUMBERSTUDIO_UID: o.uid,
      CUCUMBERSTUDIO_ACCESS_TOKEN: o.accessToken,
      CUCUMBERSTUDIO_CLIENT: o.client,
      CUCUMBERSTUDIO_PROJECT_ID: String(o.projectId),
      CUCUMBERSTUDIO_SECRET_TOKEN: o.secretToken,
    }),
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
