import { createQueryStringHash, encodeSymmetric, fromMethodAndUrl } from 'atlassian-jwt';
import { expect } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server';

export const API = '/public/rest/api/1.0';
export const API2 = '/public/rest/api/2.0';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface CallOptions {
  /** Under `{api2}` instead of `{api}`. */
  api2?: boolean;
  /** A JSON body. */
  json?: unknown;
  /** A multipart body (fetch sets the content-type with its boundary). */
  form?: FormData;
  /** Sign this path+query instead of the one sent (to provoke a qsh mismatch). */
  signAs?: string;
}

/**
 * A strict client: the canonical qsh from atlassian-jwt (the reference implementation), seconds, `JWT <token>`.
 * Each request gets its own token, as a real client must.
 */
export async function zcall(sandbox: RunningSandbox, method: string, pathAndQuery: string, o: CallOptions = {}): Promise<Reply> {
  const env = sandbox.env();
  const base = env.ZEPHYR_BASE_URL;
  const api = o.api2 ? API2 : API;
  const url = base + api + pathAndQuery;
  const now = Math.floor(Date.now() / 1000);
  const qsh = createQueryStringHash(fromMethodAndUrl(method, base + api + (o.signAs ?? pathAndQuery)), false, base);
  const token = encodeSymmetric(
    { iss: env.ZEPHYR_ACCESS_KEY, sub: env.ZEPHYR_ACCOUNT_ID, qsh, iat: now, exp: now + 180 },
    env.ZEPHYR_SECRET_KEY,
  );
  const headers: Record<string, string> = { Authorization: `JWT ${token}`, zapiAccessKey: env.ZEPHYR_ACCESS_KEY };
  let body: string | FormData | undefined;
  if (o.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(o.json);
  } else if (o.form) {
    headers['X-Atlassian-Token'] = 'no-check';
    body = o.form;
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Polls a job until it reports progress 1 (a sandbox made with `jobDelayMs: 0` applies it on the next request). */
export async function zwaitForJob(sandbox: RunningSandbox, token: string): Promise<any> {
  for (let i = 0; i < 50; i++) {
    const r = await zcall(sandbox, 'GET', `/jobprogress/${token}`);
    expect(r.status).toBe(200);
    if (r.json.progress >= 1) return r.json;
  }
  throw new Error('job did not complete');
}

/** The §5 envelope with the given status, message and (optionally) errorCode. */
export function expectZephyrError(r: Reply, status: number, message: string | RegExp, errorCode?: number): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toBe('application/json;charset=UTF-8');
  expect(r.json.errorType).toBe('ERROR');
  if (typeof message === 'string') expect(r.json.clientMessage).toBe(message);
  else expect(r.json.clientMessage).toMatch(message);
  if (errorCode !== undefined) expect(r.json.errorCode).toBe(errorCode);
}

/**
 * After a reset: one cycle "Evidence" (project 10000, version -1) holding executions of `keys`, added with the
 * add-tests job. Returns the cycle id and issueKey -> execution id.
 */
export async function zcycleWithTests(sandbox: RunningSandbox, keys: string[]): Promise<{ cycleId: string; exec: Record<string, string> }> {
  sandbox.reset();
  const cycle = await zcall(sandbox, 'POST', '/cycle', { json: { name: 'Evidence', projectId: 10000, versionId: -1 } });
  const cycleId: string = cycle.json.id;
  const add = await zcall(sandbox, 'POST', `/executions/add/cycle/${cycleId}`, {
    json: { method: 1, projectId: 10000, versionId: -1, issues: keys },
  });
  await zwaitForJob(sandbox, add.text);
  const search = await zcall(sandbox, 'GET', `/executions/search/cycle/${cycleId}?projectId=10000&versionId=-1`);
  return { cycleId, exec: Object.fromEntries(search.json.searchObjectList.map((w: any) => [w.issueKey, w.execution.id])) };
}
