import { createHash, createHmac } from 'node:crypto';
import { createCanonicalRequest, createQueryStringHash, encodeSymmetric, fromMethodAndUrl } from 'atlassian-jwt';
import { describe, expect, it } from 'vitest';
import { javaDateString, verifyToken } from '../../src/sandbox/zephyr/auth';
import {
  canonicalQuery,
  canonicalRequest,
  canonicalUri,
  computeQsh,
  formDecode,
  lenientQshCandidates,
  rfc3986Encode,
} from '../../src/sandbox/zephyr/qsh';

const PROD_BASE = 'https://prod-api.zephyr4jiracloud.com/connect';

/** Every row of the §2.4 table: request-target (relative to the origin), canonical request, qsh. */
const VECTORS: [string, string, string, string][] = [
  [
    'GET',
    '/connect/public/rest/api/1.0/serverinfo',
    'GET&/public/rest/api/1.0/serverinfo&',
    '6a7318e89ae7764f433c980cbb57fd240b1884e06679e973d8518b24ac029089',
  ],
  [
    'GET',
    '/connect/public/rest/api/1.0/cycles/search?versionId=-1&projectId=10000',
    'GET&/public/rest/api/1.0/cycles/search&projectId=10000&versionId=-1',
    'f70cf56b614320a4ececf67cdfce4b34ab731916a3b158a2358b1fbc44e39441',
  ],
  [
    'POST',
    '/connect/public/rest/api/1.0/cycle?expand=&clonedCycleId=',
    'POST&/public/rest/api/1.0/cycle&clonedCycleId=&expand=',
    '1c9e9df281a969f497d78c7636abd8a20b33531a960e5bd92da0c725e9175de9',
  ],
  [
    'POST',
    '/connect/public/rest/api/1.0/zql/search?isAdvanced=true',
    'POST&/public/rest/api/1.0/zql/search&isAdvanced=true',
    'd42cdd7b5e23a3c83acd4314c455c2c123772409e6d84046a6cd7d6e617a855f',
  ],
  [
    'GET',
    '/connect/public/rest/api/1.0/executions/search/cycle/abc-123/?projectId=10000&versionId=-1&offset=0&size=50',
    'GET&/public/rest/api/1.0/executions/search/cycle/abc-123&offset=0&projectId=10000&size=50&versionId=-1',
    '01be63b0214929e68092083c09b1dd7a56bc81e06f350475553581852d65fa20',
  ],
  [
    'POST',
    '/connect/public/rest/api/1.0/attachment?comment=a%20b+c*~(x)&entityName=execution&entityId=x',
    'POST&/public/rest/api/1.0/attachment&comment=a%20b%20c%2A~%28x%29&entityId=x&entityName=execution',
    'a99b96b3630b58e306af8ff57a7c6f7cb8ec4fbe0a2161d0e995bf45d2b88ef6',
  ],
  [
    'GET',
    '/connect/public/rest/api/1.0/x?b=2&a=1&a=0&jwt=zzz',
    'GET&/public/rest/api/1.0/x&a=0,1&b=2',
    '9a543894c24e8f2b1a2db234f69faca2f856a806b94db67b03d3d54be2340070',
  ],
  ['GET', '/connect', 'GET&/&', 'c88caad15a1c1a900b8ac08aa9686f4e8184539bea1deda36e2f649430df3239'],
  ['GET', '/connect/', 'GET&/&', 'c88caad15a1c1a900b8ac08aa9686f4e8184539bea1deda36e2f649430df3239'],
];

