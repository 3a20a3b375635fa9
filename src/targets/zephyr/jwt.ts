import { webcrypto } from 'node:crypto';
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

/**
 * The HMAC key of a secret, imported once per credentials: given the secret's bytes, jose imports a key
 * for every token, most of its time per request.
 */
const hmacKeys = new WeakMap<ZephyrCredentials, Promise<webcrypto.CryptoKey>>();
function hmacKey(creds: ZephyrCredentials): Promise<webcrypto.CryptoKey> {
  let key = hmacKeys.get(creds);
  if (!key) {
    const bytes = new TextEncoder().encode(creds.secretKey);
    key = webcrypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    hmacKeys.set(creds, key);
    key.catch(() => hmacKeys.delete(creds));
  }
  return key;
}

/** Lifetime of a token. Short on purpose: a token is bound to one request and signed per attempt. */
export const TOKEN_LIFETIME_SECONDS = 180;

/**
 * Signs one request: HS256 over {iss, sub, qsh, iat, exp} with the secret's UTF-8 bytes (not base64
 * decoded), iat/exp in seconds. Returns the bare token; the header value is `JWT <token>`.
 */
export async function signRequest(creds: ZephyrCredentials, method: string, url: string, nowSeconds: number): Promise<string> {
  const [{ SignJWT }, key] = await Promise.all([loadJose(), hmacKey(creds)]);
  return new SignJWT({ qsh: queryStringHash(method, url, creds.baseUrl) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(creds.accessKey)
    .setSubject(creds.accountId)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + TOKEN_LIFETIME_SECONDS)
    .sign(key);
}
