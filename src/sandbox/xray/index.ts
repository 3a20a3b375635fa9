/**
 * Xray Cloud (REST v2 + GraphQL) stand-in for the sandbox core (/work/shared/spec/xray-cloud-api.md, §8.3 "what the
 * sandbox must enforce"). Mounted under `/xray` on the shared port: `<origin>/xray` is the global host and
 * `<origin>/xray/us|eu|au` the regional ones (§0.1), each serving `/api/v2/…`; `XRAY_BASE_URL` is the global one.
 *
 * The core owns latency, random faults, resets and the rate limit: one budget for REST and GraphQL together,
 * per tenant (= this module), 300 per 5 minutes unless the core's faults say otherwise (`defaultFaults`). This
 * module models the service: token auth (`auth.ts`), the imports (`import.ts`, `multipart.ts`), the GraphQL subset
 * (`graphql.ts`), the 413 above `maxBodyBytes` (answered before credentials are looked at, as a front-end proxy
 * does), targeted faults before or after applying (`operationFaults`), and the switches of `settings.ts`.
 * Counted for tests (`stats().xray.counters`, state `counters`): `silentTodo` (a status stored as TODO without an
 * error), `testInfo`, `extraStepResults`, `partialSkipped`, imports, executions created, tokens issued, `addEvidenceToTestRun` calls (`evidenceAdded`).
 */
import type { SandboxRequest, SandboxResponse, ServiceFaults, ServiceModule } from '../types';
import { faultAnswer, tooLarge, xrayError } from './answers';
import { authenticateAnswer, checkBearer, TokenIssuer } from './auth';
import { graphqlAnswer } from './graphql';
import { importJson } from './import';
import { importMultipart } from './multipart';
import { checkXraySettings, XRAY_SETTING_DEFAULTS, type XraySettings } from './settings';
import { XrayStore } from './store';
import { xrayCounters, xrayStateView, type XrayStateView } from './view';

export type { XrayStateView, XrayExecutionView, XrayRunView } from './view';
export type { XraySettings, XrayCustomStatus, XrayOperationFault, XrayRegion, XrayRequiredField } from './settings';

export interface XraySandboxOptions extends Partial<XraySettings> {
  /** API key. Defaults: fixed 32-hex id and 64-hex secret. */
  clientId?: string;
  clientSecret?: string;
  /** The one Jira project. Default key `XT`, id `10000`, name `Xray tests`. */
  projectKey?: string;
  projectId?: string;
  projectName?: string;
  /** Tests `<KEY>-1`..`<KEY>-<testCount>` (issue ids 10001…). Default 300. */
  testCount?: number;
  /** Test number → predefined steps (Manual Tests); the others are Generic. Default `{3: 3}`. */
  manualTests?: Record<number, number>;
  /** Test Plans numbered right after the Tests (then one Story, then the executions). Default 2. */
  testPlanCount?: number;
  /** Jira site of the `self` links. Default `https://sandbox.atlassian.net`. */
  jiraSite?: string;
  /** Wall clock in ms since the epoch: token `iat`/`exp`, run and evidence dates. Default `Date.now`. For tests. */
  clock?: () => number;
  /** The shared REST + GraphQL budget (core rate limit) unless the core's faults set one. Default 300 per 5 min; null = none. */
  rateLimit?: { count: number; windowMs: number } | null;
}

export const XRAY_DEFAULTS = {
  clientId: '8C1F0A0B2D3E4F5A6B7C8D9E0F1A2B3C',
  clientSecret: '6f0c2d9b4e7a1c3f5b8d0e2a4c6f8b1d3e5a7c9f0b2d4e6a8c1e3f5b7d9a0e91',
  projectKey: 'XT',
  projectId: '10000',
  projectName: 'Xray tests',
  testCount: 300,
  manualTests: { 3: 3 } as Record<number, number>,
  testPlanCount: 2,
  jiraSite: 'https://sandbox.atlassian.net',
  rateLimit: { count: 300, windowMs: 300_000 } as { count: number; windowMs: number } | null,
};

/** The module plus its switches (reach it with `sandbox.modules.find((m) => m.name === 'xray')`). */
export interface XrayModule extends ServiceModule {
  configure(patch: Partial<XraySettings>): XraySettings;
  settings(): XraySettings;
  snapshot(): XrayStateView;
  /** Every token issued so far stops working (the "token expiry mid-run" fault); new ones work. */
  revokeTokens(): void;
}

const MOUNT = /^\/xray(?:\/(us|eu|au))?(\/.*)?$/;

