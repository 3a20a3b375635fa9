import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SandboxRequest, SandboxResponse } from '../types';
import { errorResponse } from './http';
import { computeQsh, lenientQshCandidates } from './qsh';

/**
 * JWT verification as ZAPI cloud does it (wire reference §2.3-§2.6). Messages for qsh, expiry and
 * iat/exp come from the Atlassian JWT library (§2.6); the others are not documented for production
 * and are the sandbox's own wording (decision [U]):
 */
export const AUTH_MESSAGES = {
  noAuthorization: "Missing Authorization header (expected 'JWT <token>').",
  notJwtScheme: "Authorization header must be 'JWT <token>'.",
  doublePrefix: "Authorization header carries the 'JWT ' prefix twice ('JWT JWT <token>'); send it once.",
  noAccessKey: 'Missing zapiAccessKey header.',
  unknownAccessKey: 'The zapiAccessKey is not known (keys are issued per user and per Jira site).',
  malformed: 'Invalid JWT: expected three base64url segments with a JSON header and a JSON payload.',
  issMismatch: "JWT claim 'iss' does not match the zapiAccessKey header.",
  badSignature: 'JWT signature verification failed.',
  missingTimes: "'exp' and 'iat' are required claims. Atlassian JWT does not allow JWTs with unlimited lifetimes.",
  missingSub: "Claim 'sub' is missing.",
  missingQsh: "Claim 'qsh' is missing.",
} as const;

/** Seconds of clock leeway on `exp` (the Atlassian library default). */
export const LEEWAY_SECONDS = 30;

export type TokenCheck = { ok: true; header: Record<string, unknown>; claims: Record<string, unknown> } | { ok: false; message: string };

/**
 * Pure verification of a compact JWS (no request context): structure, `alg` HS256, optional
 * `iss`, HMAC-SHA256 signature with the secret's UTF-8 bytes, presence/type of `iat` and `exp`,
 * and expiry (`exp` + 30 s < now, in SECONDS). A future `iat` is never rejected, so tokens that
 * carry millisecond timestamps (vendor Node/C# helpers) pass.
 */
export function verifyToken(token: string, secret: string, nowSeconds: number, expectedIss?: string): TokenCheck {
  const parts = token.split('.');
  // The signature segment may be empty (`alg: none` tokens): then the alg check reports the problem.
  const shapes = [/^[A-Za-z0-9_-]+={0,2}$/, /^[A-Za-z0-9_-]+={0,2}$/, /^[A-Za-z0-9_-]*={0,2}$/];
  if (parts.length !== 3 || !parts.every((p, i) => shapes[i].test(p))) return fail(AUTH_MESSAGES.malformed);
  const header = parseSegment(parts[0]);
  const claims = parseSegment(parts[1]);
  if (!header || !claims) return fail(AUTH_MESSAGES.malformed);

  if (header.alg !== 'HS256') {
    return fail(`Unsupported JWT algorithm '${String(header.alg)}': only HS256 is accepted.`);
  }
  if (expectedIss !== undefined && claims.iss !== expectedIss) return fail(AUTH_MESSAGES.issMismatch);

  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${parts[0]}.${parts[1]}`, 'ascii').digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return fail(AUTH_MESSAGES.badSignature);

  if (isAbsent(claims.exp) || isAbsent(claims.iat)) return fail(AUTH_MESSAGES.missingTimes);
  for (const name of ['exp', 'iat'] as const) {
    const v = claims[name];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return fail(`Expecting claim '${name}' to be numeric but it is a ${Array.isArray(v) ? 'array' : typeof v}`);
    }
  }
  const exp = claims.exp as number;
  if (exp + LEEWAY_SECONDS < nowSeconds) {
    return fail(
      `Expired at ${javaDateString(exp * 1000)} and time is now ${javaDateString(nowSeconds * 1000)} (${LEEWAY_SECONDS} seconds leeway is allowed)`,
    );
  }
  return { ok: true, header, claims };
}

export interface Credentials {
  accessKey: string;
  secretKey: string;
}

export interface AuthConfig {
  contextPath: string;
  keys: Map<string, Credentials>;
  lenientQsh: boolean;
  now?: () => number;
}

/**
 * Full request check (§2.5 order): scheme, access key, token, alg, iss, signature, iat/exp, sub,
 * qsh. Returns the acting user (`sub`) or the 401 answer.
 */
export function authenticateRequest(req: SandboxRequest, cfg: AuthConfig): { sub: string } | { response: SandboxResponse } {
  const deny = (message: string) => ({ response: errorResponse(401, message, 401, 'auth') });
  const authorization = headerValue(req.headers.authorization);
  if (authorization === undefined || authorization === '') return deny(AUTH_MESSAGES.noAuthorization);
  if (!authorization.startsWith('JWT ')) return deny(AUTH_MESSAGES.notJwtScheme);
  const token = authorization.slice(4);
  if (/^JWT\s/i.test(token)) return deny(AUTH_MESSAGES.doublePrefix);

  const accessKey = headerValue(req.headers.zapiaccesskey);
  if (accessKey === undefined || accessKey === '') return deny(AUTH_MESSAGES.noAccessKey);
  const creds = cfg.keys.get(accessKey);
  if (!creds) return deny(AUTH_MESSAGES.unknownAccessKey);

  const nowSeconds = (cfg.now ?? Date.now)() / 1000;
  const check = verifyToken(token, creds.secretKey, nowSeconds, creds.accessKey);
  if (!check.ok) return deny(check.message);
  const { claims } = check;

  if (typeof claims.sub !== 'string' || claims.sub === '') return deny(AUTH_MESSAGES.missingSub);

  if (isAbsent(claims.qsh)) return deny(AUTH_MESSAGES.missingQsh);
  const expected = computeQsh(req.method, req.rawTarget, cfg.contextPath);
  const given = claims.qsh;
  if (given !== expected) {
    const lenientOk =
      cfg.lenientQsh && typeof given === 'string' && lenientQshCandidates(req.method, req.rawTarget, cfg.contextPath).includes(given);
    if (!lenientOk) {
      return deny(`Expecting claim 'qsh' to have value '${expected}' but instead it has the value '${String(given)}'`);
    }
  }
  return { sub: claims.sub };
}

/** Java `Date.toString()` in UTC, e.g. `Tue Nov 14 22:13:20 UTC 2023`. */
export function javaDateString(epochMs: number): string {
  const d = new Date(epochMs);
  if (Number.isNaN(d.getTime())) return String(epochMs);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(
    d.getUTCSeconds(),
  )} UTC ${d.getUTCFullYear()}`;
}

function fail(message: string): TokenCheck {
  return { ok: false, message };
}

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null;
}

function parseSegment(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  if (Array.isArray(v)) return v.length === 1 ? v[0] : undefined;
  return v;
}
