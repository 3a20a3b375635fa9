/** Types and fixtures shared by the bad-input matrix's case tables (see ../bad-input.test.ts). */
import type { RunningSandbox } from '../../../src/sandbox';
import type { ResponseOverride } from '../../../src/sandbox/types';
import type { RunResult } from '../harness';

export interface Case {
  id: string;
  kind: 'config' | 'response';
  title: string;
  /** The one `[tms-reporter]` line that names the problem. */
  line: RegExp;
  /** Strings that must appear on that same line (option key, env var). */
  names?: string[];
  /** A product defect this case shows (reported to the owner); the case runs as `it.fails` until fixed. */
  defect?: string;
}

export interface Group {
  label: string;
  cases: Case[];
  /** Env on top of the sandbox's (undefined removes a variable). */
  env?: (sb: RunningSandbox) => Record<string, string | undefined>;
  options?: unknown;
  overrides?: { zephyr?: ResponseOverride[]; cucumberstudio?: ResponseOverride[] };
  /** Extra secrets (wrong keys given on purpose) that must not appear anywhere. */
  secrets?: string[];
  /**
   * Options only, on the sandbox's whole env and no faults: the group is one reporter instance (its own options,
   * outbox and summary) in a Playwright run shared with the other such groups, instead of a run of its own.
   */
  instance?: boolean;
  /**
   * The run needs the suite's tests passed, not skipped (SKIPPED_SUITE): its fault is on a call only a result that
   * is not the default status makes (Zephyr's bulk status), or it checks what was published.
   */
  passing?: boolean;
  /** Checks on the sandbox after the run (e.g. that a recovered case published exactly). */
  after?: (sb: RunningSandbox, run: RunResult) => void;
}

export const SUITE = {
  'ok.spec.ts': `const { test } = require('@playwright/test');
test('checkout works', { tag: ['@PROJ-1', '@cs-1'] }, () => {});
test('search works', { tag: ['@PROJ-2', '@cs-2'] }, () => {});
`,
};

/**
 * The suite of most runs: the same keys, skipped where declared. A run of such tests starts no Playwright worker
 * (≈ 1 s of CPU a run), and its results are still published (as skipped), so a case's line, which does not depend
 * on the results, still comes from the call its fault breaks. Groups that need passed results say `passing`.
 */
export const SKIPPED_SUITE = {
  'ok.spec.ts': SUITE['ok.spec.ts'].replace(/^test\(/gm, 'test.skip('),
};

export const HTML_502 =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>';
export const HTML_LOGIN = '<html><head><title>Log in to continue</title></head><body><form action="/login"></form></body></html>';
export const JSON_HDR = { 'content-type': 'application/json' };
export const JSONAPI_HDR = { 'content-type': 'application/vnd.api+json' };
export const Z = '/connect/public/rest/api/1.0';
export const CS = '/api/projects/1';

export const zephyrOnly = (sb: RunningSandbox) => Object.fromEntries(Object.entries(sb.env()).filter(([k]) => k.startsWith('ZEPHYR_')));
export const csOnly = (sb: RunningSandbox) => Object.fromEntries(Object.entries(sb.env()).filter(([k]) => k.startsWith('CUCUMBERSTUDIO_')));
