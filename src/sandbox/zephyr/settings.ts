/**
 * Behaviour switches of the Zephyr stand-in, for the answers production has given over time (field evidence in
 * /work/shared/spec/README.md). Each can be given at creation (module options) and changed at run time with
 * `module.configure(patch)` (admin `POST /__sandbox/settings`, CLI `--set zephyr.<key>=<value>`); a core
 * `reset()` keeps them, like the core's fault switches.
 */

/**
 * The 429's `Retry-After` header. The text always names the wait ("Please wait for N seconds"):
 * - `'none'`: no header (default: a client must read the text);
 * - `'zero'`: `Retry-After: 0` whatever the wait (production until a vendor fix in March 2025);
 * - `'seconds'`: `Retry-After: N`, the same N as the text (what that fix is taken to give; not established).
 */
export type RetryAfterStyle = 'none' | 'zero' | 'seconds';
export const RETRY_AFTER_STYLES: readonly RetryAfterStyle[] = ['none', 'zero', 'seconds'];

/**
 * How the job endpoints (add tests, bulk status, bulk delete) hand out the job token:
 * - `'text'`: the bare token as `text/plain` (production: the vendor's CI plugin uses the body verbatim; default);
 * - `'json-string'`: the token as a JSON string (`"…"`, `application/json`);
 * - `'object'`: `{"jobProgressToken": "…"}` (the Server product's shape).
 */
export type JobTokenStyle = 'text' | 'json-string' | 'object';
export const JOB_TOKEN_STYLES: readonly JobTokenStyle[] = ['text', 'json-string', 'object'];

/**
 * What `POST zql/search` sees. ZQL is served from a search index, not from the cycle itself, so an execution
 * just added may be missing from it for a while; a client must not take "not found by ZQL" as "not in the cycle":
 * - `'indexed'`: every execution is found at once (default);
 * - `'stale'`: the index has nothing yet (every query answers an empty page);
 * - `'absent'`: the route does not exist (404), as behind a gateway that does not pass it.
 */
export type ZqlStyle = 'indexed' | 'stale' | 'absent';
export const ZQL_STYLES: readonly ZqlStyle[] = ['indexed', 'stale', 'absent'];

/**
 * The add-tests job's `message` (its wording in production is not established; a client must not depend on it):
 * - `'json'`: `{"added":N,"existing":M,"invalid":[…]}` (default);
 * - `'text'`: a sentence per count, naming the keys: `N test(s) added. M test(s) were invalid: K-1, K-2. Existing tests: K-3`.
 */
export type AddTestsMessageStyle = 'json' | 'text';
export const ADD_TESTS_MESSAGE_STYLES: readonly AddTestsMessageStyle[] = ['json', 'text'];

/**
 * How folder names of one cycle are compared for uniqueness (production answers a duplicate with 400 / 152; its
 * comparison rule is not established, field evidence):
 * - `'case-insensitive'`: trimmed and case-insensitive, `Chromium` clashes with ` chromium` (default: a client must
 *   look for an existing folder the same way before creating, and after a 152);
 * - `'exact'`: only the very same name clashes.
 */
export type FolderNames = 'case-insensitive' | 'exact';
export const FOLDER_NAMES: readonly FolderNames[] = ['case-insensitive', 'exact'];

export interface ZephyrSettings {
  retryAfter: RetryAfterStyle;
  jobTokenStyle: JobTokenStyle;
  zql: ZqlStyle;
  addTestsMessage: AddTestsMessageStyle;
  folderNames: FolderNames;
}

export const ZEPHYR_SETTING_DEFAULTS: ZephyrSettings = {
  retryAfter: 'none',
  jobTokenStyle: 'text',
  zql: 'indexed',
  addTestsMessage: 'json',
  folderNames: 'case-insensitive',
};

const CHECKS: Record<keyof ZephyrSettings, readonly string[]> = {
  retryAfter: RETRY_AFTER_STYLES,
  jobTokenStyle: JOB_TOKEN_STYLES,
  zql: ZQL_STYLES,
  addTestsMessage: ADD_TESTS_MESSAGE_STYLES,
  folderNames: FOLDER_NAMES,
};

/** The known, defined keys of `patch`, checked; throws naming the first bad key (unknown keys are errors too). */
export function checkZephyrSettings(patch: object): Partial<ZephyrSettings> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const allowed = CHECKS[key as keyof ZephyrSettings];
    if (!allowed) throw new Error(`zephyr sandbox: unknown setting "${key}" (known: ${Object.keys(CHECKS).join(', ')})`);
    if (!allowed.includes(value as string)) {
      throw new Error(`zephyr sandbox: ${key} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(value)}`);
    }
    out[key] = value;
  }
  return out as Partial<ZephyrSettings>;
}
