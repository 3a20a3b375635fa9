/** A strict ZAPI client for the sandbox's own tests: canonical qsh from atlassian-jwt (an independent implementation). */
import { createQueryStringHash, encodeSymmetric, fromMethodAndUrl } from 'atlassian-jwt';
import { expect } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server';

const API = '/public/rest/api/1.0';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Seconds, `JWT <token>`, the qsh over the canonical request (path without the context path, query sorted). */
export async function strictCall(
  sandbox: RunningSandbox,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  rawBody?: string,
): Promise<Reply> {
  const env = sandbox.env();
  const base = env.ZEPHYR_BASE_URL;
  const url = base + API + pathAndQuery;
  const now = Math.floor(Date.now() / 1000);
  const qsh = createQueryStringHash(fromMethodAndUrl(method, url), false, base);
  const token = encodeSymmetric(
    { iss: env.ZEPHYR_ACCESS_KEY, sub: env.ZEPHYR_ACCOUNT_ID, qsh, iat: now, exp: now + 180 },
    env.ZEPHYR_SECRET_KEY,
  );
  const headers: Record<string, string> = { Authorization: `JWT ${token}`, zapiAccessKey: env.ZEPHYR_ACCESS_KEY };
  let payload: string | undefined;
  if (body !== undefined || rawBody !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = rawBody ?? JSON.stringify(body);
  }
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const expectError = (r: Reply, status: number, message: string | RegExp, errorCode?: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe('application/json;charset=UTF-8');
  expect(r.json.errorType).toBe('ERROR');
  if (typeof message === 'string') expect(r.json.clientMessage).toBe(message);
  else expect(r.json.clientMessage).toMatch(message);
  if (errorCode !== undefined) expect(r.json.errorCode).toBe(errorCode);
};
