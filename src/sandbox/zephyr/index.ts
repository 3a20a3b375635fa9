import type { SandboxRequest, SandboxResponse, ServiceModule } from '../types';
import { authenticateRequest, type Credentials } from './auth';
import { errorResponse, ERR } from './http';
import { JobQueue } from './jobs';
import { normalizeContextPath } from './qsh';
import { dispatch } from './routes';
import { checkZephyrSettings, ZEPHYR_SETTING_DEFAULTS, type ZephyrSettings } from './settings';
import { BUILTIN_STATUSES, ZephyrStore, type StatusDef } from './store';
import { snapshotCycles, type ZephyrSnapshot } from './views';
import { StepCatalog, type TestStepsOption } from './steps';

export type { ZephyrSnapshot } from './views';
export type { TestStepsOption } from './steps';
export type { FolderNames, JobTokenStyle, RetryAfterStyle, ZephyrSettings, ZqlStyle } from './settings';
export { verifyToken } from './auth';
export { canonicalQuery, canonicalRequest, canonicalUri, computeQsh } from './qsh';

/** Options of the Zephyr Squad Cloud (ZAPI cloud) stand-in, plus the initial value of every run-time setting (`settings.ts`); all optional. */
export interface ZephyrSandboxOptions extends Partial<ZephyrSettings> {
  /** Mount prefix, stripped before hashing (production: `/connect`). Default `/connect`. */
  contextPath?: string;
  /** Access key (zapiAccessKey header and `iss`). Default: minted from `accountId` in the §2.1 format. */
  accessKey?: string;
  /** Secret key; its UTF-8 bytes are the HMAC key. Default: a fixed 43-char base64url string. */
  secretKey?: string;
  /** Account id of the key's owner (what clients put in `sub`). Default `5b10ac8d82e05b22cc7d4ef5`. */
  accountId?: string;
  /** Default 10000. */
  projectId?: number;
  /** Default `PROJ`. */
  projectKey?: string;
  /** Default `Project`. */
  projectName?: string;
  /** Issues `<KEY>-1`..`<KEY>-<issueCount>` exist with issueId 100000 + n. Default 20000. */
  issueCount?: number;
  /** Versions of the project. Default `[{id:-1,name:'Unscheduled'},{id:10100,name:'1.0'}]`. */
  versions?: { id: number; name: string }[];
  /** Tenant statuses listed after the 5 built-ins (type 1). Default `[{id:5,name:'PARTIALLY PASSED'}]`. */
  customStatuses?: { id: number; name: string; color?: string; description?: string }[];
  /** Async jobs (add tests, bulk status/delete) take effect this long after creation. Default 150. */
  jobDelayMs?: number;
  /** Former form of `retryAfter: 'seconds'` (kept working); ignored when `retryAfter` is given. Default false. */
  retryAfterHeader?: boolean;
  /** Monotonic clock (ms) of the async jobs. Default `performance.now()`. For tests. */
  now?: () => number;
  /** Also accept the raw-query hash and the hash including the context path (deviations). Default false. */
  lenientQsh?: boolean;
  /** Test steps per issue and step statuses. Default: every issue has 3 steps, the 5 built-in step statuses. */
  testSteps?: TestStepsOption;
}

export const DEFAULT_ACCOUNT_ID = '5b10ac8d82e05b22cc7d4ef5';
export const DEFAULT_TENANT = 'jira:00000000-1111-2222-3333-444444444444';
export const DEFAULT_SECRET_KEY = 'hAWQ1hpVKPYPI71l8hZ3ylD50M2cdqYrS_WdByUJkCA';

/** An access key in the vendor format: base64 of `<tenant> <url-encoded accountId> <label>` (§2.1). */
export function mintAccessKey(accountId: string, tenant = DEFAULT_TENANT, label = 'USER_DEFAULT_NAME'): string {
  return Buffer.from(`${tenant} ${encodeURIComponent(accountId)} ${label}`, 'utf8').toString('base64');
}

const API_MESSAGES = {
  fault: 'we encountered a problem during processing this request. Please try again.',
};

/** The module plus its run-time switches (reach it with `sandbox.modules.find((m) => m.name === 'zephyr')`). */
export interface ZephyrModule extends ServiceModule {
  /** Changes settings at run time; throws on an unknown key or a bad value (nothing is applied then). */
  configure(patch: Partial<ZephyrSettings>): ZephyrSettings;
  /** A copy of the current settings. */
  settings(): ZephyrSettings;
  /** The bytes of an uploaded attachment (the state view lists ids, sizes and sha256 only). */
  attachmentBytes(id: string): Buffer | undefined;
}

