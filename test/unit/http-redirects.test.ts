import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttp, type ExchangeEvent, type Http, type RedirectEvent } from '../../src/http/client';
import { RedirectError } from '../../src/http/errors';
import { credentialsMayFollow, isLoopbackHost, RedirectMemory, redirectAllowed, rewriteOf } from '../../src/http/redirects';

interface Seen {
  method: string;
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
}
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A real local server whose answers each test programs; it records every request it gets. */
function server(host: string) {
  const seen: Seen[] = [];
  let handler: Handler = (_q, res) => res.end('{}');
  const s: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', body, headers: req.headers });
      handler(req, res, body);
    });
  });
  return {
    seen,
    s,
    on(h: Handler) {
      handler = h;
    },
    start: () => new Promise<number>((r) => s.listen(0, host, () => r((s.address() as { port: number }).port))),
  };
}
const redirect = (status: number, location: string) => (_q: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { location });
  res.end('moved');
};
const echo: Handler = (req, res, body) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ method: req.method, path: req.url, body }));
};

// B listens on every interface: reachable as loopback and, where the machine has one, as a LAN address.
const a = server('127.0.0.1');
const b = server('0.0.0.0');
let A = '';
let B = '';
let http: Http | undefined;
const events: { redirects: RedirectEvent[]; exchanges: ExchangeEvent[] } = { redirects: [], exchanges: [] };
const lan = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

beforeAll(async () => {
  A = `http://127.0.0.1:${await a.start()}`;
  B = `http://127.0.0.1:${await b.start()}`;
});
afterAll(async () => {
  await new Promise((r) => a.s.close(r));
  await new Promise((r) => b.s.close(r));
});
function fresh(o: Parameters<typeof createHttp>[0] = {}) {
  a.seen.length = 0;
  b.seen.length = 0;
  events.redirects = [];
  events.exchanges = [];
  const h = createHttp({ onRedirect: (e) => events.redirects.push(e), onExchange: (e) => events.exchanges.push(e), ...o });
  http = h;
  return h;
}
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const creds = { authorization: 'JWT secret-token-value', zapiaccesskey: 'access-key-value' };
const post = (url: string, body = '{"n":1}') =>
  http!.send('Zephyr', {
    method: 'POST',
    url,
    headers: { ...creds, 'content-type': 'application/json' },
    body,
    credentialHeaders: ['authorization', 'zapiaccesskey'],
  });

