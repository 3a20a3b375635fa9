/**
 * The Zephyr stand-in's run-time switches (`src/sandbox/zephyr/settings.ts`): each style's exact answer, how they
 * are set (options, `configure`, admin API), checked and kept across a reset. Time is the injected clocks'.
 */
import { createQueryStringHash, encodeSymmetric, fromMethodAndUrl } from 'atlassian-jwt';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createZephyrModule, type ZephyrModule, type ZephyrSandboxOptions } from '../../src/sandbox/zephyr';

const API = '/public/rest/api/1.0';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

let open: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});

/** A core with only the Zephyr module, both on one clock the test moves. */
async function start(options: ZephyrSandboxOptions = {}) {
  const clock = { now: 0 };
  const module = createZephyrModule({ jobDelayMs: 100, now: () => clock.now, ...options }) as ZephyrModule;
  const sandbox = await startSandboxCore([module], { now: () => clock.now });
  open.push(sandbox);
  const call = async (method: string, pathAndQuery: string, body?: unknown): Promise<Reply> => {
    const env = sandbox.env();
    const url = env.ZEPHYR_BASE_URL + API + pathAndQuery;
    const now = Math.floor(Date.now() / 1000);
    const qsh = createQueryStringHash(fromMethodAndUrl(method, url), false, env.ZEPHYR_BASE_URL);
    const token = encodeSymmetric(
      { iss: env.ZEPHYR_ACCESS_KEY, sub: env.ZEPHYR_ACCOUNT_ID, qsh, iat: now, exp: now + 180 },
      env.ZEPHYR_SECRET_KEY,
    );
    const headers: Record<string, string> = { Authorization: `JWT ${token}`, zapiAccessKey: env.ZEPHYR_ACCESS_KEY };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  return { sandbox, module, clock, call };
}

/** Two calls under a limit of 1 per 3 s, 0.5 s apart: the second is told to wait 2.5 s, i.e. "3 seconds". */
async function limitedAnswer(h: Awaited<ReturnType<typeof start>>): Promise<Reply> {
  h.sandbox.setFaults('zephyr', { rateLimit: { count: 1, windowMs: 3000 } });
  expect((await h.call('GET', '/serverinfo')).status).toBe(200);
  h.clock.now += 500;
  return h.call('GET', '/serverinfo');
}

const PLEASE_WAIT = JSON.stringify({ errorType: 'ERROR', clientMessage: 'Please wait for 3 seconds', errorCode: 429 });

describe('zephyr sandbox settings: retryAfter', () => {
  it.each([
    ['none', null],
    ['zero', '0'],
    ['seconds', '3'],
  ] as const)('%s: the text names the wait; Retry-After is %s', async (retryAfter, header) => {
    const h = await start({ retryAfter });
    const r = await limitedAnswer(h);
    expect(r.status).toBe(429);
    expect(r.text).toBe(PLEASE_WAIT);
    expect(r.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(r.headers.get('retry-after')).toBe(header);
    expect(h.sandbox.log().at(-1)).toMatchObject({ status: 429, route: 'rate-limited', waitSeconds: 3 });
    expect(h.sandbox.log()[0].waitSeconds).toBeUndefined();
  });

  it("defaults to 'none' (a client must read the text); retryAfterHeader: true still means 'seconds'", async () => {
    expect((await start()).module.settings()).toEqual({
      retryAfter: 'none',
      jobTokenStyle: 'text',
      zql: 'indexed',
      addTestsMessage: 'json',
      folderNames: 'case-insensitive',
    });
    const legacy = await start({ retryAfterHeader: true });
    expect(legacy.module.settings().retryAfter).toBe('seconds');
    expect((await limitedAnswer(legacy)).headers.get('retry-after')).toBe('3');
    expect((await start({ retryAfterHeader: true, retryAfter: 'zero' })).module.settings().retryAfter).toBe('zero');
  });
});

describe('zephyr sandbox settings: jobTokenStyle', () => {
  const addTests = async (h: Awaited<ReturnType<typeof start>>) => {
    const cycle = await h.call('POST', '/cycle', { name: 'tokens', projectId: 10000, versionId: -1 });
    return h.call('POST', `/executions/add/cycle/${JSON.parse(cycle.text).id}`, {
      method: 1,
      projectId: 10000,
      versionId: -1,
      issues: ['PROJ-1'],
    });
  };
  /** The token read back the way each shape is meant to be read. */
  const shapes = {
    text: { contentType: 'text/plain;charset=UTF-8', token: (text: string) => text },
    'json-string': { contentType: 'application/json;charset=UTF-8', token: (text: string) => JSON.parse(text) as string },
    object: {
      contentType: 'application/json;charset=UTF-8',
      token: (text: string) => (JSON.parse(text) as { jobProgressToken: string }).jobProgressToken,
    },
  };

  it.each(Object.keys(shapes) as Array<keyof typeof shapes>)('%s: exact body; the token polls to the done job', async (style) => {
    const h = await start({ jobTokenStyle: style });
    const r = await addTests(h);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(shapes[style].contentType);
    const token = shapes[style].token(r.text);
    expect(token).toMatch(UUID);
    const exact = { text: token, 'json-string': `"${token}"`, object: `{"jobProgressToken":"${token}"}` }[style];
    expect(r.text).toBe(exact);
    h.clock.now += 100;
    const job = await h.call('GET', `/jobprogress/${token}`);
    expect(JSON.parse(job.text)).toMatchObject({ progress: 1, errorMessage: null });
  });

  it('bulk status and bulk delete answer in the same style', async () => {
    const h = await start({ jobTokenStyle: 'object' });
    await addTests(h);
    h.clock.now += 100;
    const [cycle] = (h.sandbox.state().zephyr as { cycles: Array<{ executions: Array<{ id: string }> }> }).cycles;
    const ids = cycle.executions.map((e) => e.id);
    for (const [path, body] of [
      ['/executions', { executions: ids, status: 1 }],
      ['/executions/delete', { executions: ids }],
    ] as const) {
      const r = await h.call('POST', path, body);
      expect(r.text).toMatch(/^\{"jobProgressToken":"[0-9a-f-]{36}"\}$/);
    }
  });
});

describe('zephyr sandbox settings: changed at run time', () => {
  it('configure() applies a checked patch, takes effect on the next answer and survives a reset', async () => {
    const h = await start();
    expect(h.sandbox.configure('zephyr', { retryAfter: 'zero', jobTokenStyle: 'json-string' })).toEqual({
      retryAfter: 'zero',
      jobTokenStyle: 'json-string',
      zql: 'indexed',
      addTestsMessage: 'json',
      folderNames: 'case-insensitive',
    });
    h.sandbox.reset();
    expect(h.sandbox.settings()).toEqual({
      zephyr: {
        retryAfter: 'zero',
        jobTokenStyle: 'json-string',
        zql: 'indexed',
        addTestsMessage: 'json',
        folderNames: 'case-insensitive',
      },
    });
    expect((await limitedAnswer(h)).headers.get('retry-after')).toBe('0');
  });

  it('refuses unknown keys and bad values, naming them; nothing of a refused patch is applied', async () => {
    const h = await start();
    expect(() => h.module.configure({ jobTokenStyle: 'object', retryAfter: 'later' as never })).toThrow(
      "zephyr sandbox: retryAfter must be one of 'none', 'zero', 'seconds', got \"later\"",
    );
    expect(() => h.module.configure({ retryAfterSeconds: 3 } as never)).toThrow(/unknown setting "retryAfterSeconds"/);
    expect(h.module.settings()).toEqual({
      retryAfter: 'none',
      jobTokenStyle: 'text',
      zql: 'indexed',
      addTestsMessage: 'json',
      folderNames: 'case-insensitive',
    });
    expect(() => createZephyrModule({ jobTokenStyle: 'xml' as never })).toThrow(/jobTokenStyle must be one of/);
  });

  it('the admin API reads and changes them (400 on a bad patch)', async () => {
    const h = await start();
    const post = (body: unknown) => fetch(`${h.sandbox.origin}/__sandbox/settings`, { method: 'POST', body: JSON.stringify(body) });
    const ok = await post({ zephyr: { jobTokenStyle: 'object' } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      zephyr: { retryAfter: 'none', jobTokenStyle: 'object', zql: 'indexed', addTestsMessage: 'json', folderNames: 'case-insensitive' },
    });
    const bad = await post({ zephyr: { retryAfter: 5 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/retryAfter must be one of/);
    expect(await (await fetch(`${h.sandbox.origin}/__sandbox/settings`)).json()).toEqual({
      zephyr: { retryAfter: 'none', jobTokenStyle: 'object', zql: 'indexed', addTestsMessage: 'json', folderNames: 'case-insensitive' },
    });
  });
});
