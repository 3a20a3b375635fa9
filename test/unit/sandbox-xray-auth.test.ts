import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS, startXray, type XrayHarness } from './sandbox-xray-helpers';

const GET_STATUSES = 'query { getStatuses { name } }';

describe('Xray sandbox: authentication, token lifetime, regions, body size', () => {
  let h: XrayHarness;
  beforeAll(async () => {
    h = await startXray({ maxBodyBytes: 2048 });
  });
  afterAll(() => h.close());

  it('answers a JSON string holding a three-part JWT that lives 24 h', async () => {
    const a = await h.post('/api/v2/authenticate', CREDENTIALS);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect(a.text.startsWith('"') && a.text.endsWith('"')).toBe(true);
    const parts = (a.json as string).split('.');
    expect(parts).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    expect(claims.exp - claims.iat).toBe(86_400);
    expect(claims.iss).toBe('com.xpandit.xray');
  });

  it('refuses a wrong secret with the documented 401 and a malformed body with 400 text', async () => {
    const wrong = await h.post('/api/v2/authenticate', { ...CREDENTIALS, client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'Authentication failed. Invalid client credentials!' });
    const bad = await h.post('/api/v2/authenticate', '{not json', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(bad.text).toBe('Wrong request syntax');
  });

  it('needs a valid bearer token on every other call (REST and GraphQL), never echoing it', async () => {
    for (const path of ['/api/v2/graphql', '/api/v2/import/execution', '/api/v2/import/execution/multipart']) {
      const none = await h.post(path, { query: GET_STATUSES });
      expect(none.status).toBe(401);
      expect(typeof none.json.error).toBe('string');
      const forged = await h.post(path, { query: GET_STATUSES }, { authorization: 'Bearer aaa.bbb.ccc' });
      expect(forged.status).toBe(401);
      expect(forged.text).not.toContain('aaa.bbb.ccc');
    }
    expect((await h.gql(GET_STATUSES)).status).toBe(200);
  });

  it('expires tokens on the module clock (switchable lifetime) and after a revocation', async () => {
    h.module.configure({ tokenLifetimeSeconds: 60 });
    try {
      const token = (await h.post('/api/v2/authenticate', CREDENTIALS)).json as string;
      const call = () => h.post('/api/v2/graphql', { query: GET_STATUSES }, { authorization: `Bearer ${token}` });
      h.clock.now += 59_000;
      expect((await call()).status).toBe(200);
      h.clock.now += 1_000;
      const expired = await call();
      expect(expired.status).toBe(401);
      expect(expired.json.error).toMatch(/expired/i);
    } finally {
      h.module.configure({ tokenLifetimeSeconds: 86_400 });
    }
    const fresh = (await h.post('/api/v2/authenticate', CREDENTIALS)).json as string;
    h.clock.now += 1_000;
    h.module.revokeTokens();
    expect((await h.post('/api/v2/graphql', { query: GET_STATUSES }, { authorization: `Bearer ${fresh}` })).status).toBe(401);
  });

  it('a regional host other than the tenant region authenticates, then 401s the first data call like bad credentials', async () => {
    h.module.configure({ tenantRegion: 'eu' });
    try {
      const call = async (prefix: string) => {
        const auth = await h.post(`${prefix}/api/v2/authenticate`, CREDENTIALS);
        expect(auth.status).toBe(200);
        return h.post(`${prefix}/api/v2/graphql`, { query: GET_STATUSES }, { authorization: `Bearer ${auth.json}` });
      };
      const us = await call('/us');
      expect(us.status).toBe(401);
      expect(us.json).toEqual({ error: 'Authentication failed. Invalid client credentials!' });
      expect((await call('/eu')).status).toBe(200);
      expect((await call('')).status).toBe(200); // the global host serves every tenant
    } finally {
      h.module.configure({ tenantRegion: 'global' });
    }
  });

  it('answers 413 text/html above the body size and applies nothing', async () => {
    const before = h.state().executions.length;
    const big = await h.importJson({ info: { project: 'XT', summary: 'x'.repeat(4096) }, tests: [] });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/^text\/html/);
    expect(big.text).toContain('Request Entity Too Large');
    expect(h.state().executions).toHaveLength(before);
  });

  it('serves only /api/v2 and prints its env vars', async () => {
    expect((await h.api('/api/v1/import/execution', {})).status).toBe(404);
    expect(h.sandbox.env()).toEqual({
      XRAY_BASE_URL: `${h.sandbox.origin}/xray`,
      XRAY_CLIENT_ID: CREDENTIALS.client_id,
      XRAY_CLIENT_SECRET: CREDENTIALS.client_secret,
      XRAY_PROJECT_KEY: 'XT',
    });
  });
});
