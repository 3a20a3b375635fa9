import { queryStringHash } from './qsh';

export interface ZephyrCredentials {
  baseUrl: string;
  accessKey: string;
  secretKey: string;
  accountId: string;
}

type JoseSign = typeof import('jose/jwt/sign', { with: { 'resolution-mode': 'import' } });
let joseModule: Promise<JoseSign> | undefined;
/**
 * jose is ESM-only; a real dynamic import keeps this CommonJS build loadable on every Node >= 20. Only its
 * signing entry point: the whole package took three times as long to load, in Playwright's own process.
 */
const loadJose = () => (joseModule ??= import('jose/jwt/sign'));

/** Lifetime of a token. Short on purpose: a token is bound to one request and signed per attempt. */
export const TOKEN_LIFETIME_SECONDS = 180;

/**
 * Signs one request: HS256 over {iss, sub, qsh, iat, exp} with the secret's UTF-8 bytes (not base64
 * decoded), iat/exp in seconds. Returns the bare token; the header value is `JWT <token>`.
 */
export async function signRequest(creds: ZephyrCredentials, method: string, url: string, nowSeconds: number): Promise<string> {
  const { SignJWT } = await loadJose();
  return new SignJWT({ qsh: queryStringHash(method, url, creds.baseUrl) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(creds.accessKey)
    .setSubject(creds.accountId)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + TOKEN_LIFETIME_SECONDS)
    .sign(new TextEncoder().encode(creds.secretKey));
}