export function createZephyrModule(options: ZephyrSandboxOptions = {}): ZephyrModule {
  const contextPath = normalizeContextPath(options.contextPath ?? '/connect');
  const accountId = options.accountId ?? DEFAULT_ACCOUNT_ID;
  const accessKey = options.accessKey ?? mintAccessKey(accountId);
  const secretKey = options.secretKey ?? DEFAULT_SECRET_KEY;
  const projectId = options.projectId ?? 10000;
  const jobDelayMs = Math.max(0, options.jobDelayMs ?? 150);
  const statuses = buildStatuses(options.customStatuses ?? [{ id: 5, name: 'PARTIALLY PASSED' }]);

  const projectKey = options.projectKey ?? 'PROJ';
  const store = new ZephyrStore({
    projectId,
    projectKey,
    projectName: options.projectName ?? 'Project',
    issueCount: options.issueCount ?? 20000,
    versions: (
      options.versions ?? [
        { id: -1, name: 'Unscheduled' },
        { id: 10100, name: '1.0' },
      ]
    ).map((v) => ({ ...v })),
    statuses,
    steps: new StepCatalog(options.testSteps, projectKey),
  });
  const jobs = new JobQueue(jobDelayMs, options.now ?? (() => performance.now()));
  const settings: ZephyrSettings = {
    ...ZEPHYR_SETTING_DEFAULTS,
    ...checkZephyrSettings({
      retryAfter: options.retryAfter ?? (options.retryAfterHeader ? 'seconds' : undefined),
      jobTokenStyle: options.jobTokenStyle,
      zql: options.zql,
      folderNames: options.folderNames,
    }),
  };
  const keys = new Map<string, Credentials>([[accessKey, { accessKey, secretKey }]]);
  /** Acting user per authenticated request (authenticate runs before handle on the same object). */
  const users = new WeakMap<SandboxRequest, string>();

  return {
    name: 'zephyr',
    // Measured: 30 calls in any 27-60 s, the 31st told "Please wait for N seconds" (field evidence).
    rateLimitStyle: 'sliding',

    matches(rawPath: string): boolean {
      return contextPath === '' || rawPath === contextPath || rawPath.startsWith(contextPath + '/');
    },

    authenticate(req: SandboxRequest): SandboxResponse | null {
      const result = authenticateRequest(req, { contextPath, keys, lenientQsh: options.lenientQsh ?? false });
      if ('response' in result) return result.response;
      users.set(req, result.sub);
      return null;
    },

    rateLimitKey(req: SandboxRequest): string {
      const v = req.headers.zapiaccesskey;
      return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
    },

    rateLimitResponse(waitSeconds: number): SandboxResponse {
      const answer = errorResponse(429, `Please wait for ${waitSeconds} seconds`, 429, 'rate-limited');
      if (settings.retryAfter !== 'none') answer.headers = { 'retry-after': settings.retryAfter === 'zero' ? '0' : String(waitSeconds) };
      return answer;
    },

    faultResponse(): SandboxResponse {
      return errorResponse(500, API_MESSAGES.fault, ERR.internal, 'fault');
    },

    handle(req: SandboxRequest): SandboxResponse | Promise<SandboxResponse> {
      jobs.runDue();
      const relPath = req.rawPath.slice(contextPath.length);
      return dispatch(req, relPath === '' ? '/' : relPath, { store, jobs, settings }, users.get(req) ?? '');
    },

    configure(patch: Partial<ZephyrSettings>): ZephyrSettings {
      Object.assign(settings, checkZephyrSettings(patch));
      return { ...settings };
    },

    settings: () => ({ ...settings }),

    snapshot(): ZephyrSnapshot {
      jobs.runDue();
      return { cycles: snapshotCycles(store), jobs: jobs.counts(), statuses: statuses.map((s) => ({ ...s })) };
    },

    attachmentBytes(id: string): Buffer | undefined {
      const bytes = store.evidence.attachments.get(id)?.bytes;
      return bytes ? Buffer.from(bytes) : undefined;
    },

    reset(): void {
      store.reset();
      jobs.reset();
    },

    env(origin: string): Record<string, string> {
      return {
        ZEPHYR_BASE_URL: origin + contextPath,
        ZEPHYR_ACCESS_KEY: accessKey,
        ZEPHYR_SECRET_KEY: secretKey,
        ZEPHYR_ACCOUNT_ID: accountId,
        ZEPHYR_PROJECT_ID: String(projectId),
        ZEPHYR_VERSION_ID: '-1',
      };
    },
  };
}

function buildStatuses(custom: NonNullable<ZephyrSandboxOptions['customStatuses']>): StatusDef[] {
  const list: StatusDef[] = BUILTIN_STATUSES.map((s) => ({ ...s }));
  for (const c of custom) {
    if (list.some((s) => s.id === c.id)) throw new Error(`zephyr sandbox: custom status id ${c.id} is already used`);
    list.push({ id: c.id, name: c.name, description: c.description ?? '', color: c.color ?? '#FF8000', type: 1 });
  }
  return list;
}
