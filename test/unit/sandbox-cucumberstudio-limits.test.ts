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

const GENERATION_MS = 60;

describe('CucumberStudio sandbox through the core: rate limit, faults, generation', () => {
  let sandbox: RunningSandbox;
  /** One clock for the module (generation) and the core (rate limit): tests move it instead of sleeping. */
  const clock = { now: 0 };
  beforeAll(async () => {
    const module = createCucumberStudioModule({
      uid: HEADERS.uid,
      accessToken: HEADERS['access-token'],
      client: HEADERS.client,
      projectId: 42,
      scenarioCount: 10,
      generationDelayMs: GENERATION_MS,
      now: () => clock.now,
    });
    sandbox = await startSandboxCore([module], { now: () => clock.now });
  });
  afterAll(() => sandbox.close());

  const get = (path: string) => fetch(sandbox.origin + path, { headers: HEADERS });

  it('uses the configured credentials and project', async () => {
    expect(sandbox.env()).toMatchObject({ CUCUMBERSTUDIO_UID: 'qa@example.com', CUCUMBERSTUDIO_PROJECT_ID: '42' });
    expect((await get('/api/projects/42')).status).toBe(200);
    expect((await get('/api/projects/1')).status).toBe(404);
  });

  it('generates tests after the delay, not before', async () => {
    const res = await fetch(`${sandbox.origin}/api/projects/42/test_runs`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ data: { attributes: { name: 'Timed', scenario_ids: [7, 8, 9] } } }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as any).data.id;
    expect((await get(`/api/projects/42/test_runs/${id}/test_snapshots`)).status).toBe(423);
    clock.now += GENERATION_MS - 1;
    expect((await get(`/api/projects/42/test_runs/${id}/test_snapshots`)).status).toBe(423);
    clock.now += 1;
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

  it('locks the client IP out with 429 and Retry-After for a whole window once the limit is exceeded', async () => {
    sandbox.reset();
    sandbox.setFaults('cucumberstudio', { rateLimit: { count: 3, windowMs: 10_000 } });
    try {
      const answers: Array<{ status: number; retryAfter: string | null }> = [];
      let limitedBody: any;
      // Time between calls (ms); the 4th call (t = 3 s) exceeds 3 per 10 s and starts a 10 s lock-out.
      for (const step of [0, 1000, 1000, 1000, 4000, 5999, 1]) {
        clock.now += step;
        const r = await get('/api/projects');
        answers.push({ status: r.status, retryAfter: r.headers.get('retry-after') });
        const text = await r.text();
        if (r.status === 429) limitedBody ??= JSON.parse(text);
      }
      expect(answers).toEqual([
        { status: 200, retryAfter: null },
        { status: 200, retryAfter: null },
        { status: 200, retryAfter: null },
        { status: 429, retryAfter: '10' }, // t = 3 s: locked out until 13 s
        { status: 429, retryAfter: '6' }, // t = 7 s: the oldest call left the window, but the lock-out holds
        { status: 429, retryAfter: '1' }, // t = 12.999 s
        { status: 200, retryAfter: null }, // t = 13 s: free again
      ]);
      expect(limitedBody.errors[0]).toMatchObject({
        status: '429',
        title: 'Too Many Requests',
        detail: 'Rate limit exceeded. Retry in 10 seconds.',
      });
      expect(sandbox.stats().cucumberstudio.rateLimited).toBe(3);
    } finally {
      sandbox.setFaults('cucumberstudio', { rateLimit: null });
    }
  });
});
