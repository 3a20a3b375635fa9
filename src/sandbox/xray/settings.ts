/**
 * Behaviour switches of the Xray Cloud stand-in (/work/shared/spec/xray-cloud-api.md). Each can be given at
 * creation (module options) and changed at run time with `module.configure(patch)` (admin `POST
 * /__sandbox/settings`, CLI `--set xray.<key>=<value>`); a core `reset()` keeps them. Where the reference marks a
 * behaviour as not established (§10), the switch's default is the variant a client is least likely to get away
 * with, and the other variants are one switch away.
 */

/** Data residency of the tenant: a regional host other than this one lets `authenticate` pass and 401s data calls (§0.1). */
export type XrayRegion = 'global' | 'us' | 'eu' | 'au';
export const XRAY_REGIONS: readonly XrayRegion[] = ['global', 'us', 'eu', 'au'];

/** A tenant's own run status (§5): name `^[a-zA-Z0-9_/]{2,18}$`. */
export interface XrayCustomStatus {
  name: string;
  description?: string;
  final?: boolean;
  color?: string;
}

/** A Jira field the project requires on a new Test Execution (§3.3: "customfield_10115: Story Points is required."). */
export interface XrayRequiredField {
  id: string;
  name: string;
}

/**
 * One targeted fault: the next `times` calls of `operation` (`import`, `import/multipart`, `authenticate`, or a
 * GraphQL root field such as `createTestExecution`) answer `status` — before anything is applied, or, with
 * `applied: true`, after the call took effect (the answer that makes a naive retry create a duplicate).
 */
export interface XrayOperationFault {
  operation: string;
  applied: boolean;
  /** Default 500. */
  status?: number;
  /** Default 1; counted down, the fault is dropped when used up. */
  times?: number;
}

export interface XraySettings {
  /** Lifetime of a token from `authenticate` (the documented example: 86,400 s). */
  tokenLifetimeSeconds: number;
  /** Where the tenant's data lives; `'global'` (default) = no residency, every regional host is the wrong one. */
  tenantRegion: XrayRegion;
  /**
   * The 429's `Retry-After` (XRAYCLOUD-1399: at least once it was missing): `'seconds'` (default) or `'none'`.
   */
  retryAfter: 'seconds' | 'none';
  /** Bodies above this many bytes answer 413 text/html and nothing is applied (field reports: ~100 MiB). */
  maxBodyBytes: number;
  /** Jira fields the project requires on a new Test Execution; a create without them answers 400. Default none. */
  requiredFields: XrayRequiredField[];
  /** The tenant's statuses after the five built-ins. Default `[FLAKY]`. */
  customStatuses: XrayCustomStatus[];
  /**
   * An import naming a key that is not a Test (§3.2, not established): `'reject'` (default: 400, nothing applied)
   * or `'partial'` (the other tests land, 200; the skipped keys are counted as `partialSkipped`).
   */
  unknownTestKey: 'reject' | 'partial';
  /** JQL naming an issue key that does not exist (§6.2, not established): `'ignore'` (default, absent) or `'error'`. */
  jqlUnknownKey: 'ignore' | 'error';
  /** Evidence of a run imported again (§10, not established): `'keep'` (default: earlier files stay) or `'drop'`. */
  evidenceOnReimport: 'keep' | 'drop';
  /** Body of injected 5xx answers: `'json'` (`{"error"}`, default) or `'html'` (the CDN page, §0.5). */
  faultBody: 'json' | 'html';
  /** Evidence storage of the plan is full: `addEvidenceToTestRun` fails and imports carrying evidence answer 400. */
  evidenceStorageFull: boolean;
  /** Targeted faults, used up in order (see `XrayOperationFault`). */
  operationFaults: XrayOperationFault[];
}

export const XRAY_SETTING_DEFAULTS: XraySettings = {
  tokenLifetimeSeconds: 86_400,
  tenantRegion: 'global',
  retryAfter: 'seconds',
  maxBodyBytes: 100 * 1024 * 1024,
  requiredFields: [],
  customStatuses: [{ name: 'FLAKY', description: 'Passed after retry', final: true, color: '#F1E069' }],
  unknownTestKey: 'reject',
  jqlUnknownKey: 'ignore',
  evidenceOnReimport: 'keep',
  faultBody: 'json',
  evidenceStorageFull: false,
  operationFaults: [],
};

export const BUILTIN_STATUS_NAMES = ['PASSED', 'FAILED', 'TODO', 'EXECUTING', 'ABORTED'];

type Check = (v: unknown) => boolean;
const oneOf =
  (list: readonly unknown[]): Check =>
  (v) =>
    list.includes(v);
const positive: Check = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;
const boolean: Check = (v) => typeof v === 'boolean';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf =
  (item: (v: Record<string, unknown>) => boolean): Check =>
  (v) =>
    Array.isArray(v) && v.every((x) => isObject(x) && item(x));

const CHECKS: Record<keyof XraySettings, [Check, string]> = {
  tokenLifetimeSeconds: [positive, 'a number of seconds > 0'],
  tenantRegion: [oneOf(XRAY_REGIONS), XRAY_REGIONS.map((r) => `'${r}'`).join(', ')],
  retryAfter: [oneOf(['seconds', 'none']), "'seconds' or 'none'"],
  maxBodyBytes: [positive, 'a number of bytes > 0'],
  requiredFields: [listOf((f) => typeof f.id === 'string' && typeof f.name === 'string'), 'an array of {id, name}'],
  customStatuses: [
    listOf((s) => typeof s.name === 'string' && /^[a-zA-Z0-9_/]{2,18}$/.test(s.name) && !BUILTIN_STATUS_NAMES.includes(s.name)),
    'an array of {name (2-18 of [a-zA-Z0-9_/], not a built-in), description?, final?, color?}',
  ],
  unknownTestKey: [oneOf(['reject', 'partial']), "'reject' or 'partial'"],
  jqlUnknownKey: [oneOf(['ignore', 'error']), "'ignore' or 'error'"],
  evidenceOnReimport: [oneOf(['keep', 'drop']), "'keep' or 'drop'"],
  faultBody: [oneOf(['json', 'html']), "'json' or 'html'"],
  evidenceStorageFull: [boolean, 'a boolean'],
  operationFaults: [
    listOf(
      (f) =>
        typeof f.operation === 'string' &&
        typeof f.applied === 'boolean' &&
        (f.status === undefined || (Number.isInteger(f.status) && (f.status as number) >= 400 && (f.status as number) <= 599)) &&
        (f.times === undefined || (Number.isInteger(f.times) && (f.times as number) > 0)),
    ),
    'an array of {operation, applied, status? (4xx/5xx), times? (> 0)}',
  ],
};

/** The known, defined keys of `patch`, checked; throws naming the first bad key (nothing is applied then). */
export function checkXraySettings(patch: object): Partial<XraySettings> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const check = CHECKS[key as keyof XraySettings];
    if (!check) throw new Error(`xray sandbox: unknown setting "${key}" (known: ${Object.keys(CHECKS).join(', ')})`);
    if (!check[0](value)) throw new Error(`xray sandbox: ${key} must be ${check[1]}, got ${JSON.stringify(value)}`);
    out[key] = structuredClone(value);
  }
  return out as Partial<XraySettings>;
}