const EXAMPLE_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI1YjEwYWM4ZDgyZTA1YjIyY2M3ZDRlZjUiLCJxc2giOiI2YTczMThlODlhZTc3NjRmNDMzYzk4MGNiYjU3ZmQyNDBiMTg4NGUwNjY3OWU5NzNkODUxOGIyNGFjMDI5MDg5IiwiaXNzIjoiYW1seVlUb3dNREF3TURBd01DMHhNVEV4TFRJeU1qSXRNek16TXkwME5EUTBORFEwTkRRME5EUWdOV0l4TUdGak9HUTRNbVV3TldJeU1tTmpOMlEwWldZMUlGVlRSVkpmUkVWR1FWVk1WRjlPUVUxRiIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ.ST0Ub83iRPy4k-4pKGh9dhD8IBY68uRjq65sl9iiXqo';
const EXAMPLE_KEY = 'amlyYTowMDAwMDAwMC0xMTExLTIyMjItMzMzMy00NDQ0NDQ0NDQ0NDQgNWIxMGFjOGQ4MmUwNWIyMmNjN2Q0ZWY1IFVTRVJfREVGQVVMVF9OQU1F';

describe('zephyr sandbox qsh canonicalizer (§2.4)', () => {
  it.each(VECTORS)('%s %s', (method, target, canonical, qsh) => {
    expect(canonicalRequest(method, target, '/connect')).toBe(canonical);
    expect(computeQsh(method, target, '/connect')).toBe(qsh);
    // The oracle agrees (atlassian-jwt 2.0.3, production base URL).
    expect(createQueryStringHash(fromMethodAndUrl(method, 'https://prod-api.zephyr4jiracloud.com' + target), false, PROD_BASE)).toBe(qsh);
  });

  it('canonical URI steps', () => {
    expect(canonicalUri('/connect/public/x/', '/connect')).toBe('/public/x');
    expect(canonicalUri('/connect/a&b', '/connect')).toBe('/a%26b');
    expect(canonicalUri('/connect/p%20q', '/connect')).toBe('/p%20q'); // escapes untouched
    expect(canonicalUri('/connectx/y', '/connect')).toBe('/connectx/y'); // prefix only on a segment boundary
    expect(canonicalUri('/public/x', '')).toBe('/public/x');
    expect(canonicalUri('/connect/public/x', '/connect/')).toBe('/public/x');
  });

  it('canonical query edge cases', () => {
    expect(canonicalQuery('')).toBe('');
    expect(canonicalQuery('a=1&&b')).toBe('a=1&b=');
    expect(canonicalQuery('a=1&')).toBe('a=1');
    expect(canonicalQuery('B=1&a=2')).toBe('B=1&a=2'); // code-point order: B < a
    expect(canonicalQuery('q=x%3Dy=z')).toBe('q=x%3Dy%3Dz'); // split at the first '='
    expect(canonicalQuery('n=%C3%A9t%C3%A9&m=%E2%9C%93')).toBe('m=%E2%9C%93&n=%C3%A9t%C3%A9');
    expect(canonicalQuery('x=%zz')).toBe('x=%25zz'); // malformed escape stays literal
    expect(canonicalQuery('a=1#frag')).toBe('a=1');
    expect(formDecode('a+b%2Bc')).toBe('a b+c');
    expect(rfc3986Encode("!'()*~ é")).toBe('%21%27%28%29%2A~%20%C3%A9');
  });

  it('agrees with atlassian-jwt on assorted queries', () => {
    const targets = [
      '/connect/public/rest/api/1.0/cycle/abc?projectId=10000&versionId=-1&expand=executionSummaries',
      '/connect/public/rest/api/1.0/execution/e-1?issueId=100005&projectId=10000',
      '/connect/public/rest/api/1.0/zql/search?zqlQuery=project%20%3D%20%22PROJ%22%20AND%20cycleName%20in%20(%22C%201%22)',
      '/connect/public/rest/api/1.0/x?z=%7E&y=a%2Cb&x=%21',
      '/connect/public/rest/api/1.0/serverinfo?versionId=1',
    ];
    for (const t of targets) {
      for (const m of ['GET', 'POST', 'PUT', 'DELETE']) {
        const oracle = createCanonicalRequest(fromMethodAndUrl(m, 'http://h' + t), false, 'http://h/connect');
        expect(canonicalRequest(m, t, '/connect')).toBe(oracle);
      }
    }
  });

  it('lenient candidates include the raw-query and with-context hashes, strict hash first', () => {
    const target = '/connect/public/rest/api/1.0/cycles/search?versionId=-1&projectId=10000';
    const c = lenientQshCandidates('GET', target, '/connect');
    expect(c[0]).toBe(computeQsh('GET', target, '/connect'));
    expect(c).toContain(sha256Hex('GET&/public/rest/api/1.0/cycles/search&versionId=-1&projectId=10000'));
    expect(c).toContain(sha256Hex('GET&/connect/public/rest/api/1.0/cycles/search&projectId=10000&versionId=-1'));
  });
});

