import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createCucumberStudioModule } from '../../src/sandbox/cucumberstudio';

const HEADERS = {
  accept: 'application/vnd.api+json; version=1',
  'content-type': 'application/json',
  uid: 'qa@example.com',
  'access-token': 'tok-0123456789abcdefghi',
  client: 'cli-0123456789abcdefghi',
};

describe('CucumberStudio sandbox through the core: rate limit, faults, real-time generation', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    const module = createCucumberStudioModule({
      uid: HEADERS.uid,
      accessToken: HEADERS['access-token'],
      client: HEADERS.client,
      projectId: 42,
      scenarioCount: 10,
      generationDelayMs: 60,
    });
    sandbox = await startSandboxCore([module], {});
  });
  afterAll(() => sandbox.close());

  const get = (path: string) => fetch(sandbox.origin + path, { headers: HEADERS });

  it('uses the configured credentials and project', async () => {
    expect(sandbox.env()).toMatchObject({ CUCUMBERSTUDIO_UID: 'qa@example.com', CUCUMBERSTUDIO_PROJECT_ID: '42' });
    expect((await get('/api/projects/42')).status).toBe(200);
    expect((await get('/api/projects/1')).status).toBe(404);
  });

  it('generates tests after the delay on the real clock', async () => {
    const res = await fetch(`${sandbox.origin}/api/projects/42/test_runs`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ data: { attributes: { name: 'Timed', scenario_ids: [7, 8, 9] } } }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as any).data.id;
    expect((await get(`/api/projects/42/test_runs/${id}/test_snapshots`)).status).toBe(423);
    await new Promise((r) => setTimeout(r, 80));
    const tests = await get(`/api/projects/42/test_runs/${id}/test_snapshots`);
    expect(tests.status).toBe(200);
    expect(((await tests.json()) as any).data).toHaveLength(5);
    expect((sandbox.state().cucumberstudio as any).testRuns[0].generating).toBe(false);
  });

  it('answers the injected fault as a JSON:API 503', async () => {
    sandbox.setFaults('cucumberstudio', { faultRate: 1 });
    try {
      const r = await get('/api/projects/42');
      expect(r.status).toBe(503);
      expect(r.headers.get('content-type')).toBe('application/vnd.api+json');
      expect(await r.json()).toEqual({ errors: [{ status: '503', title: 'Service Unavailable', detail: 'Please try again.' }] });
    } finally {
      sandbox.setFaults('cucumberstudio', { faultRate: 0 });
    }
  });

  it('locks the client IP out with 429 and Retry-After once the limit is exceeded', async () => {
    sandbox.reset();
    sandbox.setFaults('cucumberstudio', { rateLimit: { count: 3, windowMs: 1000 } });
    try {
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 5; i++) {
        const r = await get('/api/projects');
        statuses.push(r.status);
        if (r.status === 429) limited = r;
        else await r.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(limited?.headers.get('retry-after')).toBe('1');
      expect(((await limited?.json()) as any).errors[0]).toMatchObject({ status: '429', title: 'Too Many Requests' });
      expect(sandbox.stats().cucumberstudio.rateLimited).toBe(2);
    } finally {
      sandbox.setFaults('cucumberstudio', { rateLimit: null });
    }
  });
});