describe('redirects', () => {
  for (const status of [301, 302, 307, 308]) {
    it(`${status}: follows a POST to the other origin with the same method, body and credentials`, async () => {
      fresh();
      a.on(redirect(status, `${B}/new/x?q=1`));
      b.on(echo);
      const res = await post(`${A}/old/x?q=1`, '{"name":"cycle"}');
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual({ method: 'POST', path: '/new/x?q=1', body: '{"name":"cycle"}' });
      expect(b.seen[0].headers).toMatchObject(creds);
    });
  }

  it('re-sends a FormData body (multipart upload) on a 307', async () => {
    fresh();
    a.on(redirect(307, `${B}/upload`));
    b.on(echo);
    const form = new FormData();
    form.append('file', new Blob(['evidence-bytes']), 'shot.png');
    const res = await http!.send('Zephyr', { method: 'POST', url: `${A}/upload`, headers: {}, body: form });
    expect(b.seen[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(JSON.parse(res.text).body).toContain('evidence-bytes');
  });

  it('resolves a relative Location against the current URL', async () => {
    fresh();
    a.on((req, res, body) => (req.url === '/api/v1/x' ? redirect(307, '../v2/x')(req, res) : echo(req, res, body)));
    const res = await post(`${A}/api/v1/x`);
    expect(JSON.parse(res.text).path).toBe('/api/v2/x');
  });

  it('follows 3 hops, and a 4th is a typed error naming the origin (nothing sent past it)', async () => {
    fresh();
    a.on((req, res, body) => {
      const n = Number(/\/hop(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      if (n < 3) redirect(302, `/hop${n + 1}`)(req, res);
      else echo(req, res, body);
    });
    expect(JSON.parse((await post(`${A}/hop0`)).text).path).toBe('/hop3');
    expect(a.seen.map((s) => s.path)).toEqual(['/hop0', '/hop1', '/hop2', '/hop3']);

    fresh();
    a.on((req, res) => redirect(302, `/loop${Number(/\d+/.exec(req.url ?? '')?.[0] ?? 0) + 1}`)(req, res));
    const error = await post(`${A}/loop0`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ reason: 'too-many', location: A });
    expect((error as Error).message).toMatch(/more than 3 times/);
    expect(a.seen).toHaveLength(4);
  });

  it('refuses http to a host that is not this machine: no request there, no credentials, origin named', async () => {
    fresh();
    // Where the machine has a LAN address, B really listens on it: a leak would show up in b.seen.
    const target = `http://${lan ?? '192.0.2.1'}:${new URL(B).port}`;
    a.on(redirect(308, `${target}/steal?x=1`));
    b.on(echo);
    const error = await post(`${A}/api/projects/1`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ reason: 'refused', location: target });
    expect((error as Error).message).toContain(target);
    expect((error as Error).message).not.toMatch(/secret-token-value|access-key-value|steal/);
    expect(b.seen).toEqual([]);
    expect(events.redirects).toEqual([]);
    expect(http!.redirects()).toEqual([]);
  });

  it("does not carry credentials over https to a host that is not the service's: no request there, origin named", async () => {
    fresh();
    a.on(redirect(307, 'https://collector.invalid/steal?x=1'));
    const error = await post(`${A}/api/projects/1`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ reason: 'foreign', location: 'https://collector.invalid' });
    expect((error as Error).message).toMatch(/not one of Zephyr's own addresses.*configure it as the base URL/);
    expect((error as Error).message).not.toMatch(/secret-token-value|access-key-value|steal/);
    expect(events.exchanges.map((e) => e.path)).toEqual(['/api/projects/1']);
    expect(http!.redirects()).toEqual([]);
  });

  it("credentials follow to the same origin, the service's own hosts, and loopback from loopback only", () => {
    const u = (s: string) => new URL(s);
    const homes = ['studio.cucumberstudio.com', 'studio.cucumber.io'];
    expect(credentialsMayFollow(u('https://studio.cucumber.io/api/x'), u('https://studio.cucumberstudio.com/api/x'), homes)).toBe(true);
    expect(credentialsMayFollow(u('https://proxy.corp/api'), u('https://proxy.corp/v2/api'), [])).toBe(true);
    expect(credentialsMayFollow(u('http://127.0.0.1:4011/api'), u('http://127.0.0.1:4010/api'), [])).toBe(true);
    expect(credentialsMayFollow(u('https://studio.cucumber.io/api'), u('https://studio.cucumber.io.evil.example/api'), homes)).toBe(false);
    expect(credentialsMayFollow(u('https://studio.cucumber.io/api'), u('http://127.0.0.1:8080/api'), homes)).toBe(false);
    expect(credentialsMayFollow(u('https://prod-api.zephyr4jiracloud.com/connect'), u('https://elsewhere.example/connect'), [])).toBe(
      false,
    );
  });

  it('does not follow a 303 (the caller sees it as the answer)', async () => {
    fresh();
    a.on(redirect(303, `${B}/elsewhere`));
    const res = await post(`${A}/x`);
    expect(res.status).toBe(303);
    expect(b.seen).toEqual([]);
  });

  it('reports the redirect as an exchange of its own', async () => {
    fresh();
    a.on(redirect(307, `${B}/new?token=1`));
    b.on(echo);
    await post(`${A}/old`);
    expect(events.exchanges.map((e) => [e.path, e.status, e.redirectTo])).toEqual([
      ['/old', 307, `${B}/new`],
      ['/new?token=1', 200, undefined],
    ]);
  });
});

describe('permanent redirects are remembered for the run', () => {
  it('learns the base from one 301 and sends later requests under it straight to the new origin', async () => {
    fresh();
    a.on(redirect(301, `${B}/api/projects/1/scenarios`));
    b.on(echo);
    await post(`${A}/api/projects/1/scenarios`);
    expect([a.seen.length, b.seen.length]).toEqual([1, 1]);
    expect(events.redirects).toEqual([{ service: 'Zephyr', from: A, to: B, permanent: true }]);

    const res = await post(`${A}/api/projects/1/test_runs?filter=1`);
    expect(JSON.parse(res.text).path).toBe('/api/projects/1/test_runs?filter=1');
    expect([a.seen.length, b.seen.length]).toEqual([1, 2]);
    expect(b.seen[1].headers).toMatchObject(creds);
    expect(events.redirects).toHaveLength(1);
    expect(http!.redirects()).toEqual([{ service: 'Zephyr', from: A, to: B }]);
    expect(http!.rewrite(`${A}/connect`)).toBe(`${B}/connect`);
  });

  it('learns a moved path prefix (old/api → new/v2/api)', async () => {
    fresh();
    a.on(redirect(308, `${B}/v2/api/projects/1`));
    b.on(echo);
    await post(`${A}/api/projects/1`);
    expect(events.redirects).toEqual([{ service: 'Zephyr', from: A, to: `${B}/v2`, permanent: true }]);
    expect(JSON.parse((await post(`${A}/api/projects/1/test_runs`)).text).path).toBe('/v2/api/projects/1/test_runs');
    expect(a.seen).toHaveLength(1);
  });

  it('does not remember a temporary redirect (reported once, followed each time)', async () => {
    fresh();
    a.on(redirect(307, `${B}/x`));
    b.on(echo);
    await post(`${A}/x`);
    await post(`${A}/x`);
    expect([a.seen.length, b.seen.length]).toEqual([2, 2]);
    expect(events.redirects).toEqual([{ service: 'Zephyr', from: A, to: B, permanent: false }]);
    expect(http!.redirects()).toEqual([]);
  });

  it('starts from seeded rewrites (replay) without reporting them again', async () => {
    fresh({ redirects: [{ from: A, to: B }] });
    b.on(echo);
    await post(`${A}/api/projects/1`);
    expect([a.seen.length, b.seen.length]).toEqual([0, 1]);
    expect(events.redirects).toEqual([]);
    expect(() => http!.seedRedirects([{ from: A, to: 'http://192.0.2.1' }])).toThrow(/192\.0\.2\.1/);
  });
});

describe('redirect rules', () => {
  it('allows https anywhere and http only on loopback', () => {
    expect(redirectAllowed(new URL('https://studio.cucumberstudio.com/api'))).toBe(true);
    expect(redirectAllowed(new URL('http://studio.cucumberstudio.com/api'))).toBe(false);
    expect(redirectAllowed(new URL('http://10.0.0.5/api'))).toBe(false);
    expect(redirectAllowed(new URL('ftp://localhost/x'))).toBe(false);
    expect(redirectAllowed(new URL('https://user:pw@host/x'))).toBe(false);
    for (const h of ['localhost', '127.0.0.1', '127.9.8.7', '[::1]', '[::ffff:127.0.0.1]'])
      expect(redirectAllowed(new URL(`http://${h}:8080/x`))).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.evil.com')).toBe(false);
  });
  it('derives the rewrite from the common path tail', () => {
    expect(rewriteOf(new URL('https://old/api/projects/1/x'), new URL('https://new/api/projects/1/x'))).toEqual({
      from: 'https://old',
      to: 'https://new',
    });
    expect(rewriteOf(new URL('https://old/connect/public/x'), new URL('https://new/zapi/public/x'))).toEqual({
      from: 'https://old/connect',
      to: 'https://new/zapi',
    });
    expect(rewriteOf(new URL('https://old/x?a=1'), new URL('https://new/x?a=2'))).toBeUndefined();
  });
  it('learns each rewrite once, and never one that loops back', () => {
    const m = new RedirectMemory();
    expect(m.learn('CucumberStudio', new URL('https://old/api/x'), new URL('https://new/api/x'))).toEqual({
      service: 'CucumberStudio',
      from: 'https://old',
      to: 'https://new',
    });
    expect(m.learn('CucumberStudio', new URL('https://old/api/y'), new URL('https://new/api/y'))).toBeUndefined();
    expect(m.learn('CucumberStudio', new URL('https://new/api/x'), new URL('https://old/api/x'))).toBeUndefined();
    expect(m.apply('https://old/api/projects/1?x=%5B1%5D')).toBe('https://new/api/projects/1?x=%5B1%5D');
    expect(m.apply('https://older/api')).toBe('https://older/api');
  });
});