function sha256Hex(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

describe('zephyr sandbox token verification (§2.3, §2.4 example)', () => {
  it('the §2.4 example token has a valid signature and the table qsh', () => {
    const check = verifyToken(EXAMPLE_TOKEN, 'example-secret-key', 1700000100, EXAMPLE_KEY);
    expect(check.ok).toBe(true);
    if (check.ok) {
      expect(check.claims.qsh).toBe(VECTORS[0][3]);
      expect(check.claims.sub).toBe('5b10ac8d82e05b22cc7d4ef5');
    }
  });

  it('the example token is expired today, with the library message', () => {
    const now = 1700003600 + 31;
    const check = verifyToken(EXAMPLE_TOKEN, 'example-secret-key', now);
    expect(check).toEqual({
      ok: false,
      message: `Expired at Tue Nov 14 23:13:20 UTC 2023 and time is now ${javaDateString(now * 1000)} (30 seconds leeway is allowed)`,
    });
    expect(verifyToken(EXAMPLE_TOKEN, 'example-secret-key', 1700003600 + 30).ok).toBe(true); // leeway
    expect(javaDateString(1700000000000)).toBe('Tue Nov 14 22:13:20 UTC 2023');
  });

  it('rejects a wrong secret, a wrong iss, alg none, and malformed tokens', () => {
    expect(verifyToken(EXAMPLE_TOKEN, 'other-secret', 1700000100)).toMatchObject({
      ok: false,
      message: 'JWT signature verification failed.',
    });
    expect(verifyToken(EXAMPLE_TOKEN, 'example-secret-key', 1700000100, 'other-key').ok).toBe(false);
    const [, payload] = EXAMPLE_TOKEN.split('.');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    expect(verifyToken(none, 'example-secret-key', 1700000100)).toMatchObject({ ok: false });
    expect(verifyToken('abc.def', 'k', 0).ok).toBe(false);
    expect(verifyToken('a b.c.d', 'k', 0).ok).toBe(false);
  });

  it('iat/exp: required, numeric, seconds; millisecond values and a future iat pass', () => {
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) => encodeSymmetric(claims, 's3cret');
    expect(verifyToken(sign({ iat: Date.now(), exp: Date.now() + 3600 }), 's3cret', now).ok).toBe(true);
    expect(verifyToken(sign({ iat: now + 10_000, exp: now + 20_000 }), 's3cret', now).ok).toBe(true);
    expect(verifyToken(sign({ iat: now }), 's3cret', now)).toMatchObject({
      message: "'exp' and 'iat' are required claims. Atlassian JWT does not allow JWTs with unlimited lifetimes.",
    });
    expect(verifyToken(sign({ iat: String(now), exp: now + 60 }), 's3cret', now)).toMatchObject({
      message: "Expecting claim 'iat' to be numeric but it is a string",
    });
    expect(verifyToken(sign({ iat: now, exp: String(now + 60) }), 's3cret', now)).toMatchObject({
      message: "Expecting claim 'exp' to be numeric but it is a string",
    });
    // Header member order does not matter.
    const h = Buffer.from('{"typ":"JWT","alg":"HS256"}').toString('base64url');
    const p = Buffer.from(JSON.stringify({ iat: now, exp: now + 60 })).toString('base64url');
    const sig = createHmac('sha256', 's3cret').update(`${h}.${p}`).digest('base64url');
    expect(verifyToken(`${h}.${p}.${sig}`, 's3cret', now).ok).toBe(true);
  });
});
