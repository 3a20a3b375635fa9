/**
 * Credentials of the CucumberStudio stand-in: the header triple checked on every call (401/406) and the
 * documented sign-in route (#1), which needs no header and hands the triple back in response headers.
 */
import type { SandboxRequest, SandboxResponse } from '../types';
import { DEVISE_BAD_CREDENTIALS, deviseError } from './errors';
import { errorResponse, JSONAPI_MEDIA_TYPE } from './jsonapi';

export interface Credentials {
  uid: string;
  accessToken: string;
  client: string;
  /** Password of the `uid` account, for sign-in only. */
  password: string;
}

const EXPECTED_ACCEPT = 'application/vnd.api+json; version=1';

function header(req: SandboxRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** True when one of the Accept entries is `application/vnd.api+json` with `version=1` (case/spacing tolerant). */
export function acceptsVersion1(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((entry) => {
    const [type, ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    if (type !== JSONAPI_MEDIA_TYPE) return false;
    return params.some((p) => /^version\s*=\s*"?\s*1\s*"?$/.test(p));
  });
}

export function isSignIn(req: SandboxRequest): boolean {
  return req.method === 'POST' && /^\/api\/auth\/sign_in\/?$/.test(req.rawPath);
}

/**
 * 401 for a wrong or missing triple (JSON:API naming the missing headers, or with `devise` the devise string
 * array real clients have met), 406 without the versioned Accept; null when the request may proceed.
 * The values sent are never echoed.
 */
export function checkHeaders(req: SandboxRequest, creds: Credentials, devise: boolean): SandboxResponse | null {
  if (isSignIn(req)) return null;
  const uid = header(req, 'uid');
  const token = header(req, 'access-token');
  const client = header(req, 'client');
  if (uid !== creds.uid || token !== creds.accessToken || client !== creds.client) {
    if (devise) return deviseError(401, DEVISE_BAD_CREDENTIALS, 'auth');
    const missing = [
      ['uid', uid],
      ['access-token', token],
      ['client', client],
    ]
      .filter(([, v]) => !v)
      .map(([k]) => k);
    const detail =
      missing.length > 0
        ? `Missing credential header${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}. Send uid, access-token and client.`
        : 'Invalid credentials: check uid, access-token and client';
    return errorResponse(401, detail, 'auth');
  }
  if (!acceptsVersion1(header(req, 'accept'))) {
    return errorResponse(406, `The Accept header must be "${EXPECTED_ACCEPT}" (API version 1).`, 'auth');
  }
  return null;
}

/**
 * #1 POST /api/auth/sign_in with `{"email","password"}` (plain JSON). Success: 200, the credentials in headers
 * (the sandbox hands out its one configured triple rather than minting a new client per sign-in) and a `data`
 * array holding the user (the reference shows an array). Failure: 401 with devise's string array (field evidence;
 * the reference suggests a shorter text).
 */
export function signIn(req: SandboxRequest, creds: Credentials, expiry: string): SandboxResponse {
  const route = 'POST /auth/sign_in';
  const body = (req.body ?? {}) as { email?: unknown; password?: unknown };
  if (body.email !== creds.uid || body.password !== creds.password) return deviseError(401, DEVISE_BAD_CREDENTIALS, route);
  return {
    status: 200,
    route,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'access-token': creds.accessToken,
      'token-type': 'Bearer',
      client: creds.client,
      expiry,
      uid: creds.uid,
    },
    body: { data: [{ id: 1, email: creds.uid, uid: creds.uid, provider: 'email', name: creds.uid.split('@')[0] }] },
  };
}
