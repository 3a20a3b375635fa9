/** The former host (`SandboxCoreOptions.formerHost`): a second listener that redirects everything to the sandbox. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createCucumberStudioModule } from '../../src/sandbox/cucumberstudio';
import { createZephyrModule } from '../../src/sandbox/zephyr';

let open: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});

async function start(status?: 301 | 302 | 307 | 308): Promise<RunningSandbox> {
  const sandbox = await startSandboxCore([createZephyrModule(), createCucumberStudioModule()], {
    formerHost: { service: 'cucumberstudio', ...(status ? { status } : {}) },
  });
  open.push(sandbox);
  return sandbox;
}

/** One exchange, redirects not followed. */
async function once(url: string, method = 'GET', body?: string) {
  // fetch wraps a connection error; its cause carries the code.
  const res = await fetch(url, { method, body, redirect: 'manual' }).catch((error: Error) => {
    throw error.cause ?? error;
  });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') ?? undefined, length: res.headers.get('content-length') ?? undefined };
}

describe('sandbox former host', () => {
  it('answers 301 to the same path and query on the sandbox, for any method, and counts what it receives apart', async () => {
    const sandbox = await start();
    const former = sandbox.formerOrigin!;
    expect(former).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(former).not.toBe(sandbox.origin);
    expect(await once(`${former}/api/projects/1/test_runs?filter%5Bname%5D=a%20b&x=1`)).toEqual({
      status: 301,
      location: `${sandbox.origin}/api/projects/1/test_runs?filter%5Bname%5D=a%20b&x=1`,
      length: '0',
    });
    expect((await once(`${former}/api/projects/1/test_runs`, 'POST', '{"data":{}}')).status).toBe(301);
    expect((await once(`${former}/anything/else`, 'PATCH', 'x')).location).toBe(`${sandbox.origin}/anything/else`);
    const stats = sandbox.stats();
    expect(stats.cucumberstudio.formerHost).toEqual({ origin: former, status: 301, requests: 3, byMethod: { GET: 1, POST: 1, PATCH: 1 } });
    expect(stats.cucumberstudio.requests).toBe(0); // nothing reached the service itself
    expect(stats.zephyr.formerHost).toBeUndefined();
    expect(sandbox.log().map((e) => [e.service, e.method, e.route, e.status])).toEqual([
      ['cucumberstudio', 'GET', 'former host', 301],
      ['cucumberstudio', 'POST', 'former host', 301],
      ['cucumberstudio', 'PATCH', 'former host', 301],
    ]);
    sandbox.reset();
    expect(sandbox.stats().cucumberstudio.formerHost).toMatchObject({ requests: 0, byMethod: {} });
  });

  it("points only that service's env at the former host; the redirect leads to a working service", async () => {
    const sandbox = await start(308);
    const env = sandbox.env();
    expect(env.CUCUMBERSTUDIO_BASE_URL).toBe(sandbox.formerOrigin);
    expect(env.ZEPHYR_BASE_URL).toBe(`${sandbox.origin}/connect`);
    const hop = await once(`${env.CUCUMBERSTUDIO_BASE_URL}/api/projects/1`);
    expect(hop).toMatchObject({ status: 308, location: `${sandbox.origin}/api/projects/1` });
    const res = await fetch(hop.location as string, {
      headers: {
        accept: 'application/vnd.api+json; version=1',
        uid: env.CUCUMBERSTUDIO_UID,
        'access-token': env.CUCUMBERSTUDIO_ACCESS_TOKEN,
        client: env.CUCUMBERSTUDIO_CLIENT,
      },
    });
    expect(res.status).toBe(200);
  });

  it.each([302, 307] as const)('answers %s when asked to', async (status) => {
    const sandbox = await start(status);
    expect((await once(`${sandbox.formerOrigin}/api`)).status).toBe(status);
  });

  it('is closed with the sandbox; without the option there is none', async () => {
    const sandbox = await start();
    const former = sandbox.formerOrigin!;
    await sandbox.close();
    open = [];
    await expect(once(`${former}/api`)).rejects.toThrow(/ECONNREFUSED/);
    const plain = await startSandboxCore([createCucumberStudioModule()], {});
    open.push(plain);
    expect(plain.formerOrigin).toBeUndefined();
    expect(plain.env().CUCUMBERSTUDIO_BASE_URL).toBe(plain.origin);
    expect(plain.stats().cucumberstudio.formerHost).toBeUndefined();
  });

  it('refuses an unknown service or a status that is not a redirect', async () => {
    await expect(startSandboxCore([createCucumberStudioModule()], { formerHost: { service: 'jira' } })).rejects.toThrow(
      'sandbox: no service jira for the former host',
    );
    await expect(
      startSandboxCore([createCucumberStudioModule()], { formerHost: { service: 'cucumberstudio', status: 200 as never } }),
    ).rejects.toThrow(/must be one of 301, 302, 307, 308/);
  });
});