export function createXrayModule(options: XraySandboxOptions = {}): XrayModule {
  const o = { ...XRAY_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const clock = options.clock ?? (() => Date.now());
  const settingKeys = Object.keys(XRAY_SETTING_DEFAULTS) as Array<keyof XraySettings>;
  const settings: XraySettings = {
    ...structuredClone(XRAY_SETTING_DEFAULTS),
    ...checkXraySettings(Object.fromEntries(settingKeys.map((k) => [k, options[k]]))),
  };
  const store = new XrayStore(
    {
      projectKey: o.projectKey,
      projectId: o.projectId,
      projectName: o.projectName,
      testCount: o.testCount,
      manualTests: o.manualTests,
      testPlanCount: o.testPlanCount,
      jiraSite: o.jiraSite,
      clock,
    },
    settings,
  );
  const creds = { clientId: o.clientId, clientSecret: o.clientSecret, tenant: 'sandbox-tenant', userKey: 'sandbox-user' };
  const tokens = new TokenIssuer(creds, clock);
  let operationFaultsUsed = 0;

  /** The first targeted fault for one of `operations` at this point (used up as it answers), or null. */
  const takeFault = (operations: string[], applied: boolean): SandboxResponse | null => {
    const list = settings.operationFaults;
    const i = list.findIndex((f) => f.applied === applied && operations.includes(f.operation));
    if (i < 0) return null;
    const f = list[i];
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) list.splice(i, 1);
    operationFaultsUsed++;
    return faultAnswer(
      settings.faultBody,
      f.status ?? 500,
      `${f.operation} (${applied ? 'applied, then' : 'not applied,'} ${f.status ?? 500})`,
    );
  };
  /** One REST operation with its targeted faults around it (an "after" fault only follows a success). */
  const withFaults = async (operation: string, run: () => SandboxResponse | Promise<SandboxResponse>): Promise<SandboxResponse> => {
    const before = takeFault([operation], false);
    if (before) return before;
    const answer = await run();
    return (answer.status < 300 && takeFault([operation], true)) || answer;
  };
  const apiPath = (req: SandboxRequest) => {
    const m = MOUNT.exec(req.rawPath);
    const rest = (m?.[2] ?? '').replace(/\/+$/, '');
    return { region: m?.[1], api: rest.startsWith('/api/v2/') ? rest.slice('/api/v2'.length) : null };
  };

  const defaultFaults: Partial<ServiceFaults> = { rateLimit: o.rateLimit };
  return {
    name: 'xray',
    // Not established whether the window is fixed or sliding (§10): sliding, every refused call told the wait.
    rateLimitStyle: 'sliding',
    defaultFaults,
    matches: (rawPath) => MOUNT.test(rawPath),
    authenticate(req) {
      if (req.rawBytes.length > settings.maxBodyBytes) return tooLarge();
      const { region, api } = apiPath(req);
      if (api === null || api === '/authenticate') return null;
      return checkBearer(req, tokens, region !== undefined && region !== settings.tenantRegion);
    },
    // One budget per tenant for REST and GraphQL together (§7); the sandbox has one tenant.
    rateLimitKey: () => 'tenant',
    rateLimitResponse: (waitSeconds) => ({
      ...xrayError(429, 'Too many requests: the rate limit of this Xray instance was exceeded.', 'rate-limited'),
      ...(settings.retryAfter === 'seconds'
        ? { headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(waitSeconds) } }
        : {}),
    }),
    faultResponse: () => faultAnswer(settings.faultBody),
    async handle(req) {
      const { api } = apiPath(req);
      if (req.method === 'POST' && api === '/authenticate') {
        return withFaults('authenticate', () =>
          authenticateAnswer(req, creds, () => {
            store.counters.tokensIssued++;
            return tokens.mint(settings.tokenLifetimeSeconds);
          }),
        );
      }
      if (req.method === 'POST' && api === '/import/execution')
        return withFaults('import', () => importJson(store, req.body, req.bodyParseError));
      if (req.method === 'POST' && api === '/import/execution/multipart')
        return withFaults('import/multipart', () => importMultipart(store, req));
      if (req.method === 'POST' && api === '/graphql') return graphqlAnswer(store, req.body, req.bodyParseError, takeFault);
      return xrayError(404, `No route for ${req.method} ${req.rawPath}`, `${req.method} (unknown)`);
    },
    configure(patch) {
      Object.assign(settings, checkXraySettings(patch));
      return structuredClone(settings);
    },
    settings: () => structuredClone(settings),
    counters: () => ({ ...xrayCounters(store), operationFaults: operationFaultsUsed }),
    snapshot: () => xrayStateView(store),
    revokeTokens: () => tokens.revokeAll(),
    reset: () => {
      store.reset();
      operationFaultsUsed = 0;
    },
    env: (origin) => ({
      XRAY_BASE_URL: `${origin}/xray`,
      XRAY_CLIENT_ID: o.clientId,
      XRAY_CLIENT_SECRET: o.clientSecret,
      XRAY_PROJECT_KEY: o.projectKey,
    }),
  };
}
