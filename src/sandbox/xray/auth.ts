/**
 * Credentials of the Xray stand-in (§2): `POST /api/v2/authenticate` turns the API key (client id + secret) into a
 * JWT answered as a JSON string; every other call needs `Authorization: Bearer <it>`, unexpired on the module's
 * clock. The 401 bodies of a data call are not established (§10): each names its cause in `{"error"}`; the wrong
 * region reads like bad credentials, as the one field report says.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SandboxRequest, SandboxResponse } from '../types';
import { xrayError } from './answers';

export interface XrayCredentials {
  clientId: string;
  clientSecret: string;
  /** Claims of the token (the documented example carries tenant and userKey). */
  tenant: string;
  userKey: string;
}

export const BAD_CREDENTIALS = 'Authentication failed. Invalid client credentials!';

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** Mints and verifies the module's tokens with a per-instance key (a token of another sandbox is invalid here). */
export class TokenIssuer {
  private readonly key = randomBytes(32);
  /** Serial (`jti`) of the last token minted; those up to `revokedUpTo` are revoked (the "token expiry mid-run" fault). */
  private serial = 0;
  private revokedUpTo = 0;

  constructor(
    private readonly creds: XrayCredentials,
    private readonly clock: () => number,
  ) {}

  private sign(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }

  mint(lifetimeSeconds: number): string {
    const iat = Math.floor(this.clock() / 1000);
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const claims = {
      tenant: this.creds.tenant,
      userKey: this.creds.userKey,
      iat,
      exp: iat + Math.round(lifetimeSeconds),
      aud: this.creds.clientId,
      iss: 'com.xpandit.xray',
      sub: this.creds.clientId,
      jti: String(++this.serial),
    };
    const body = `${header}.${b64url(JSON.stringify(claims))}`;
    return `${body}.${this.sign(body)}`;
  }

  /** Null when the token is good, else why not (`'invalid'` or `'expired'`). */
  check(token: string): null | 'invalid' | 'expired' {
    const parts = token.split('.');
    if (parts.length !== 3) return 'invalid';
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    let claims: { exp?: number; jti?: string };
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return 'invalid';
    }
    const now = this.clock() / 1000;
    if (typeof claims.exp !== 'number' || claims.exp <= now) return 'expired';
    if (Number(claims.jti) <= this.revokedUpTo) return 'expired';
    return null;
  }

  /** Every token issued so far stops working (next ones work). */
  revokeAll(): void {
    this.revokedUpTo = this.serial;
  }
}

/** `POST …/authenticate`: 400 text for a malformed body, 401 for a wrong pair, else 200 with the quoted JWT. */
export function authenticateAnswer(req: SandboxRequest, creds: XrayCredentials, issue: () => string): SandboxResponse {
  const route = 'POST /authenticate';
  const body = req.body as { client_id?: unknown; client_secret?: unknown } | undefined;
  if (req.bodyParseError || typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { status: 400, route, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Wrong request syntax' };
  }
  if (typeof body.client_id !== 'string' || typeof body.client_secret !== 'string') {
    return { status: 400, route, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Wrong request syntax' };
  }
  if (!safeEqual(body.client_id, creds.clientId) || !safeEqual(body.client_secret, creds.clientSecret)) {
    return xrayError(401, BAD_CREDENTIALS, route);
  }
  return { status: 200, route, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(issue()) };
}

/** The bearer check of a data call; null when it may proceed. The token is never echoed. */
export function checkBearer(req: SandboxRequest, tokens: TokenIssuer, wrongRegion: boolean): SandboxResponse | null {
  const raw = req.headers.authorization;
  const header = Array.isArray(raw) ? raw[0] : raw;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return xrayError(401, 'Authentication failed. Missing Authorization header with a Bearer token.', 'auth');
  const problem = tokens.check(m[1]);
  if (problem === 'invalid') return xrayError(401, 'Authentication failed. Invalid token!', 'auth');
  if (problem === 'expired') return xrayError(401, 'Authentication failed. Token expired!', 'auth');
  // The token is good but this host does not hold the tenant's data (field report: reads like bad credentials).
  if (wrongRegion) return xrayError(401, BAD_CREDENTIALS, 'auth');
  return null;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
