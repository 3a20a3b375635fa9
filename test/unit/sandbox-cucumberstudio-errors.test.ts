import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCEPT, AUTH, HEADERS, startCs, type Answer, type CsHarness } from './sandbox-cucumberstudio-helpers';
import type { ErrorBodyStyle } from '../../src/sandbox/cucumberstudio';

let h: CsHarness;
beforeAll(async () => {
  h = await startCs();
});
afterAll(() => h.close());
beforeEach(() => {
  h.sandbox.reset();
  h.sandbox.setFaults('cucumberstudio', { rateLimit: null, faultRate: 0 });
  h.module.configure({ errorBodyStyle: 'jsonapi', deviseAuthErrors: false });
});

const WRONG_TOKEN = 'not-the-right-token-xyz';

/** One request per kind of 4xx the module answers, keyed by status. */
async function every4xx(): Promise<Record<string, Answer>> {
  const run = (await h.createRun({ name: 'R', scenario_ids: [1] })).json.data;
  const { accept: _a, ...noAccept } = HEADERS;
  const out: Record<string, Answer> = {
    400: await h.api('GET', '/api/projects/1/test_runs?filter[status]=old'),
    401: await h.api('GET', '/api/projects', undefined, { ...HEADERS, 'access-token': WRONG_TOKEN }),
    404: await h.api('GET', '/api/projects/1/test_runs/999'),
    406: await h.api('GET', '/api/projects', undefined, noAccept),
    422: await h.createRun({ description: 'no name' }),
    423: await h.tests(run.id),
  };
  h.sandbox.setFaults('cucumberstudio', { rateLimit: { count: 1, windowMs: 60_000 } });
  await h.api('GET', '/api/projects');
  out[429] = await h.api('GET', '/api/projects');
  h.sandbox.setFaults('cucumberstudio', { rateLimit: null });
  return out;
}

function expectNoSecret(a: Answer): void {
  expect(a.text).not.toContain(WRONG_TOKEN);
  expect(a.text).not.toContain(AUTH['access-token']);
}

describe('CucumberStudio sandbox: errorBodyStyle', () => {
  it('jsonapi (default): error objects with status, title and detail', async () => {
    for (const [status, a] of Object.entries(await every4xx())) {
      expect(a.status).toBe(Number(status));
      expect(a.headers.get('content-type')).toBe('application/vnd.api+json');
      expect(a.json.errors[0]).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
      expectNoSecret(a);
    }
  });

  const shapes: Record<Exclude<ErrorBodyStyle, 'jsonapi'>, (a: Answer) => void> = {
    devise: (a) => {
      expect(a.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(a.json).toEqual({ errors: [expect.any(String)] });
      expect(a.json.errors[0].length).toBeGreaterThan(5);
    },
    'error-key': (a) => {
      expect(a.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Object.keys(a.json)).toEqual(['error']);
      expect(a.json.error.length).toBeGreaterThan(5);
    },
    text: (a) => {
      expect(a.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(a.json).toBeUndefined(); // not JSON
      expect(a.text.length).toBeGreaterThan(5);
    },
    empty: (a) => {
      expect(a.text).toBe('');
      expect(a.headers.get('content-type')).toBeNull();
    },
  };

  for (const [style, check] of Object.entries(shapes)) {
    it(`${style}: every 4xx of the module has that shape, nothing else changes`, async () => {
      h.module.configure({ errorBodyStyle: style as ErrorBodyStyle });
      const answers = await every4xx();
      for (const [status, a] of Object.entries(answers)) {
        expect(a.status, status).toBe(Number(status));
        check(a);
        expectNoSecret(a);
        expect(a.headers.get('expiry')).toMatch(/^\d+$/);
      }
      expect(answers[429].headers.get('retry-after')).toMatch(/^\d+$/);
      const okAnswer = await h.api('GET', '/api/projects');
      expect(okAnswer.status).toBe(200);
      expect(okAnswer.json.data[0].type).toBe('projects');
      h.sandbox.setFaults('cucumberstudio', { faultRate: 1 });
      const fault = await h.api('GET', '/api/projects');
      expect(fault.json.errors[0]).toMatchObject({ status: '503' }); // 5xx keep the JSON:API shape
    });
  }

  it('can differ per status', async () => {
    h.module.configure({ errorBodyStyle: { 404: 'empty', 423: 'text', default: 'error-key' } });
    const a = await every4xx();
    expect(a[404].text).toBe('');
    expect(a[423].text).toMatch(/still being generated/);
    expect(a[422].json.error).toMatch(/name/);
    expect(a[401].json.error).toMatch(/credentials/i);
  });
});

describe('CucumberStudio sandbox: devise-style credentials errors', () => {
  it('deviseAuthErrors: a 401 is a string array, whatever was wrong; 406 is unaffected', async () => {
    h.module.configure({ deviseAuthErrors: true });
    const wrong = await h.api('GET', '/api/projects', undefined, { ...HEADERS, 'access-token': WRONG_TOKEN });
    const missing = await h.api('GET', '/api/projects', undefined, { accept: ACCEPT });
    for (const a of [wrong, missing]) {
      expect(a.status).toBe(401);
      expect(a.json).toEqual({ errors: ['Invalid login credentials. Please try again.'] });
      expectNoSecret(a);
    }
    const { accept: _a, ...noAccept } = HEADERS;
    expect((await h.api('GET', '/api/projects', undefined, noAccept)).json.errors[0]).toMatchObject({ status: '406' });
  });

  it('sign-in: credentials in headers on success, devise 401 on failure; no Accept or token needed', async () => {
    const signIn = (body: unknown) => h.api('POST', '/api/auth/sign_in', body, { 'content-type': 'application/json' });
    const ok = await signIn({ email: AUTH.uid, password: 'sandbox-password' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect({
      uid: ok.headers.get('uid'),
      'access-token': ok.headers.get('access-token'),
      client: ok.headers.get('client'),
    }).toEqual(AUTH);
    expect(ok.headers.get('token-type')).toBe('Bearer');
    expect(Number(ok.headers.get('expiry'))).toBeGreaterThan(Date.now() / 1000);
    expect(ok.json.data[0]).toMatchObject({ email: AUTH.uid });

    const bad = await signIn({ email: AUTH.uid, password: 'guess-1234' });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ errors: ['Invalid login credentials. Please try again.'] });
    expect(bad.text).not.toContain('guess-1234');
    expect((await signIn(undefined)).status).toBe(401);
    expect(h.sandbox.stats().cucumberstudio.byRoute['POST /auth/sign_in']).toBe(3);

    h.module.configure({ errorBodyStyle: 'error-key' });
    expect((await signIn({ email: 'x@example.com', password: 'y' })).json).toEqual({
      error: 'Invalid login credentials. Please try again.',
    });
    // Only POST is exempt from the header check.
    expect((await h.api('GET', '/api/auth/sign_in', undefined, {})).status).toBe(401);
  });
});
