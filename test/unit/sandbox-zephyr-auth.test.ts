import { createHash } from 'node:crypto';
import { createQueryStringHash, encodeSymmetric, fromMethodAndUrl } from 'atlassian-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createZephyrModule } from '../../src/sandbox/zephyr';

const API = '/public/rest/api/1.0';

interface CallOptions {
  claims?: Record<string, unknown>;
  drop?: string[];
  secret?: string;
  accessKey?: string | null;
  authorization?: (token: string) => string | null;
  qsh?: string;
  headers?: Record<string, string>;
}

/** Strict client built on atlassian-jwt (the independent oracle). */
function client(sb: () => RunningSandbox) {
  return async (method: string, pathAndQuery: string, opts: CallOptions = {}) => {
    const env = sb().env();
    const base = env.ZEPHYR_BASE_URL;
    const url = base + API + pathAndQuery;
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: env.ZEPHYR_ACCESS_KEY,
      sub: env.ZEPHYR_ACCOUNT_ID,
      qsh: opts.qsh ?? createQueryStringHash(fromMethodAndUrl(method, url), false, base),
      iat: now,
      exp: now + 180,
      ...opts.claims,
    };
    for (const k of opts.drop ?? []) delete claims[k];
    const token = encodeSymmetric(claims, opts.secret ?? env.ZEPHYR_SECRET_KEY);
    const headers: Record<string, string> = { ...opts.headers };
    const authorization = opts.authorization ? opts.authorization(token) : `JWT ${token}`;
    if (authorization !== null) headers.Authorization = authorization;
    const key = opts.accessKey === undefined ? env.ZEPHYR_ACCESS_KEY : opts.accessKey;
    if (key !== null) headers.zapiAccessKey = key;
    const res = await fetch(url, { method, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text ? (JSON.parse(text) as any) : undefined };
  };
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('zephyr sandbox authentication (§2.5)', () => {
  let sandbox: RunningSandbox;
  let lenient: RunningSandbox;
  const call = client(() => sandbox);
  const callLenient = client(() => lenient);

  beforeAll(async () => {
    sandbox = await startSandboxCore([createZephyrModule({})], {});
    lenient = await startSandboxCore([createZephyrModule({ lenientQsh: true, contextPath: '/zapi', retryAfterHeader: true })], {});
  });
  afterAll(async () => {
    await sandbox.close();
    await lenient.close();
  });

  const expect401 = (r: { status: number; json: any; headers: Headers }, message: string | RegExp) => {
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(r.json).toMatchObject({ errorType: 'ERROR', errorCode: 401 });
    if (typeof message === 'string') expect(r.json.clientMessage).toBe(message);
    else expect(r.json.clientMessage).toMatch(message);
  };

  it('env() describes a realistic credential triple', () => {
    const env = sandbox.env();
    expect(env.ZEPHYR_BASE_URL).toBe(sandbox.origin + '/connect');
    expect(Buffer.from(env.ZEPHYR_ACCESS_KEY, 'base64').toString()).toBe(
      'jira:00000000-1111-2222-3333-444444444444 5b10ac8d82e05b22cc7d4ef5 USER_DEFAULT_NAME',
    );
    expect(env.ZEPHYR_SECRET_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(env).toMatchObject({ ZEPHYR_ACCOUNT_ID: '5b10ac8d82e05b22cc7d4ef5', ZEPHYR_PROJECT_ID: '10000', ZEPHYR_VERSION_ID: '-1' });
  });

  it('accepts a canonical token, also with a JSON content type on a bodyless GET', async () => {
    const r = await call('GET', '/serverinfo', { headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ version: 'sandbox', buildNumber: 1 });
    const q = await call('GET', '/cycles/search?versionId=-1&projectId=10000');
    expect(q.status).toBe(200);
  });

  it('accepts millisecond iat/exp (vendor Node/C# helpers) and a future iat', async () => {
    const ms = Date.now();
    expect((await call('GET', '/serverinfo', { claims: { iat: ms, exp: ms + 3600 } })).status).toBe(200);
    const s = Math.floor(ms / 1000);
    expect((await call('GET', '/serverinfo', { claims: { iat: s + 600, exp: s + 900 } })).status).toBe(200);
  });

  it('rejects an expired token (30 s leeway, seconds)', async () => {
    const s = Math.floor(Date.now() / 1000);
    expect((await call('GET', '/serverinfo', { claims: { iat: s - 100, exp: s - 10 } })).status).toBe(200);
    expect401(
      await call('GET', '/serverinfo', { claims: { iat: s - 100, exp: s - 60 } }),
      /^Expired at .* UTC \d{4} and time is now .* \(30 seconds leeway is allowed\)$/,
    );
  });

  it('qsh hashed with /connect → exact mismatch message', async () => {
    const target = '/cycles/search?projectId=10000&versionId=-1';
    const withContext = sha(`GET&/connect${API}/cycles/search&projectId=10000&versionId=-1`);
    const expected = sha(`GET&${API}/cycles/search&projectId=10000&versionId=-1`);
    expect401(
      await call('GET', target, { qsh: withContext }),
      `Expecting claim 'qsh' to have value '${expected}' but instead it has the value '${withContext}'`,
    );
  });

  it('qsh over an unsorted raw query → 401; missing trailing & → 401', async () => {
    const raw = sha(`GET&${API}/cycles/search&versionId=-1&projectId=10000`);
    const r = await call('GET', '/cycles/search?versionId=-1&projectId=10000', { qsh: raw });
    expect401(r, /^Expecting claim 'qsh' to have value '[0-9a-f]{64}' but instead it has the value '[0-9a-f]{64}'$/);
    expect401(await call('GET', '/serverinfo', { qsh: sha(`GET&${API}/serverinfo`) }), /Expecting claim 'qsh'/);
    // One token per request: a GET token does not fit a DELETE.
    const getQsh = sha(`GET&${API}/serverinfo&`);
    expect((await call('DELETE', '/serverinfo', { qsh: getQsh })).status).toBe(401);
  });

  it('lenient mode (configurable context path) accepts raw-query and with-context hashes', async () => {
    const base = '/cycles/search';
    expect((await callLenient('GET', `${base}?versionId=-1&projectId=10000`)).status).toBe(200);
    const raw = sha(`GET&${API}${base}&versionId=-1&projectId=10000`);
    expect((await callLenient('GET', `${base}?versionId=-1&projectId=10000`, { qsh: raw })).status).toBe(200);
    const ctx = sha(`GET&/zapi${API}${base}&projectId=10000&versionId=-1`);
    expect((await callLenient('GET', `${base}?versionId=-1&projectId=10000`, { qsh: ctx })).status).toBe(200);
    expect((await callLenient('GET', `${base}?versionId=-1&projectId=10000`, { qsh: sha('nope') })).status).toBe(401);
    expect(lenient.env().ZEPHYR_BASE_URL).toBe(lenient.origin + '/zapi');
  });

  it('rejects header and token problems', async () => {
    expect401(await call('GET', '/serverinfo', { authorization: (t) => `JWT JWT ${t}` }), /twice/);
    expect401(await call('GET', '/serverinfo', { authorization: (t) => `Bearer ${t}` }), "Authorization header must be 'JWT <token>'.");
    expect401(await call('GET', '/serverinfo', { authorization: () => null }), /Missing Authorization header/);
    expect401(await call('GET', '/serverinfo', { accessKey: null }), 'Missing zapiAccessKey header.');
    expect401(await call('GET', '/serverinfo', { accessKey: 'bm90LWEta2V5' }), /not known/);
    expect401(await call('GET', '/serverinfo', { secret: 'wrong-secret' }), 'JWT signature verification failed.');
    expect401(await call('GET', '/serverinfo', { claims: { iss: 'someone-else' } }), /'iss'/);
    expect401(await call('GET', '/serverinfo', { drop: ['qsh'] }), "Claim 'qsh' is missing.");
    expect401(await call('GET', '/serverinfo', { drop: ['sub'] }), "Claim 'sub' is missing.");
    expect401(
      await call('GET', '/serverinfo', { drop: ['exp'] }),
      "'exp' and 'iat' are required claims. Atlassian JWT does not allow JWTs with unlimited lifetimes.",
    );
    expect401(
      await call('GET', '/serverinfo', { claims: { exp: String(Math.floor(Date.now() / 1000) + 60) } }),
      "Expecting claim 'exp' to be numeric but it is a string",
    );
    expect401(await call('GET', '/serverinfo', { authorization: () => 'JWT not.a-token' }), /three base64url segments/);
    const [, payload] = (await signedToken(sandbox)).split('.');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    expect401(await call('GET', '/serverinfo', { authorization: () => `JWT ${none}` }), /only HS256/);
    expect(sandbox.stats().zephyr.byRoute.auth).toBeGreaterThan(10);
  });

  it('rate limit: 429 "Please wait", Retry-After only when enabled; fault: 500 errorCode 104', async () => {
    sandbox.setFaults('zephyr', { rateLimit: { count: 1, windowMs: 60_000 } });
    await call('GET', '/serverinfo');
    const limited = await call('GET', '/serverinfo');
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({
      errorType: 'ERROR',
      clientMessage: expect.stringMatching(/^Please wait for \d+ seconds$/),
      errorCode: 429,
    });
    expect(limited.headers.get('retry-after')).toBeNull();
    sandbox.setFaults('zephyr', { rateLimit: null, faultRate: 1 });
    const fault = await call('GET', '/serverinfo');
    expect(fault.status).toBe(500);
    expect(fault.json).toEqual({
      errorType: 'ERROR',
      clientMessage: 'we encountered a problem during processing this request. Please try again.',
      errorCode: 104,
    });
    sandbox.setFaults('zephyr', { faultRate: 0 });

    lenient.setFaults('zephyr', { rateLimit: { count: 1, windowMs: 60_000 } });
    await callLenient('GET', '/serverinfo');
    const withHeader = await callLenient('GET', '/serverinfo');
    expect(withHeader.status).toBe(429);
    expect(withHeader.headers.get('retry-after')).toMatch(/^\d+$/);
    lenient.setFaults('zephyr', { rateLimit: null });
  });

  it('unknown paths below the context path are a 404 envelope', async () => {
    const r = await call('GET', '/no/such/thing');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ errorType: 'ERROR', errorCode: 404 });
  });
});

async function signedToken(sb: RunningSandbox): Promise<string> {
  const env = sb.env();
  const now = Math.floor(Date.now() / 1000);
  return encodeSymmetric({ iss: env.ZEPHYR_ACCESS_KEY, sub: 'x', qsh: 'x', iat: now, exp: now + 60 }, env.ZEPHYR_SECRET_KEY);
}
