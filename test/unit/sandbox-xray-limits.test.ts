import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { startXray, type XrayHarness } from './sandbox-xray-helpers';

describe('Xray sandbox: one rate budget for REST and GraphQL', () => {
  let h: XrayHarness;
  beforeAll(async () => {
    h = await startXray({ rateLimit: { count: 3, windowMs: 300_000 } });
  });
  afterAll(() => h.close());

  it('counts authenticate, imports and GraphQL together; 429 with Retry-After, then without when switched', async () => {
    await h.token(); // 1
    expect((await h.gql('query { getStatuses { name } }')).status).toBe(200); // 2
    expect((await h.importJson({ info: { project: 'XT', summary: 'S' }, tests: [] })).status).toBe(200); // 3
    const limited = await h.gql('query { getStatuses { name } }');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('300');
    expect(typeof limited.json.error).toBe('string');

    h.module.configure({ retryAfter: 'none' });
    h.clock.now += 100_000;
    const bare = await h.importJson({ testExecutionKey: 'XT-154', tests: [] });
    expect(bare.status).toBe(429);
    expect(bare.headers.get('retry-after')).toBeNull();
    expect(h.state().counters.imports).toBe(1);

    h.clock.now += 200_000; // the first call leaves the 5-minute window
    expect((await h.gql('query { getStatuses { name } }')).status).toBe(200);
    expect((h.sandbox.stats() as any).xray.rateLimited).toBe(2);
  });
});

describe('Xray sandbox in startSandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
  });
  afterAll(() => sandbox.close());

  it('is mounted beside the others with the documented budget of 300 per 5 minutes and its env vars', async () => {
    expect(sandbox.faults('xray').rateLimit).toEqual({ count: 300, windowMs: 300_000 });
    expect(sandbox.faults('zephyr').rateLimit).toBeNull();
    const env = sandbox.env();
    expect(env.XRAY_BASE_URL).toBe(`${sandbox.origin}/xray`);
    expect(env.XRAY_PROJECT_KEY).toBe('XT');
    expect(env.ZEPHYR_BASE_URL).toBe(`${sandbox.origin}/connect`);
    const auth = await fetch(`${env.XRAY_BASE_URL}/api/v2/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: env.XRAY_CLIENT_ID, client_secret: env.XRAY_CLIENT_SECRET }),
    });
    expect(auth.status).toBe(200);
  });
});
